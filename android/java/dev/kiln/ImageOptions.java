package dev.kiln;

/**
 * How {@link Session#setImage} turns a frame upright and fits it to the
 * input: {@code new ImageOptions().rotation(90).centerCrop(true)}.
 */
public final class ImageOptions {
  int rotation;
  boolean centerCrop;

  /**
   * Clockwise degrees that turn the frame upright: 0, 90, 180 or 270
   * (CameraX's {@code ImageInfo.getRotationDegrees()}).
   */
  public ImageOptions rotation(int degrees) {
    if (degrees != 0 && degrees != 90 && degrees != 180 && degrees != 270)
      throw new IllegalArgumentException(
          "rotation must be 0, 90, 180 or 270 degrees, not " + degrees);
    this.rotation = degrees;
    return this;
  }

  /**
   * Crop the upright frame to the input's aspect ratio, centered, before
   * resizing (about torchvision's Resize + CenterCrop).
   */
  public ImageOptions centerCrop(boolean crop) {
    this.centerCrop = crop;
    return this;
  }
}

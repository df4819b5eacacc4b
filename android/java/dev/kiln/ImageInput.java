package dev.kiln;

/**
 * What an image input reads ({@code kiln convert --image-input}): the frame
 * format, the model's channels and the normalization compiled into it, in
 * 0-255 pixel units.
 */
public final class ImageInput {
  private final PixelFormat format;
  private final int channels;
  private final boolean channelsBgr;
  private final float[] mean;
  private final float[] std;

  ImageInput(float[] desc) {
    // desc: format, channels, bgr, mean count, means..., std count, stds...
    this.format = PixelFormat.of((long) desc[0]);
    this.channels = (int) desc[1];
    this.channelsBgr = desc[2] != 0;
    int numMean = (int) desc[3];
    this.mean = java.util.Arrays.copyOfRange(desc, 4, 4 + numMean);
    int numStd = (int) desc[4 + numMean];
    this.std = java.util.Arrays.copyOfRange(desc, 5 + numMean, 5 + numMean + numStd);
  }

  public PixelFormat format() {
    return format;
  }

  /** The model's channels: 1 or 3. */
  public int channels() {
    return channels;
  }

  /** True where the model's channels are blue, green, red. */
  public boolean channelsBgr() {
    return channelsBgr;
  }

  /** Per channel (or one for all), in the model's channel order. */
  public float[] mean() {
    return mean.clone();
  }

  public float[] std() {
    return std.clone();
  }
}

package dev.kiln;

/**
 * Camera and bitmap pixel formats (kiln_pixel_format in kiln/kiln.h): what a
 * frame given to {@link Session#setImage} holds, and what an image input of
 * a model converted with {@code kiln convert --image-input NAME=FORMAT}
 * reads.
 */
public enum PixelFormat {
  UNKNOWN(0, 0),
  RGB8(1, 3),
  BGR8(2, 3),
  /** Android's {@code Bitmap.copyPixelsToBuffer} of an ARGB_8888 bitmap. */
  RGBA8(3, 4),
  /**
   * Blue, green, red, alpha bytes: what an {@code int[]} of ARGB pixels
   * ({@code Bitmap.getPixels}) is in memory on a little-endian CPU.
   */
  BGRA8(4, 4),
  GRAY8(5, 1),
  /** Y plane, then interleaved V and U at half resolution; full-range BT.601. */
  NV21(6, 1);

  final int code;
  private final int bytesPerPixel;

  PixelFormat(int code, int bytesPerPixel) {
    this.code = code;
    this.bytesPerPixel = bytesPerPixel;
  }

  /** Bytes per pixel of a row (1 for NV21's Y plane). */
  public int bytesPerPixel() {
    return bytesPerPixel;
  }

  static PixelFormat of(long code) {
    for (PixelFormat f : values())
      if (f.code == code)
        return f;
    return UNKNOWN;
  }
}

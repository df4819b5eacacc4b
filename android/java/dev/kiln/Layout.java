package dev.kiln;

/** Memory layout of a graph input or output (kiln_layout in kiln/kiln.h). */
public enum Layout {
  /** No image layout: the dims are in the model's order. */
  PLAIN,
  /** Batch, channels, height, width. */
  NCHW,
  /** Batch, height, width, channels. */
  NHWC;

  static Layout of(long code) {
    return code >= 0 && code < values().length ? values()[(int) code] : PLAIN;
  }
}

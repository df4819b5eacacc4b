package dev.kiln;

/** The runtime as a whole. */
public final class Kiln {
  private Kiln() {}

  /** The runtime's version ("0.1.0"). */
  public static String version() {
    return NativeApi.version();
  }
}

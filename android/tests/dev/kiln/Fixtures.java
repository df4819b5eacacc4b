package dev.kiln;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Paths;

/** The files make_fixtures.py wrote, in the folder -Dkiln.fixtures names. */
final class Fixtures {
  private Fixtures() {}

  static String path(String name) {
    String dir = System.getProperty("kiln.fixtures");
    if (dir == null)
      throw new IllegalStateException("run with -Dkiln.fixtures=DIR (make_fixtures.py)");
    return Paths.get(dir, name).toString();
  }

  static byte[] bytes(String name) throws IOException {
    return Files.readAllBytes(Paths.get(path(name)));
  }

  static float[] floats(String name) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(bytes(name)).order(ByteOrder.LITTLE_ENDIAN);
    float[] out = new float[b.remaining() / 4];
    b.asFloatBuffer().get(out);
    return out;
  }

  /** max |a - ref| / max |ref|; infinite where a value is NaN. */
  static double relativeError(float[] a, float[] ref) {
    if (a.length != ref.length)
      return Double.POSITIVE_INFINITY;
    double diff = 0, scale = 0;
    for (int i = 0; i < a.length; ++i) {
      double d = Math.abs((double) a[i] - ref[i]);
      diff = Double.isNaN(d) ? Double.POSITIVE_INFINITY : Math.max(diff, d);
      scale = Math.max(scale, Math.abs(ref[i]));
    }
    return scale > 0 ? diff / scale : diff;
  }
}

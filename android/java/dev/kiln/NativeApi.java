package dev.kiln;

import java.nio.Buffer;

/**
 * The JNI library's entry points (android/jni): thin calls of the C API in
 * kiln/kiln.h on native handles. Arguments are checked by Model and Session
 * before they get here; the library checks bounds again and throws
 * KilnException with kiln_last_error() on every failure of the C API.
 */
final class NativeApi {
  private NativeApi() {}

  static {
    // -Dkiln.jni.library=/path/libkiln_jni.so for tests and desktop use; on
    // Android the library is in the app's jniLibs, found by name.
    String path = System.getProperty("kiln.jni.library");
    if (path != null && !path.isEmpty())
      System.load(path);
    else
      System.loadLibrary("kiln_jni");
  }

  static native String version();

  static native long modelLoad(String path);
  static native long modelLoadDirect(Buffer data, long byteOffset, long byteLength);
  static native long modelLoadArray(byte[] data, int offset, int length);
  static native void modelDestroy(long model);
  static native int modelNumTensors(long model, boolean outputs);
  /** Null where input index is not an image input. */
  static native float[] modelImageInput(long model, int index);

  /** Of a model (session false) or a session: its input or output index. */
  static native String tensorName(long handle, boolean session, boolean output, int index);
  /** dtype, layout, byte size, then the dims. */
  static native long[] tensorDesc(long handle, boolean session, boolean output, int index);

  static native long sessionCreate(long model, int threads, long maxArenaBytes,
      boolean nnapiDisallowCpu, String nnapiCacheDir, String nnapiLibrary,
      int nnapiPreference, int vulkanDevice, boolean vulkanFp16Arithmetic,
      String vulkanPipelineCacheDir, int vulkanRunTimeoutMs);
  static native void sessionDestroy(long session);
  /** Target ("cpu", "vulkan", "nnapi", "metal") and device of a session. */
  static native String[] sessionEngine(long session);
  /**
   * kiln_session_self_test: passed, deterministic, worst output, max error,
   * tolerance, relative error, compared, non-finite, run ms.
   */
  static native double[] selfTest(long session);

  static native void setInputDirect(long session, int index, Buffer data,
      int elementSize, long byteOffset, long byteLength);
  static native void setInputArray(long session, int index, Object array,
      int elementSize, long byteOffset, long byteLength);
  static native void setImageDirect(long session, int index, Buffer pixels,
      int elementSize, long byteOffset, long byteLength, int width, int height,
      int rowStride, int format, int rotation, boolean centerCrop);
  static native void setImageArray(long session, int index, Object array,
      int elementSize, long byteOffset, long byteLength, int width, int height,
      int rowStride, int format, int rotation, boolean centerCrop);
  static native void run(long session);
  static native void getOutputDirect(long session, int index, Buffer dst,
      int elementSize, long byteOffset, long byteLength);
  static native void getOutputArray(long session, int index, Object array,
      int elementSize, long byteOffset, long byteLength);
  static native byte[] argmaxMask(long session, int index);
}

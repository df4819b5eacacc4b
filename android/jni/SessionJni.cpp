// dev.kiln.NativeApi: the session's entry points. dev.kiln.Session checks
// types and sizes first, with messages a Java caller can act on; the bounds
// of every buffer and array are checked again here, and the C API checks
// byte counts against the model.
#include "JniSupport.h"

#include <cstring>

using namespace kiln_jni;

extern "C" {

JNIEXPORT jlong JNICALL Java_dev_kiln_NativeApi_sessionCreate(
    JNIEnv *Env, jclass, jlong Model, jint Threads, jlong MaxArenaBytes,
    jboolean NnapiDisallowCpu, jstring NnapiCacheDir, jstring NnapiLibrary,
    jint NnapiPreference, jint VulkanDevice, jboolean VulkanFp16Arithmetic,
    jstring VulkanPipelineCacheDir, jint VulkanRunTimeoutMs) {
  return guarded(Env, jlong(0), [&]() -> jlong {
    StringChars CacheDir(Env, NnapiCacheDir), Library(Env, NnapiLibrary),
        PipelineCache(Env, VulkanPipelineCacheDir);
    if (Env->ExceptionCheck())
      return 0;
    kiln_nnapi_options Nnapi;
    kiln_nnapi_options_init(&Nnapi);
    Nnapi.disallow_cpu = NnapiDisallowCpu ? 1 : 0;
    Nnapi.cache_dir = CacheDir.get();
    Nnapi.library = Library.get();
    Nnapi.preference = NnapiPreference;
    kiln_vulkan_options Vulkan;
    kiln_vulkan_options_init(&Vulkan);
    Vulkan.device_index = VulkanDevice;
    Vulkan.fp16_arithmetic = VulkanFp16Arithmetic
                                 ? KILN_VULKAN_FP16_ARITHMETIC_AUTO
                                 : KILN_VULKAN_FP16_ARITHMETIC_OFF;
    Vulkan.pipeline_cache_dir = PipelineCache.get();
    Vulkan.run_timeout_ms = uint32_t(VulkanRunTimeoutMs);
    kiln_session_options Options;
    kiln_session_options_init(&Options);
    Options.num_threads = uint32_t(Threads);
    Options.max_arena_bytes = uint64_t(MaxArenaBytes);
    Options.nnapi = &Nnapi;
    Options.vulkan = &Vulkan;
    kiln_session *Session = nullptr;
    if (throwIfFailed(Env, kiln_session_create(fromHandle<kiln_model>(Model),
                                               &Options, &Session)))
      return 0;
    return toHandle(Session);
  });
}

JNIEXPORT void JNICALL Java_dev_kiln_NativeApi_sessionDestroy(JNIEnv *, jclass,
                                                              jlong Session) {
  kiln_session_destroy(fromHandle<kiln_session>(Session));
}

JNIEXPORT jobjectArray JNICALL Java_dev_kiln_NativeApi_sessionEngine(
    JNIEnv *Env, jclass, jlong Session) {
  return guarded(Env, static_cast<jobjectArray>(nullptr), [&]() -> jobjectArray {
    kiln_engine_info Info;
    std::memset(&Info, 0, sizeof Info);
    Info.struct_size = sizeof Info;
    if (throwIfFailed(Env, kiln_session_engine_info(
                               fromHandle<kiln_session>(Session), &Info)))
      return nullptr;
    jclass StringClass = Env->FindClass("java/lang/String");
    if (!StringClass)
      return nullptr;
    jobjectArray Out = Env->NewObjectArray(2, StringClass, nullptr);
    if (!Out)
      return nullptr;
    const char *Parts[2] = {Info.target, Info.device};
    for (jsize I = 0; I < 2; ++I) {
      jstring Part = newString(Env, Parts[I]);
      if (!Part)
        return nullptr; // OutOfMemoryError is pending
      Env->SetObjectArrayElement(Out, I, Part);
    }
    return Out;
  });
}

JNIEXPORT jdoubleArray JNICALL Java_dev_kiln_NativeApi_selfTest(
    JNIEnv *Env, jclass, jlong Session) {
  return guarded(Env, static_cast<jdoubleArray>(nullptr), [&]() -> jdoubleArray {
    kiln_self_test_result R;
    std::memset(&R, 0, sizeof R);
    R.struct_size = sizeof R;
    if (throwIfFailed(Env, kiln_session_self_test(
                               fromHandle<kiln_session>(Session), &R)))
      return nullptr;
    const jdouble Values[9] = {double(R.passed),      double(R.deterministic),
                               double(R.worst_output), R.max_error,
                               R.tolerance,           R.relative_error,
                               double(R.compared),    double(R.non_finite),
                               R.run_ms};
    jdoubleArray Out = Env->NewDoubleArray(9);
    if (!Out)
      return nullptr; // OutOfMemoryError is pending
    Env->SetDoubleArrayRegion(Out, 0, 9, Values);
    return Out;
  });
}

JNIEXPORT void JNICALL Java_dev_kiln_NativeApi_setInputDirect(
    JNIEnv *Env, jclass, jlong Session, jint Index, jobject Buffer,
    jint ElementSize, jlong ByteOffset, jlong ByteLength) {
  guardedVoid(Env, [&] {
    uint8_t *Bytes = directRange(Env, Buffer, ElementSize, ByteOffset, ByteLength);
    if (!Bytes)
      return;
    throwIfFailed(Env, kiln_session_set_input(fromHandle<kiln_session>(Session),
                                              size_t(Index), Bytes,
                                              size_t(ByteLength)));
  });
}

JNIEXPORT void JNICALL Java_dev_kiln_NativeApi_setInputArray(
    JNIEnv *Env, jclass, jlong Session, jint Index, jobject Array,
    jint ElementSize, jlong ByteOffset, jlong ByteLength) {
  guardedVoid(Env, [&] {
    CriticalRange Range(Env, static_cast<jarray>(Array), ElementSize, ByteOffset,
                        ByteLength);
    if (!Range.get())
      return;
    kiln_status Status = kiln_session_set_input(
        fromHandle<kiln_session>(Session), size_t(Index), Range.get(),
        size_t(ByteLength));
    Range.release();
    throwIfFailed(Env, Status);
  });
}

static kiln_status setImage(jlong Session, jint Index, const uint8_t *Pixels,
                            jint Width, jint Height, jint RowStride,
                            jint Format, jint Rotation, jboolean CenterCrop) {
  kiln_image_options Options;
  kiln_image_options_init(&Options);
  Options.rotation = Rotation;
  Options.center_crop = CenterCrop ? 1 : 0;
  return kiln_session_set_image(fromHandle<kiln_session>(Session),
                                size_t(Index), Pixels, Width, Height,
                                size_t(RowStride),
                                static_cast<kiln_pixel_format>(Format),
                                &Options);
}

// The bytes a frame's rows span (kiln_session_set_image reads exactly these):
// checked against the range Java passed, which it sized the same way.
static bool frameFits(jint Width, jint Height, jint RowStride, jint Format,
                      jlong ByteLength) {
  if (Width <= 0 || Height <= 0 || RowStride <= 0)
    return false;
  jlong PixelBytes = Format == KILN_PIXEL_RGB8 || Format == KILN_PIXEL_BGR8 ? 3
                     : Format == KILN_PIXEL_RGBA8 || Format == KILN_PIXEL_BGRA8
                         ? 4
                         : 1;
  jlong Rows = Format == KILN_PIXEL_NV21 ? Height + Height / 2 : Height;
  jlong RowBytes = jlong(Width) * PixelBytes;
  return RowBytes <= RowStride &&
         (Rows - 1) * jlong(RowStride) + RowBytes <= ByteLength;
}

JNIEXPORT void JNICALL Java_dev_kiln_NativeApi_setImageDirect(
    JNIEnv *Env, jclass, jlong Session, jint Index, jobject Buffer,
    jint ElementSize, jlong ByteOffset, jlong ByteLength, jint Width,
    jint Height, jint RowStride, jint Format, jint Rotation,
    jboolean CenterCrop) {
  guardedVoid(Env, [&] {
    if (!frameFits(Width, Height, RowStride, Format, ByteLength))
      return throwIllegalArgument(Env, "the frame is larger than the buffer");
    uint8_t *Bytes = directRange(Env, Buffer, ElementSize, ByteOffset, ByteLength);
    if (!Bytes)
      return;
    throwIfFailed(Env, setImage(Session, Index, Bytes, Width, Height, RowStride,
                                Format, Rotation, CenterCrop));
  });
}

JNIEXPORT void JNICALL Java_dev_kiln_NativeApi_setImageArray(
    JNIEnv *Env, jclass, jlong Session, jint Index, jobject Array,
    jint ElementSize, jlong ByteOffset, jlong ByteLength, jint Width,
    jint Height, jint RowStride, jint Format, jint Rotation,
    jboolean CenterCrop) {
  guardedVoid(Env, [&] {
    if (!frameFits(Width, Height, RowStride, Format, ByteLength))
      return throwIllegalArgument(Env, "the frame is larger than the array");
    CriticalRange Range(Env, static_cast<jarray>(Array), ElementSize, ByteOffset,
                        ByteLength);
    if (!Range.get())
      return;
    kiln_status Status = setImage(Session, Index, Range.get(), Width, Height,
                                  RowStride, Format, Rotation, CenterCrop);
    Range.release();
    throwIfFailed(Env, Status);
  });
}

JNIEXPORT void JNICALL Java_dev_kiln_NativeApi_run(JNIEnv *Env, jclass,
                                                   jlong Session) {
  guardedVoid(Env, [&] {
    throwIfFailed(Env, kiln_session_run(fromHandle<kiln_session>(Session)));
  });
}

// Output Index's bytes, which must be exactly ByteLength.
static const uint8_t *outputBytes(JNIEnv *Env, jlong Session, jint Index,
                                  jlong ByteLength) {
  const void *Data = nullptr;
  size_t Bytes = 0;
  if (throwIfFailed(Env, kiln_session_get_output(
                             fromHandle<kiln_session>(Session), size_t(Index),
                             &Data, &Bytes)))
    return nullptr;
  if (jlong(Bytes) != ByteLength) {
    throwInvalid(Env, "output " + std::to_string(Index) + " has " +
                          std::to_string(Bytes) + " bytes, not " +
                          std::to_string(ByteLength));
    return nullptr;
  }
  return static_cast<const uint8_t *>(Data);
}

JNIEXPORT void JNICALL Java_dev_kiln_NativeApi_getOutputDirect(
    JNIEnv *Env, jclass, jlong Session, jint Index, jobject Buffer,
    jint ElementSize, jlong ByteOffset, jlong ByteLength) {
  guardedVoid(Env, [&] {
    const uint8_t *Data = outputBytes(Env, Session, Index, ByteLength);
    if (!Data)
      return;
    uint8_t *Dst = directRange(Env, Buffer, ElementSize, ByteOffset, ByteLength);
    if (Dst)
      std::memcpy(Dst, Data, size_t(ByteLength));
  });
}

JNIEXPORT void JNICALL Java_dev_kiln_NativeApi_getOutputArray(
    JNIEnv *Env, jclass, jlong Session, jint Index, jobject Array,
    jint ElementSize, jlong ByteOffset, jlong ByteLength) {
  guardedVoid(Env, [&] {
    const uint8_t *Data = outputBytes(Env, Session, Index, ByteLength);
    if (!Data)
      return;
    CriticalRange Range(Env, static_cast<jarray>(Array), ElementSize, ByteOffset,
                        ByteLength);
    if (Range.get())
      std::memcpy(Range.get(), Data, size_t(ByteLength));
  });
}

} // extern "C"

// dev.kiln.NativeApi: the model's entry points, and tensor descriptions of
// models and sessions.
#include "JniSupport.h"

#include <vector>

using namespace kiln_jni;

extern "C" {

JNIEXPORT jstring JNICALL Java_dev_kiln_NativeApi_version(JNIEnv *Env, jclass) {
  return guarded(Env, static_cast<jstring>(nullptr), [&]() -> jstring {
    return newString(Env, kiln_version());
  });
}

JNIEXPORT jlong JNICALL Java_dev_kiln_NativeApi_modelLoad(JNIEnv *Env, jclass,
                                                          jstring Path) {
  return guarded(Env, jlong(0), [&]() -> jlong {
    StringChars Chars(Env, Path);
    if (!Chars.get())
      return 0; // NullPointerException or OutOfMemoryError is pending
    kiln_model *Model = nullptr;
    if (throwIfFailed(Env, kiln_model_load(Chars.get(), &Model)))
      return 0;
    return toHandle(Model);
  });
}

JNIEXPORT jlong JNICALL Java_dev_kiln_NativeApi_modelLoadDirect(
    JNIEnv *Env, jclass, jobject Buffer, jlong ByteOffset, jlong ByteLength) {
  return guarded(Env, jlong(0), [&]() -> jlong {
    uint8_t *Bytes = directRange(Env, Buffer, 1, ByteOffset, ByteLength);
    if (!Bytes)
      return 0;
    kiln_model *Model = nullptr;
    if (throwIfFailed(Env, kiln_model_load_buffer(Bytes, size_t(ByteLength),
                                                  &Model)))
      return 0;
    return toHandle(Model);
  });
}

JNIEXPORT jlong JNICALL Java_dev_kiln_NativeApi_modelLoadArray(
    JNIEnv *Env, jclass, jbyteArray Array, jint Offset, jint Length) {
  return guarded(Env, jlong(0), [&]() -> jlong {
    if (!Array || Offset < 0 || Length < 0 ||
        Length > Env->GetArrayLength(Array) - Offset) {
      throwIllegalArgument(Env, "the range is outside the array");
      return 0;
    }
    // Not pinned (verifying a large model would hold the garbage collector
    // off): the JVM may copy, and the runtime copies again into aligned memory.
    jbyte *Bytes = Env->GetByteArrayElements(Array, nullptr);
    if (!Bytes)
      return 0;
    kiln_model *Model = nullptr;
    kiln_status Status =
        kiln_model_load_buffer(Bytes + Offset, size_t(Length), &Model);
    Env->ReleaseByteArrayElements(Array, Bytes, JNI_ABORT);
    if (throwIfFailed(Env, Status))
      return 0;
    return toHandle(Model);
  });
}

JNIEXPORT void JNICALL Java_dev_kiln_NativeApi_modelDestroy(JNIEnv *, jclass,
                                                            jlong Model) {
  kiln_model_destroy(fromHandle<kiln_model>(Model));
}

JNIEXPORT jint JNICALL Java_dev_kiln_NativeApi_modelNumTensors(JNIEnv *, jclass,
                                                               jlong Model,
                                                               jboolean Outputs) {
  const kiln_model *M = fromHandle<kiln_model>(Model);
  return jint(Outputs ? kiln_model_num_outputs(M) : kiln_model_num_inputs(M));
}

JNIEXPORT jfloatArray JNICALL Java_dev_kiln_NativeApi_modelImageInput(
    JNIEnv *Env, jclass, jlong Model, jint Index) {
  return guarded(Env, static_cast<jfloatArray>(nullptr), [&]() -> jfloatArray {
    kiln_image_info Info;
    if (kiln_model_input_image(fromHandle<kiln_model>(Model), size_t(Index),
                               &Info) != KILN_OK)
      return nullptr; // not an image input
    // format, channels, bgr, mean count, means..., std count, stds...
    std::vector<float> Desc = {float(Info.format), float(Info.channels),
                               float(Info.channel_bgr), float(Info.num_mean)};
    Desc.insert(Desc.end(), Info.mean, Info.mean + Info.num_mean);
    Desc.push_back(float(Info.num_std));
    Desc.insert(Desc.end(), Info.std, Info.std + Info.num_std);
    jfloatArray Out = Env->NewFloatArray(jsize(Desc.size()));
    if (Out)
      Env->SetFloatArrayRegion(Out, 0, jsize(Desc.size()), Desc.data());
    return Out;
  });
}

// Input or output Index of a model or a session.
static bool tensorInfo(JNIEnv *Env, jlong Handle, jboolean Session,
                       jboolean Output, jint Index, kiln_tensor_info &Info) {
  kiln_status Status;
  if (Session)
    Status = Output ? kiln_session_output_info(fromHandle<kiln_session>(Handle),
                                               size_t(Index), &Info)
                    : kiln_session_input_info(fromHandle<kiln_session>(Handle),
                                              size_t(Index), &Info);
  else
    Status = Output ? kiln_model_output_info(fromHandle<kiln_model>(Handle),
                                             size_t(Index), &Info)
                    : kiln_model_input_info(fromHandle<kiln_model>(Handle),
                                            size_t(Index), &Info);
  return !throwIfFailed(Env, Status);
}

JNIEXPORT jstring JNICALL Java_dev_kiln_NativeApi_tensorName(
    JNIEnv *Env, jclass, jlong Handle, jboolean Session, jboolean Output,
    jint Index) {
  return guarded(Env, static_cast<jstring>(nullptr), [&]() -> jstring {
    kiln_tensor_info Info;
    if (!tensorInfo(Env, Handle, Session, Output, Index, Info))
      return nullptr;
    return newString(Env, Info.name);
  });
}

JNIEXPORT jlongArray JNICALL Java_dev_kiln_NativeApi_tensorDesc(
    JNIEnv *Env, jclass, jlong Handle, jboolean Session, jboolean Output,
    jint Index) {
  return guarded(Env, static_cast<jlongArray>(nullptr), [&]() -> jlongArray {
    kiln_tensor_info Info;
    if (!tensorInfo(Env, Handle, Session, Output, Index, Info))
      return nullptr;
    // dtype, layout, byte size, then the dims.
    std::vector<jlong> Desc = {jlong(Info.dtype), jlong(Info.layout),
                               jlong(Info.byte_size)};
    Desc.insert(Desc.end(), Info.shape, Info.shape + Info.rank);
    jlongArray Out = Env->NewLongArray(jsize(Desc.size()));
    if (Out)
      Env->SetLongArrayRegion(Out, 0, jsize(Desc.size()), Desc.data());
    return Out;
  });
}

} // extern "C"

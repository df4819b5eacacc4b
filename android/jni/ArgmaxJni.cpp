// dev.kiln.NativeApi.argmaxMask: a segmentation mask (one byte per pixel, the
// class of the highest score) from an output, without the app's own loop
// over C x H x W floats.
#include "JniSupport.h"

#include <string>
#include <vector>

using namespace kiln_jni;

namespace {

// Where the classes of a scores output are: Classes scores per pixel, Stride
// apart, pixel P's first at P * PixelStep.
struct ScoreLayout {
  int64_t Pixels = 1, Classes = 1, Stride = 1, PixelStep = 1;
};

// A [1, C, H, W] (NCHW), [1, H, W, C] (NHWC) or [1, C] output; false with
// Why set otherwise.
bool scoreLayout(const kiln_tensor_info &Info, ScoreLayout &L,
                 std::string &Why) {
  const int64_t *S = Info.shape;
  if (Info.rank == 2 && S[0] == 1) {
    L.Classes = S[1];
    return true;
  }
  if (Info.rank != 4 || S[0] != 1) {
    Why = "scores must be [1, C, H, W], [1, H, W, C] or [1, C]";
    return false;
  }
  if (Info.layout == KILN_LAYOUT_NHWC) {
    L = {S[1] * S[2], S[3], 1, S[3]};
  } else {
    L = {S[2] * S[3], S[1], S[2] * S[3], 1};
  }
  return true;
}

template <typename T>
std::vector<uint8_t> classesOf(const T *Values, size_t Count, bool &Fits) {
  std::vector<uint8_t> Mask(Count);
  Fits = true;
  for (size_t I = 0; I < Count; ++I) {
    Fits = Fits && Values[I] >= 0 && Values[I] <= 255;
    Mask[I] = uint8_t(Values[I]);
  }
  return Mask;
}

std::vector<uint8_t> argmax(const float *Scores, const ScoreLayout &L) {
  std::vector<uint8_t> Mask(size_t(L.Pixels));
  for (int64_t P = 0; P < L.Pixels; ++P) {
    const float *First = Scores + P * L.PixelStep;
    int64_t Best = 0;
    for (int64_t C = 1; C < L.Classes; ++C)
      if (First[C * L.Stride] > First[Best * L.Stride])
        Best = C;
    Mask[size_t(P)] = uint8_t(Best);
  }
  return Mask;
}

} // namespace

extern "C" JNIEXPORT jbyteArray JNICALL Java_dev_kiln_NativeApi_argmaxMask(
    JNIEnv *Env, jclass, jlong Handle, jint Index) {
  return guarded(Env, static_cast<jbyteArray>(nullptr), [&]() -> jbyteArray {
    auto *Session = fromHandle<kiln_session>(Handle);
    kiln_tensor_info Info;
    const void *Data = nullptr;
    size_t Bytes = 0;
    if (throwIfFailed(Env, kiln_session_output_info(Session, size_t(Index), &Info)) ||
        throwIfFailed(Env, kiln_session_get_output(Session, size_t(Index), &Data,
                                                   &Bytes)))
      return nullptr;
    std::string Name = std::string("output '") + Info.name + "': ";
    std::vector<uint8_t> Mask;
    bool Fits = true;
    if (Info.dtype == KILN_DTYPE_U8) {
      auto *Values = static_cast<const uint8_t *>(Data);
      Mask.assign(Values, Values + Bytes);
    } else if (Info.dtype == KILN_DTYPE_I32) {
      Mask = classesOf(static_cast<const int32_t *>(Data), Bytes / 4, Fits);
    } else if (Info.dtype == KILN_DTYPE_I64) {
      Mask = classesOf(static_cast<const int64_t *>(Data), Bytes / 8, Fits);
    } else if (Info.dtype == KILN_DTYPE_F32) {
      ScoreLayout L;
      std::string Why;
      if (!scoreLayout(Info, L, Why)) {
        throwInvalid(Env, Name + Why);
        return nullptr;
      }
      if (L.Pixels < 1 || L.Pixels * L.Classes > int64_t(Bytes / sizeof(float))) {
        throwInvalid(Env, Name + "its shape does not match its " +
                              std::to_string(Bytes) + " bytes");
        return nullptr;
      }
      if (L.Classes > 256 || L.Classes < 1) {
        throwInvalid(Env, Name + std::to_string(L.Classes) +
                              " classes do not fit a byte mask (1 to 256)");
        return nullptr;
      }
      Mask = argmax(static_cast<const float *>(Data), L);
    } else {
      throwInvalid(Env, Name + "a mask needs f32 scores or u8/i32/i64 classes");
      return nullptr;
    }
    if (!Fits) {
      throwInvalid(Env, Name + "a class index is outside 0 to 255");
      return nullptr;
    }
    jbyteArray Out = Env->NewByteArray(jsize(Mask.size()));
    if (Out)
      Env->SetByteArrayRegion(Out, 0, jsize(Mask.size()),
                              reinterpret_cast<const jbyte *>(Mask.data()));
    return Out;
  });
}

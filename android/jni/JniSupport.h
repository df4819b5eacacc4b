// What the JNI entry points share: handles, exceptions, strings and the
// bytes of Java buffers and arrays, each bounds-checked before the C API
// sees a pointer. Only the C API (kiln/kiln.h) is used.
#ifndef KILN_ANDROID_JNI_JNISUPPORT_H
#define KILN_ANDROID_JNI_JNISUPPORT_H

#include <jni.h>
#include <kiln/kiln.h>

// javac -h: NativeApi's native methods as Java declares them.
#include "dev_kiln_NativeApi.h"

#include <cstdint>
#include <string>

namespace kiln_jni {

template <typename T> T *fromHandle(jlong Handle) {
  return reinterpret_cast<T *>(static_cast<uintptr_t>(Handle));
}
template <typename T> jlong toHandle(T *Pointer) {
  return static_cast<jlong>(reinterpret_cast<uintptr_t>(Pointer));
}

// Throws dev.kiln.KilnException(Status, kiln_last_error()) and returns true
// where Status is not KILN_OK.
bool throwIfFailed(JNIEnv *Env, kiln_status Status);
// Throws dev.kiln.KilnException with kiln's INVALID_ARGUMENT and Message.
void throwInvalid(JNIEnv *Env, const std::string &Message);
void throwIllegalArgument(JNIEnv *Env, const char *Message);

// A Java string's modified UTF-8 for the length of a call; null stays null.
class StringChars {
public:
  StringChars(JNIEnv *Env, jstring String);
  ~StringChars();
  StringChars(const StringChars &) = delete;
  StringChars &operator=(const StringChars &) = delete;
  const char *get() const { return Chars; }

private:
  JNIEnv *Env;
  jstring String;
  const char *Chars = nullptr;
};

// [ByteOffset, ByteOffset + ByteLength) of a direct buffer whose elements
// are ElementSize bytes; null (with an IllegalArgumentException thrown)
// where the buffer is not direct or the range is outside it.
uint8_t *directRange(JNIEnv *Env, jobject Buffer, jint ElementSize,
                     jlong ByteOffset, jlong ByteLength);

// The same range of a primitive array, pinned (GetPrimitiveArrayCritical)
// for the object's life: no JNI call may be made until it is released.
class CriticalRange {
public:
  CriticalRange(JNIEnv *Env, jarray Array, jint ElementSize, jlong ByteOffset,
                jlong ByteLength);
  ~CriticalRange() { release(); }
  CriticalRange(const CriticalRange &) = delete;
  CriticalRange &operator=(const CriticalRange &) = delete;
  uint8_t *get() const { return Range; }
  // Unpins the array (committing writes); safe to call twice.
  void release();

private:
  JNIEnv *Env;
  jarray Array;
  void *Base = nullptr;
  uint8_t *Range = nullptr;
};

jstring newString(JNIEnv *Env, const char *Chars);

// Called in a catch (...) block: the C++ exception being handled becomes a
// pending Java one (std::bad_alloc: OutOfMemoryError; others:
// RuntimeException), since none may leave a JNI entry point.
void throwCurrentCppException(JNIEnv *Env);

// Body's value, or Fallback with a Java exception pending where Body threw.
template <typename T, typename F> T guarded(JNIEnv *Env, T Fallback, F &&Body) {
  try {
    return Body();
  } catch (...) {
    throwCurrentCppException(Env);
    return Fallback;
  }
}
template <typename F> void guardedVoid(JNIEnv *Env, F &&Body) {
  try {
    Body();
  } catch (...) {
    throwCurrentCppException(Env);
  }
}

} // namespace kiln_jni

#endif

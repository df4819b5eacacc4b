#include "JniSupport.h"

#include <exception>
#include <new>

namespace kiln_jni {

static void throwKiln(JNIEnv *Env, jint Status, const char *Message) {
  jclass Class = Env->FindClass("dev/kiln/KilnException");
  if (!Class)
    return; // NoClassDefFoundError is pending
  jmethodID Init = Env->GetMethodID(Class, "<init>", "(ILjava/lang/String;)V");
  if (!Init)
    return;
  jstring Text = Env->NewStringUTF(Message);
  if (!Text)
    return; // OutOfMemoryError is pending
  auto Exception =
      static_cast<jthrowable>(Env->NewObject(Class, Init, Status, Text));
  if (Exception)
    Env->Throw(Exception);
}

bool throwIfFailed(JNIEnv *Env, kiln_status Status) {
  if (Status == KILN_OK)
    return false;
  throwKiln(Env, static_cast<jint>(Status), kiln_last_error());
  return true;
}

void throwInvalid(JNIEnv *Env, const std::string &Message) {
  throwKiln(Env, KILN_ERROR_INVALID_ARGUMENT, Message.c_str());
}

void throwIllegalArgument(JNIEnv *Env, const char *Message) {
  if (jclass Class = Env->FindClass("java/lang/IllegalArgumentException"))
    Env->ThrowNew(Class, Message);
}

StringChars::StringChars(JNIEnv *Env, jstring String)
    : Env(Env), String(String) {
  // Not with an exception pending (a string before this one failed).
  if (String && !Env->ExceptionCheck())
    Chars = Env->GetStringUTFChars(String, nullptr);
}

StringChars::~StringChars() {
  if (Chars)
    Env->ReleaseStringUTFChars(String, Chars);
}

// Whether [Offset, Offset + Length) lies in Capacity bytes.
static bool inside(jlong Offset, jlong Length, jlong Capacity) {
  return Offset >= 0 && Length >= 0 && Capacity >= 0 && Offset <= Capacity &&
         Length <= Capacity - Offset;
}

uint8_t *directRange(JNIEnv *Env, jobject Buffer, jint ElementSize,
                     jlong ByteOffset, jlong ByteLength) {
  if (!Buffer || ElementSize <= 0) {
    throwIllegalArgument(Env, "a direct buffer is required");
    return nullptr;
  }
  auto *Base = static_cast<uint8_t *>(Env->GetDirectBufferAddress(Buffer));
  jlong Elements = Env->GetDirectBufferCapacity(Buffer);
  if (!Base || Elements < 0) {
    throwIllegalArgument(Env, "the buffer is not direct");
    return nullptr;
  }
  if (Elements > INT64_MAX / ElementSize ||
      !inside(ByteOffset, ByteLength, Elements * ElementSize)) {
    throwIllegalArgument(Env, "the range is outside the buffer");
    return nullptr;
  }
  return Base + ByteOffset;
}

CriticalRange::CriticalRange(JNIEnv *Env, jarray Array, jint ElementSize,
                             jlong ByteOffset, jlong ByteLength)
    : Env(Env), Array(Array) {
  if (!Array || ElementSize <= 0) {
    throwIllegalArgument(Env, "an array is required");
    return;
  }
  jlong Bytes = jlong(Env->GetArrayLength(Array)) * ElementSize;
  if (!inside(ByteOffset, ByteLength, Bytes)) {
    throwIllegalArgument(Env, "the range is outside the array");
    return;
  }
  Base = Env->GetPrimitiveArrayCritical(Array, nullptr);
  if (Base) // else OutOfMemoryError is pending
    Range = static_cast<uint8_t *>(Base) + ByteOffset;
}

void CriticalRange::release() {
  if (Base)
    Env->ReleasePrimitiveArrayCritical(Array, Base, 0);
  Base = nullptr;
  Range = nullptr;
}

void throwCurrentCppException(JNIEnv *Env) {
  const char *Class = "java/lang/RuntimeException";
  std::string Message = "kiln: unexpected C++ exception";
  try {
    throw;
  } catch (const std::bad_alloc &) {
    Class = "java/lang/OutOfMemoryError";
    Message = "kiln: out of memory";
  } catch (const std::exception &E) {
    Message = std::string("kiln: ") + E.what();
  } catch (...) {
  }
  if (Env->ExceptionCheck())
    return; // the first failure stands
  if (jclass C = Env->FindClass(Class))
    Env->ThrowNew(C, Message.c_str());
}

jstring newString(JNIEnv *Env, const char *Chars) {
  return Env->NewStringUTF(Chars ? Chars : "");
}

} // namespace kiln_jni

/* libkiln_jni.so without a JVM, for the aarch64 build under QEMU (and the
 * host build natively): dlopen()s the library and calls its JNI entry points
 * as the JVM would, through a JNIEnv whose few functions this harness
 * implements, then checks what they return.
 *
 *   kiln-jni-harness LIBRARY MODEL INPUT.bin REFERENCE.bin TOLERANCE
 *
 * runs MODEL (f32 input 0 and output 0) on INPUT's bytes through
 * modelLoad, tensorDesc, sessionCreate, setInputDirect, run and
 * getOutputDirect, and compares output 0 with REFERENCE: the largest
 * absolute difference over the largest absolute reference value must be at
 * most TOLERANCE. A missing file must throw dev.kiln.KilnException with
 * kiln's IO status and a message naming the file. */
#include <jni.h>

#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every object the fake JVM hands out. */
typedef struct FakeObject {
  const char *Kind; /* "string", "buffer", "long[]", "class", "exception" */
  void *Data;
  jlong Count; /* buffer: capacity in elements; long[]: length */
  jint Status; /* exception: the KilnException status */
} FakeObject;

static FakeObject *newObject(const char *Kind, void *Data, jlong Count) {
  FakeObject *O = calloc(1, sizeof *O);
  O->Kind = Kind;
  O->Data = Data;
  O->Count = Count;
  return O;
}

static FakeObject *Pending; /* the thrown exception, if any */
static int Unexpected;      /* calls of JNI functions the harness lacks */

static jstring newStringUTF(JNIEnv *Env, const char *Chars) {
  (void)Env;
  return (jstring)newObject("string", strdup(Chars), 0);
}
static const char *getStringUTFChars(JNIEnv *Env, jstring S, jboolean *Copy) {
  (void)Env;
  if (Copy)
    *Copy = JNI_FALSE;
  return ((FakeObject *)S)->Data;
}
static void releaseStringUTFChars(JNIEnv *Env, jstring S, const char *C) {
  (void)Env, (void)S, (void)C;
}
static void *getDirectBufferAddress(JNIEnv *Env, jobject B) {
  (void)Env;
  return ((FakeObject *)B)->Data;
}
static jlong getDirectBufferCapacity(JNIEnv *Env, jobject B) {
  (void)Env;
  return ((FakeObject *)B)->Count;
}
static jboolean exceptionCheck(JNIEnv *Env) {
  (void)Env;
  return Pending ? JNI_TRUE : JNI_FALSE;
}
static jclass findClass(JNIEnv *Env, const char *Name) {
  (void)Env;
  return (jclass)newObject("class", strdup(Name), 0);
}
static jmethodID getMethodID(JNIEnv *Env, jclass C, const char *Name,
                             const char *Signature) {
  (void)Env, (void)C, (void)Name;
  /* Only KilnException(int, String) is constructed. */
  if (strcmp(Signature, "(ILjava/lang/String;)V") != 0)
    ++Unexpected;
  return (jmethodID)newObject("method", NULL, 0);
}
/* The C++ JNIEnv's NewObject(...) passes its arguments on as a va_list. */
static jobject newObjectV(JNIEnv *Env, jclass C, jmethodID M, va_list Args) {
  (void)Env, (void)M;
  jint Status = va_arg(Args, jint);
  FakeObject *Message = (FakeObject *)va_arg(Args, jstring);
  FakeObject *E = newObject("exception", Message->Data, 0);
  E->Status = Status;
  if (strcmp(((FakeObject *)C)->Data, "dev/kiln/KilnException") != 0)
    ++Unexpected;
  return (jobject)E;
}
static jint throwObject(JNIEnv *Env, jthrowable E) {
  (void)Env;
  Pending = (FakeObject *)E;
  return 0;
}
static jint throwNew(JNIEnv *Env, jclass C, const char *Message) {
  (void)Env;
  FakeObject *E = newObject("exception", strdup(Message), 0);
  E->Status = -1; /* not a KilnException */
  printf("thrown %s: %s\n", (char *)((FakeObject *)C)->Data, Message);
  Pending = E;
  return 0;
}
static jlongArray newLongArray(JNIEnv *Env, jsize Length) {
  (void)Env;
  return (jlongArray)newObject("long[]", calloc((size_t)Length + 1, sizeof(jlong)),
                               Length);
}
static void setLongArrayRegion(JNIEnv *Env, jlongArray A, jsize Start,
                               jsize Length, const jlong *Values) {
  (void)Env;
  memcpy((jlong *)((FakeObject *)A)->Data + Start, Values,
         (size_t)Length * sizeof(jlong));
}

static FakeObject *takePending(void) {
  FakeObject *E = Pending;
  Pending = NULL;
  return E;
}

static void *readFile(const char *Path, long *Size) {
  FILE *F = fopen(Path, "rb");
  if (!F)
    return NULL;
  fseek(F, 0, SEEK_END);
  *Size = ftell(F);
  fseek(F, 0, SEEK_SET);
  void *Data = malloc((size_t)*Size + 1);
  if (fread(Data, 1, (size_t)*Size, F) != (size_t)*Size) {
    fclose(F);
    free(Data);
    return NULL;
  }
  fclose(F);
  return Data;
}

#define CHECK(Cond, ...)                                                       \
  do {                                                                         \
    if (!(Cond)) {                                                             \
      fprintf(stderr, "kiln-jni-harness: " __VA_ARGS__);                       \
      fputc('\n', stderr);                                                     \
      return 1;                                                                \
    }                                                                          \
  } while (0)

/* The entry points the harness calls, as javac -h declares them. */
typedef jstring (*VersionFn)(JNIEnv *, jclass);
typedef jlong (*ModelLoadFn)(JNIEnv *, jclass, jstring);
typedef jlongArray (*TensorDescFn)(JNIEnv *, jclass, jlong, jboolean, jboolean,
                                   jint);
typedef jlong (*SessionCreateFn)(JNIEnv *, jclass, jlong, jint, jlong,
                                 jboolean, jstring, jstring, jint, jint,
                                 jboolean, jstring, jint);
typedef void (*BufferFn)(JNIEnv *, jclass, jlong, jint, jobject, jint, jlong,
                         jlong);
typedef void (*HandleFn)(JNIEnv *, jclass, jlong);

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: kiln-jni-harness LIBRARY MODEL INPUT.bin "
                    "REFERENCE.bin TOLERANCE\n");
    return 2;
  }
  void *Library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  CHECK(Library, "dlopen %s: %s", argv[1], dlerror());
#define ENTRY(Type, Name)                                                      \
  Type Name = (Type)dlsym(Library, "Java_dev_kiln_NativeApi_" #Name);         \
  CHECK(Name, "%s exports no Java_dev_kiln_NativeApi_" #Name, argv[1])
  ENTRY(VersionFn, version);
  ENTRY(ModelLoadFn, modelLoad);
  ENTRY(TensorDescFn, tensorDesc);
  ENTRY(SessionCreateFn, sessionCreate);
  ENTRY(BufferFn, setInputDirect);
  ENTRY(HandleFn, run);
  ENTRY(BufferFn, getOutputDirect);
  ENTRY(HandleFn, sessionDestroy);
  ENTRY(HandleFn, modelDestroy);

  struct JNINativeInterface_ Table;
  memset(&Table, 0, sizeof Table);
  Table.NewStringUTF = newStringUTF;
  Table.GetStringUTFChars = getStringUTFChars;
  Table.ReleaseStringUTFChars = releaseStringUTFChars;
  Table.GetDirectBufferAddress = getDirectBufferAddress;
  Table.GetDirectBufferCapacity = getDirectBufferCapacity;
  Table.ExceptionCheck = exceptionCheck;
  Table.FindClass = findClass;
  Table.GetMethodID = getMethodID;
  Table.NewObjectV = newObjectV;
  Table.Throw = throwObject;
  Table.ThrowNew = throwNew;
  Table.NewLongArray = newLongArray;
  Table.SetLongArrayRegion = setLongArrayRegion;
  JNIEnv Env = &Table;

  FakeObject *Version = (FakeObject *)version(&Env, NULL);
  CHECK(Version && !Pending, "version() failed");
  printf("libkiln_jni version %s\n", (char *)Version->Data);

  /* A missing file: KilnException, status IO (3), the path in the message. */
  const char *Missing = "/nonexistent/kiln-jni-harness.kiln";
  jlong None = modelLoad(&Env, NULL, newStringUTF(&Env, Missing));
  FakeObject *Error = takePending();
  CHECK(None == 0 && Error && Error->Status == 3 &&
            strstr(Error->Data, Missing),
        "loading a missing file did not throw KilnException(IO) naming it");
  printf("missing file: KilnException(%d): %s\n", Error->Status,
         (char *)Error->Data);

  jlong Model = modelLoad(&Env, NULL, newStringUTF(&Env, argv[2]));
  CHECK(Model && !Pending, "modelLoad(%s): %s", argv[2],
        Pending ? (char *)takePending()->Data : "no handle");
  FakeObject *In = (FakeObject *)tensorDesc(&Env, NULL, Model, JNI_FALSE,
                                            JNI_FALSE, 0);
  FakeObject *Out = (FakeObject *)tensorDesc(&Env, NULL, Model, JNI_FALSE,
                                             JNI_TRUE, 0);
  CHECK(In && Out && !Pending, "tensorDesc failed");
  jlong InBytes = ((jlong *)In->Data)[2], OutBytes = ((jlong *)Out->Data)[2];
  CHECK(((jlong *)In->Data)[0] == 1 && ((jlong *)Out->Data)[0] == 1,
        "input 0 and output 0 must be f32");

  long InputSize = 0, ReferenceSize = 0;
  float *Input = readFile(argv[3], &InputSize);
  float *Reference = readFile(argv[4], &ReferenceSize);
  CHECK(Input && InputSize == InBytes, "%s: %ld bytes, the input takes %lld",
        argv[3], InputSize, (long long)InBytes);
  CHECK(Reference && ReferenceSize == OutBytes,
        "%s: %ld bytes, the output has %lld", argv[4], ReferenceSize,
        (long long)OutBytes);

  jlong Session = sessionCreate(&Env, NULL, Model, 1, 0, JNI_FALSE, NULL, NULL,
                                1, -1, JNI_TRUE, NULL, 0);
  CHECK(Session && !Pending, "sessionCreate failed");
  FakeObject *InBuffer = newObject("buffer", Input, InBytes / 4);
  setInputDirect(&Env, NULL, Session, 0, (jobject)InBuffer, 4, 0, InBytes);
  CHECK(!Pending, "setInputDirect: %s", (char *)takePending()->Data);
  /* One byte past the buffer is refused, not read. */
  setInputDirect(&Env, NULL, Session, 0, (jobject)InBuffer, 4, 4, InBytes);
  Error = takePending();
  CHECK(Error && Error->Status == -1,
        "setInputDirect past the buffer's end was not refused");
  run(&Env, NULL, Session);
  CHECK(!Pending, "run: %s", (char *)takePending()->Data);
  float *Output = calloc((size_t)OutBytes / 4, sizeof(float));
  FakeObject *OutBuffer = newObject("buffer", Output, OutBytes / 4);
  getOutputDirect(&Env, NULL, Session, 0, (jobject)OutBuffer, 4, 0, OutBytes);
  CHECK(!Pending, "getOutputDirect: %s", (char *)takePending()->Data);
  sessionDestroy(&Env, NULL, Session);
  modelDestroy(&Env, NULL, Model);

  double MaxDiff = 0, MaxRef = 0;
  for (jlong I = 0; I < OutBytes / 4; ++I) {
    double D = fabs((double)Output[I] - Reference[I]);
    MaxDiff = D > MaxDiff || isnan(D) ? (isnan(D) ? INFINITY : D) : MaxDiff;
    MaxRef = fabs(Reference[I]) > MaxRef ? fabs(Reference[I]) : MaxRef;
  }
  double Relative = MaxRef > 0 ? MaxDiff / MaxRef : MaxDiff;
  printf("output 0: %lld values, max |diff| / max |reference| = %.3g "
         "(tolerance %s)\n",
         (long long)(OutBytes / 4), Relative, argv[5]);
  CHECK(Relative <= atof(argv[5]), "output differs from the reference");
  CHECK(Unexpected == 0, "the library made JNI calls the harness did not expect");
  printf("kiln-jni-harness: ok\n");
  return 0;
}

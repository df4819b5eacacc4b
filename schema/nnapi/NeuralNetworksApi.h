// kiln's own declarations of the subset of Android's Neural Networks API
// (NDK <android/NeuralNetworks.h>) that kiln uses. No Debian package ships
// that header; the values below are the NDK reference's, and never change
// (NNAPI only appends). Shared by the lowering (backends/nnapi/), the
// executor that dlopens libneuralnetworks.so (runtime/src/nnapi) and the host
// NNAPI device of the tests (test/nnapi/host_device/): it lives beside the
// schema, a leaf both sides include, so neither reaches into the other.
#pragma once

#include <cstddef>
#include <cstdint>

namespace kiln::nnapi {

/// The operand types kiln uses: X(name, OperandCode, the feature level that
/// added it). The enum and OperandTypes below are both made from this list.
#define KILN_NNAPI_OPERAND_TYPES(X)          \
  X(FLOAT32, 0, 27)                          \
  X(INT32, 1, 27)                            \
  X(UINT32, 2, 27)                           \
  X(TENSOR_FLOAT32, 3, 27)                   \
  X(TENSOR_INT32, 4, 27)                     \
  X(TENSOR_QUANT8_ASYMM, 5, 27)              \
  X(BOOL, 6, 29)                             \
  X(TENSOR_FLOAT16, 8, 29)                   \
  X(TENSOR_BOOL8, 9, 29)                     \
  X(FLOAT16, 10, 29)                         \
  X(TENSOR_QUANT8_SYMM_PER_CHANNEL, 11, 29)  \
  X(TENSOR_QUANT8_ASYMM_SIGNED, 14, 30)

/// Operand types (OperandCode).
enum OperandCode : int32_t {
#define KILN_NNAPI_ENUMERATOR(Name, Code, Level) Name = Code,
  KILN_NNAPI_OPERAND_TYPES(KILN_NNAPI_ENUMERATOR)
#undef KILN_NNAPI_ENUMERATOR
};

/// The operations kiln emits: X(name, OperationCode, the feature level that
/// added it, 27 for the original set). The enum and Operations below are
/// both made from this list.
#define KILN_NNAPI_OPERATIONS(X)      \
  X(ADD, 0, 27)                       \
  X(AVERAGE_POOL_2D, 1, 27)           \
  X(CONCATENATION, 2, 27)             \
  X(CONV_2D, 3, 27)                   \
  X(DEPTHWISE_CONV_2D, 4, 27)         \
  X(DEQUANTIZE, 6, 27)                \
  X(FLOOR, 8, 27)                     \
  X(FULLY_CONNECTED, 9, 27)           \
  X(LOGISTIC, 14, 27)                 \
  X(MAX_POOL_2D, 17, 27)              \
  X(MUL, 18, 27)                      \
  X(RELU, 19, 27)                     \
  X(RELU1, 20, 27)                    \
  X(RELU6, 21, 27)                    \
  X(RESHAPE, 22, 27)                  \
  X(RESIZE_BILINEAR, 23, 27)          \
  X(SOFTMAX, 25, 27)                  \
  X(TANH, 28, 27)                     \
  X(DIV, 30, 28)                      \
  X(MEAN, 31, 28)                     \
  X(PAD, 32, 28)                      \
  X(STRIDED_SLICE, 35, 28)            \
  X(SUB, 36, 28)                      \
  X(TRANSPOSE, 37, 28)                \
  X(ABS, 38, 29)                      \
  X(CAST, 45, 29)                     \
  X(EQUAL, 48, 29)                    \
  X(EXP, 49, 29)                      \
  X(GATHER, 51, 29)                   \
  X(GREATER, 53, 29)                  \
  X(GROUPED_CONV_2D, 55, 29)          \
  X(LESS, 58, 29)                     \
  X(LOG, 60, 29)                      \
  X(LOG_SOFTMAX, 64, 29)              \
  X(MAXIMUM, 65, 29)                  \
  X(MINIMUM, 66, 29)                  \
  X(NEG, 67, 29)                      \
  X(PAD_V2, 69, 29)                   \
  X(POW, 70, 29)                      \
  X(PRELU, 71, 29)                    \
  X(QUANTIZE, 72, 29)                 \
  X(REDUCE_MAX, 77, 29)               \
  X(REDUCE_MIN, 78, 29)               \
  X(REDUCE_SUM, 80, 29)               \
  X(RSQRT, 83, 29)                    \
  X(SELECT, 84, 29)                   \
  X(SQRT, 88, 29)                     \
  X(TRANSPOSE_CONV_2D, 91, 29)        \
  X(UNIDIRECTIONAL_SEQUENCE_LSTM, 92, 29) \
  X(RESIZE_NEAREST_NEIGHBOR, 94, 29)  \
  X(ELU, 98, 30)                      \
  X(HARD_SWISH, 99, 30)               \
  X(BATCH_MATMUL, 102, FeatureLevel6)

/// Operation types (OperationCode).
enum OperationCode : int32_t {
#define KILN_NNAPI_ENUMERATOR(Name, Code, Level) Name = Code,
  KILN_NNAPI_OPERATIONS(KILN_NNAPI_ENUMERATOR)
#undef KILN_NNAPI_ENUMERATOR
};

/// Fused activation codes (FuseCode).
enum FuseCode : int32_t {
  FUSED_NONE = 0,
  FUSED_RELU = 1,
  FUSED_RELU1 = 2,
  FUSED_RELU6 = 3,
};

/// Compilation preferences (PreferenceCode).
enum PreferenceCode : int32_t {
  PREFER_LOW_POWER = 0,
  PREFER_FAST_SINGLE_ANSWER = 1,
  PREFER_SUSTAINED_SPEED = 2,
};

/// Device types (DeviceTypeCode).
enum DeviceTypeCode : int32_t {
  DEVICE_UNKNOWN = 0,
  DEVICE_OTHER = 1,
  DEVICE_CPU = 2,
  DEVICE_GPU = 3,
  DEVICE_ACCELERATOR = 4,
};

/// Result codes (ResultCode).
enum ResultCode : int {
  NO_ERROR = 0,
  OUT_OF_MEMORY = 1,
  INCOMPLETE = 2,
  UNEXPECTED_NULL = 3,
  BAD_DATA = 4,
  OP_FAILED = 5,
  BAD_STATE = 6,
  UNMAPPABLE = 7,
  OUTPUT_INSUFFICIENT_SIZE = 8,
  UNAVAILABLE_DEVICE = 9,
};

/// Bytes of a compilation cache token (setCaching).
constexpr size_t BYTE_SIZE_OF_CACHE_TOKEN = 32;

/// ANEURALNETWORKS_MAX_SIZE_OF_IMMEDIATELY_COPIED_VALUES: setOperandValue
/// copies a value up to this size; a larger one is only referenced.
constexpr size_t MAX_SIZE_OF_IMMEDIATELY_COPIED_VALUES = 128;

/// Feature levels kiln distinguishes: Android API levels 27 (8.1), 28 (9),
/// 29 (10), 30 (11), 31 (12: ANEURALNETWORKS_FEATURE_LEVEL_5), and
/// ANEURALNETWORKS_FEATURE_LEVEL_6 (Android 13, the NNAPI module update:
/// the NDK numbers it 1000006, not by API level). They are not consecutive;
/// FeatureLevels lists them in order.
constexpr int32_t FeatureLevel5 = 31;
constexpr int32_t FeatureLevel6 = 1000006;
constexpr int32_t FeatureLevelMin = 27;
constexpr int32_t FeatureLevelMax = FeatureLevel6;
inline constexpr int32_t FeatureLevels[] = {27, 28, 29, 30, 31, FeatureLevel6};
inline bool isFeatureLevel(int32_t Level) {
  for (int32_t L : FeatureLevels)
    if (L == Level)
      return true;
  return false;
}

/// mmap protections for ANeuralNetworksMemory_createFromFd.
constexpr int ProtRead = 1;

/// An operation's or operand type's code, spelling and feature level.
struct OperationInfo {
  int32_t Code;
  const char *Name;
  int32_t Level;
};
inline constexpr OperationInfo Operations[] = {
#define KILN_NNAPI_INFO(Name, Code, Level) {Name, #Name, Level},
    KILN_NNAPI_OPERATIONS(KILN_NNAPI_INFO)
#undef KILN_NNAPI_INFO
};

inline constexpr OperationInfo OperandTypes[] = {
#define KILN_NNAPI_INFO(Name, Code, Level) {Name, #Name, Level},
    KILN_NNAPI_OPERAND_TYPES(KILN_NNAPI_INFO)
#undef KILN_NNAPI_INFO
};

/// The entry of Code in Operations or OperandTypes, or null.
inline const OperationInfo *findOperation(int32_t Code) {
  for (const OperationInfo &I : Operations)
    if (I.Code == Code)
      return &I;
  return nullptr;
}
inline const OperationInfo *findOperandType(int32_t Code) {
  for (const OperationInfo &I : OperandTypes)
    if (I.Code == Code)
      return &I;
  return nullptr;
}

/// Whether an operand type is a tensor (has dimensions).
inline bool isTensorType(int32_t Code) {
  return Code != FLOAT32 && Code != INT32 && Code != UINT32 && Code != BOOL &&
         Code != FLOAT16;
}

/// Bytes of one element of an operand type (0 for an unknown type).
inline size_t elementBytes(int32_t Code) {
  switch (Code) {
  case FLOAT32: case INT32: case UINT32: case TENSOR_FLOAT32:
  case TENSOR_INT32:
    return 4;
  case TENSOR_FLOAT16: case FLOAT16:
    return 2;
  case TENSOR_QUANT8_ASYMM: case BOOL: case TENSOR_BOOL8:
  case TENSOR_QUANT8_SYMM_PER_CHANNEL: case TENSOR_QUANT8_ASYMM_SIGNED:
    return 1;
  default:
    return 0;
  }
}

} // namespace kiln::nnapi

// The C declarations, as the NDK spells them: opaque handles, two structs
// and the function types the executor loads with dlsym.
extern "C" {

typedef struct ANeuralNetworksMemory ANeuralNetworksMemory;
typedef struct ANeuralNetworksModel ANeuralNetworksModel;
typedef struct ANeuralNetworksCompilation ANeuralNetworksCompilation;
typedef struct ANeuralNetworksExecution ANeuralNetworksExecution;
typedef struct ANeuralNetworksEvent ANeuralNetworksEvent;
typedef struct ANeuralNetworksDevice ANeuralNetworksDevice;

typedef struct ANeuralNetworksOperandType {
  int32_t type;
  uint32_t dimensionCount;
  const uint32_t *dimensions;
  float scale;
  int32_t zeroPoint;
} ANeuralNetworksOperandType;

typedef struct ANeuralNetworksSymmPerChannelQuantParams {
  uint32_t channelDim;
  uint32_t scaleCount;
  const float *scales;
} ANeuralNetworksSymmPerChannelQuantParams;

typedef int32_t ANeuralNetworksOperationType;

} // extern "C"

/// Every function kiln calls: X(name, return type, parameter list). The
/// executor's function table and the host device's exports are generated
/// from this one list. The level comment is the API level that added it.
#define KILN_NNAPI_FUNCTIONS(X)                                               \
  /* 27 */                                                                     \
  X(ANeuralNetworksMemory_createFromFd, int,                                   \
    (size_t size, int protect, int fd, size_t offset,                         \
     ANeuralNetworksMemory **memory))                                          \
  X(ANeuralNetworksMemory_free, void, (ANeuralNetworksMemory * memory))        \
  X(ANeuralNetworksModel_create, int, (ANeuralNetworksModel * *model))         \
  X(ANeuralNetworksModel_free, void, (ANeuralNetworksModel * model))           \
  X(ANeuralNetworksModel_finish, int, (ANeuralNetworksModel * model))          \
  X(ANeuralNetworksModel_addOperand, int,                                      \
    (ANeuralNetworksModel * model, const ANeuralNetworksOperandType *type))   \
  X(ANeuralNetworksModel_setOperandValue, int,                                 \
    (ANeuralNetworksModel * model, int32_t index, const void *buffer,         \
     size_t length))                                                           \
  X(ANeuralNetworksModel_setOperandValueFromMemory, int,                       \
    (ANeuralNetworksModel * model, int32_t index,                             \
     const ANeuralNetworksMemory *memory, size_t offset, size_t length))      \
  X(ANeuralNetworksModel_addOperation, int,                                    \
    (ANeuralNetworksModel * model, ANeuralNetworksOperationType type,         \
     uint32_t inputCount, const uint32_t *inputs, uint32_t outputCount,       \
     const uint32_t *outputs))                                                 \
  X(ANeuralNetworksModel_identifyInputsAndOutputs, int,                        \
    (ANeuralNetworksModel * model, uint32_t inputCount,                       \
     const uint32_t *inputs, uint32_t outputCount, const uint32_t *outputs))  \
  X(ANeuralNetworksCompilation_create, int,                                    \
    (ANeuralNetworksModel * model,                                            \
     ANeuralNetworksCompilation * *compilation))                              \
  X(ANeuralNetworksCompilation_free, void,                                     \
    (ANeuralNetworksCompilation * compilation))                               \
  X(ANeuralNetworksCompilation_setPreference, int,                             \
    (ANeuralNetworksCompilation * compilation, int32_t preference))           \
  X(ANeuralNetworksCompilation_finish, int,                                    \
    (ANeuralNetworksCompilation * compilation))                               \
  X(ANeuralNetworksExecution_create, int,                                      \
    (ANeuralNetworksCompilation * compilation,                                \
     ANeuralNetworksExecution * *execution))                                  \
  X(ANeuralNetworksExecution_free, void,                                       \
    (ANeuralNetworksExecution * execution))                                   \
  X(ANeuralNetworksExecution_setInput, int,                                    \
    (ANeuralNetworksExecution * execution, int32_t index,                     \
     const ANeuralNetworksOperandType *type, const void *buffer,              \
     size_t length))                                                           \
  X(ANeuralNetworksExecution_setOutput, int,                                   \
    (ANeuralNetworksExecution * execution, int32_t index,                     \
     const ANeuralNetworksOperandType *type, void *buffer, size_t length))    \
  X(ANeuralNetworksExecution_startCompute, int,                                \
    (ANeuralNetworksExecution * execution, ANeuralNetworksEvent * *event))    \
  X(ANeuralNetworksEvent_wait, int, (ANeuralNetworksEvent * event))            \
  X(ANeuralNetworksEvent_free, void, (ANeuralNetworksEvent * event))           \
  /* 28 */                                                                     \
  X(ANeuralNetworksModel_relaxComputationFloat32toFloat16, int,                \
    (ANeuralNetworksModel * model, bool allow))                               \
  /* 29 */                                                                     \
  X(ANeuralNetworksModel_setOperandSymmPerChannelQuantParams, int,             \
    (ANeuralNetworksModel * model, int32_t index,                             \
     const ANeuralNetworksSymmPerChannelQuantParams *channelQuant))           \
  X(ANeuralNetworks_getDeviceCount, int, (uint32_t * numDevices))              \
  X(ANeuralNetworks_getDevice, int,                                            \
    (uint32_t devIndex, ANeuralNetworksDevice * *device))                     \
  X(ANeuralNetworksDevice_getName, int,                                        \
    (const ANeuralNetworksDevice *device, const char **name))                 \
  X(ANeuralNetworksDevice_getType, int,                                        \
    (const ANeuralNetworksDevice *device, int32_t *type))                     \
  X(ANeuralNetworksDevice_getFeatureLevel, int,                                \
    (const ANeuralNetworksDevice *device, int64_t *featureLevel))             \
  X(ANeuralNetworksCompilation_createForDevices, int,                          \
    (ANeuralNetworksModel * model,                                            \
     const ANeuralNetworksDevice *const *devices, uint32_t numDevices,        \
     ANeuralNetworksCompilation **compilation))                               \
  X(ANeuralNetworksCompilation_setCaching, int,                                \
    (ANeuralNetworksCompilation * compilation, const char *cacheDir,          \
     const uint8_t *token))                                                    \
  X(ANeuralNetworksExecution_compute, int,                                     \
    (ANeuralNetworksExecution * execution))                                   \
  /* 31 */                                                                     \
  X(ANeuralNetworksExecution_setReusable, int,                                 \
    (ANeuralNetworksExecution * execution, bool reusable))                    \
  X(ANeuralNetworks_getRuntimeFeatureLevel, int64_t, ())

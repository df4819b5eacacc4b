// kiln's own declarations of the subset of Android's Neural Networks API
// (NDK <android/NeuralNetworks.h>) that kiln uses. No Debian package ships
// that header; the values below are the NDK reference's, and never change
// (NNAPI only appends). Shared by the lowering (backends/nnapi/), the
// executor that dlopens libneuralnetworks.so (NnapiLibrary.h) and the host
// NNAPI device of the tests (test/nnapi/host_device/).
#pragma once

#include <cstddef>
#include <cstdint>

namespace kiln::nnapi {

/// Operand types (OperandCode).
enum OperandCode : int32_t {
  FLOAT32 = 0,
  INT32 = 1,
  UINT32 = 2,
  TENSOR_FLOAT32 = 3,
  TENSOR_INT32 = 4,
  TENSOR_QUANT8_ASYMM = 5,
  BOOL = 6,
  TENSOR_FLOAT16 = 8,
  TENSOR_BOOL8 = 9,
  FLOAT16 = 10,
  TENSOR_QUANT8_SYMM_PER_CHANNEL = 11,
  TENSOR_QUANT8_ASYMM_SIGNED = 14,
};

/// Operation types (OperationCode): the ones kiln emits.
enum OperationCode : int32_t {
  ADD = 0,
  AVERAGE_POOL_2D = 1,
  CONCATENATION = 2,
  CONV_2D = 3,
  DEPTHWISE_CONV_2D = 4,
  DEQUANTIZE = 6,
  FLOOR = 8,
  FULLY_CONNECTED = 9,
  LOGISTIC = 14,
  MAX_POOL_2D = 17,
  MUL = 18,
  RELU = 19,
  RELU1 = 20,
  RELU6 = 21,
  RESHAPE = 22,
  RESIZE_BILINEAR = 23,
  SOFTMAX = 25,
  TANH = 28,
  DIV = 30,
  MEAN = 31,
  PAD = 32,
  STRIDED_SLICE = 35,
  SUB = 36,
  TRANSPOSE = 37,
  ABS = 38,
  EXP = 49,
  GATHER = 51,
  GROUPED_CONV_2D = 55,
  LOG = 60,
  LOG_SOFTMAX = 64,
  MAXIMUM = 65,
  MINIMUM = 66,
  NEG = 67,
  PAD_V2 = 69,
  POW = 70,
  PRELU = 71,
  QUANTIZE = 72,
  REDUCE_MAX = 77,
  REDUCE_MIN = 78,
  REDUCE_SUM = 80,
  RSQRT = 83,
  SQRT = 88,
  TRANSPOSE_CONV_2D = 91,
  RESIZE_NEAREST_NEIGHBOR = 94,
  ELU = 98,
  HARD_SWISH = 99,
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

/// Feature levels kiln distinguishes: Android API levels 27 (8.1), 28 (9),
/// 29 (10), 30 (11).
constexpr int32_t FeatureLevelMin = 27;
constexpr int32_t FeatureLevelMax = 30;

/// mmap protections for ANeuralNetworksMemory_createFromFd.
constexpr int ProtRead = 1;

/// The operations kiln emits: spelling and the feature level that added
/// each (27 for the original set).
struct OperationInfo {
  int32_t Code;
  const char *Name;
  int32_t Level;
};
inline constexpr OperationInfo Operations[] = {
    {ADD, "ADD", 27},
    {AVERAGE_POOL_2D, "AVERAGE_POOL_2D", 27},
    {CONCATENATION, "CONCATENATION", 27},
    {CONV_2D, "CONV_2D", 27},
    {DEPTHWISE_CONV_2D, "DEPTHWISE_CONV_2D", 27},
    {DEQUANTIZE, "DEQUANTIZE", 27},
    {FLOOR, "FLOOR", 27},
    {FULLY_CONNECTED, "FULLY_CONNECTED", 27},
    {LOGISTIC, "LOGISTIC", 27},
    {MAX_POOL_2D, "MAX_POOL_2D", 27},
    {MUL, "MUL", 27},
    {RELU, "RELU", 27},
    {RELU1, "RELU1", 27},
    {RELU6, "RELU6", 27},
    {RESHAPE, "RESHAPE", 27},
    {RESIZE_BILINEAR, "RESIZE_BILINEAR", 27},
    {SOFTMAX, "SOFTMAX", 27},
    {TANH, "TANH", 27},
    {DIV, "DIV", 28},
    {MEAN, "MEAN", 28},
    {PAD, "PAD", 28},
    {STRIDED_SLICE, "STRIDED_SLICE", 28},
    {SUB, "SUB", 28},
    {TRANSPOSE, "TRANSPOSE", 28},
    {ABS, "ABS", 29},
    {EXP, "EXP", 29},
    {GATHER, "GATHER", 29},
    {GROUPED_CONV_2D, "GROUPED_CONV_2D", 29},
    {LOG, "LOG", 29},
    {LOG_SOFTMAX, "LOG_SOFTMAX", 29},
    {MAXIMUM, "MAXIMUM", 29},
    {MINIMUM, "MINIMUM", 29},
    {NEG, "NEG", 29},
    {PAD_V2, "PAD_V2", 29},
    {POW, "POW", 29},
    {PRELU, "PRELU", 29},
    {QUANTIZE, "QUANTIZE", 29},
    {REDUCE_MAX, "REDUCE_MAX", 29},
    {REDUCE_MIN, "REDUCE_MIN", 29},
    {REDUCE_SUM, "REDUCE_SUM", 29},
    {RSQRT, "RSQRT", 29},
    {SQRT, "SQRT", 29},
    {TRANSPOSE_CONV_2D, "TRANSPOSE_CONV_2D", 29},
    {RESIZE_NEAREST_NEIGHBOR, "RESIZE_NEAREST_NEIGHBOR", 29},
    {ELU, "ELU", 30},
    {HARD_SWISH, "HARD_SWISH", 30},
};

/// The operand types kiln uses, likewise.
inline constexpr OperationInfo OperandTypes[] = {
    {FLOAT32, "FLOAT32", 27},
    {INT32, "INT32", 27},
    {UINT32, "UINT32", 27},
    {TENSOR_FLOAT32, "TENSOR_FLOAT32", 27},
    {TENSOR_INT32, "TENSOR_INT32", 27},
    {TENSOR_QUANT8_ASYMM, "TENSOR_QUANT8_ASYMM", 27},
    {BOOL, "BOOL", 29},
    {TENSOR_FLOAT16, "TENSOR_FLOAT16", 29},
    {TENSOR_BOOL8, "TENSOR_BOOL8", 29},
    {FLOAT16, "FLOAT16", 29},
    {TENSOR_QUANT8_SYMM_PER_CHANNEL, "TENSOR_QUANT8_SYMM_PER_CHANNEL", 29},
    {TENSOR_QUANT8_ASYMM_SIGNED, "TENSOR_QUANT8_ASYMM_SIGNED", 30},
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
    (ANeuralNetworksExecution * execution, bool reusable))

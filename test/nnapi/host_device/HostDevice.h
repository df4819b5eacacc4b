// The host NNAPI device: a libneuralnetworks.so stand-in for tests (never
// shipped). Internal declarations shared by its sources: the objects behind
// the opaque handles, the validation and the kernels.
#pragma once

#include "QuantMath.h"
#include "schema/nnapi/NeuralNetworksApi.h"

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace kiln::nnapi::host {

/// A model operand: its type, and where its value lives when it is constant.
struct Operand {
  int32_t Type = 0;
  std::vector<uint32_t> Dims;
  float Scale = 0;
  int32_t ZeroPoint = 0;
  // TENSOR_QUANT8_SYMM_PER_CHANNEL only (setOperandSymmPerChannelQuantParams).
  bool HasChannelQuant = false;
  uint32_t ChannelDim = 0;
  std::vector<float> ChannelScales;
  // A constant: copied (small values), referenced (the caller keeps the
  // buffer alive, as NNAPI requires) or in a mapped memory.
  bool IsConstant = false;
  // An optional input left out: setOperandValue(index, NULL, 0) (AOSP's
  // NO_VALUE lifetime). IsConstant is set too, with no bytes.
  bool Omitted = false;
  std::vector<uint8_t> Copy;
  const uint8_t *Ref = nullptr;
  size_t Length = 0;

  const uint8_t *constData() const { return Ref ? Ref : Copy.data(); }
  size_t elementCount() const {
    size_t N = 1;
    for (uint32_t D : Dims)
      N *= D;
    return N;
  }
  size_t byteSize() const {
    return isTensorType(Type) ? elementCount() * elementBytes(Type)
                              : elementBytes(Type);
  }
  bool isQuant() const {
    return Type == TENSOR_QUANT8_ASYMM || Type == TENSOR_QUANT8_ASYMM_SIGNED;
  }
};

struct Operation {
  int32_t Type = 0;
  std::vector<uint32_t> Inputs, Outputs;
};

/// A validation failure: what is wrong (the caller adds where).
struct Invalid : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A failure while computing (an index out of range, say): OP_FAILED.
struct ComputeFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The device's feature level: KILN_NNAPI_HOST_FEATURE_LEVEL (27..31 or
/// 1000006, feature level 6; another value is taken as the highest of
/// these at or below it), default 1000006.
int deviceLevel();

/// What a model with relaxComputationFloat32toFloat16 computes in
/// (KILN_NNAPI_HOST_RELAXED). The flag only permits fp16: AOSP's reference
/// CPU implementation ignores it (Reference, the default), while a driver
/// that takes it stores and accumulates in fp16 (StrictFp16, "fp16").
enum class RelaxedMode { Reference, StrictFp16 };
RelaxedMode relaxedMode();
/// "reference" or "fp16".
const char *relaxedModeName(RelaxedMode Mode);

/// How quantized RESIZE_BILINEAR rounds the interpolated raw value
/// (KILN_NNAPI_HOST_RESIZE_ROUNDING): TFLite 2.9 onwards, which AOSP
/// builds against since 2022, adds 0.5 and truncates toward zero (Offset,
/// the default, "offset"); older TFLite truncates (Truncate, "truncate").
enum class ResizeRounding { Offset, Truncate };
ResizeRounding resizeRounding();

/// A faulty driver, for testing self-tests (KILN_NNAPI_HOST_FAULT): "OP"
/// (an operation name, "CONV_2D") perturbs every element of the first
/// output of every such operation (f32: + 0.5; f16: exponent bit 14
/// flipped; quantized: bit 4 flipped), as a miscompiled kernel would;
/// "flaky" perturbs one element of the first operation's output on every
/// second execution, as a racy one would. Unset or empty: none.
void injectFault(const ANeuralNetworksModel &M, const Operation &Op,
                 size_t OpIndex, const std::vector<uint8_t *> &Buffers);
/// One line to stderr, "kiln-nnapi-host: " + Message.
void report(const std::string &Message);
/// Appends Line to the file named by KILN_NNAPI_HOST_LOG, if set.
void logEvent(const std::string &Line);
/// The name of an operation code ("ADD"), or "operation <code>".
std::string operationName(int32_t Code);
std::string operandTypeName(int32_t Code);
/// "[1, 2, 3]".
std::string dimsString(const std::vector<uint32_t> &Dims);

} // namespace kiln::nnapi::host

struct ANeuralNetworksMemory {
  void *MapBase = nullptr;
  size_t MapSize = 0;
  const uint8_t *Data = nullptr; // MapBase + the page delta
  size_t Size = 0;
};

struct ANeuralNetworksModel {
  std::vector<kiln::nnapi::host::Operand> Operands;
  std::vector<kiln::nnapi::host::Operation> Operations;
  std::vector<uint32_t> Inputs, Outputs;
  bool Finished = false;
  bool Relaxed = false;
  bool Broken = false; // a call failed while building it: finish fails too
};

namespace kiln::nnapi::host {

/// Checks operation Index of a model whose operands are all known (at
/// finish); throws Invalid with what is wrong.
void validateOperation(const ANeuralNetworksModel &M, size_t Index, int Level);

/// What a kernel sees: the operation, its operands and their buffers (one
/// per model operand; constants point at their values).
struct OpContext {
  const ANeuralNetworksModel &M;
  const Operation &Op;
  const std::vector<uint8_t *> &Buffers;
  /// A relaxed model on a strict fp16 driver: float kernels accumulate in
  /// fp16 (their inputs and weights are fp16 values already).
  bool Fp16 = false;

  /// Acc + X * Y, rounded to fp16 in Fp16 mode: once, as an fp16 fused
  /// multiply-add (for fp16 values the sum is exact in double).
  float mac(float Acc, float X, float Y) const {
    return Fp16 ? roundToHalf(double(Acc) + double(X) * double(Y))
                : Acc + X * Y;
  }

  const Operand &in(size_t I) const { return M.Operands[Op.Inputs[I]]; }
  const Operand &out(size_t I = 0) const { return M.Operands[Op.Outputs[I]]; }
  const uint8_t *inData(size_t I) const { return Buffers[Op.Inputs[I]]; }
  uint8_t *outData(size_t I = 0) const { return Buffers[Op.Outputs[I]]; }
  size_t inputCount() const { return Op.Inputs.size(); }
  int32_t i32(size_t I) const;
  float f32(size_t I) const;
  bool b(size_t I) const;
  std::vector<int32_t> ints(size_t I) const;
  const float *fin(size_t I) const {
    return reinterpret_cast<const float *>(inData(I));
  }
  float *fout(size_t I = 0) const {
    return reinterpret_cast<float *>(outData(I));
  }
};

/// UNIDIRECTIONAL_SEQUENCE_LSTM (HostSequenceLstm.cpp): the checks, which
/// throw Invalid, and the kernel.
void validateSequenceLstm(const ANeuralNetworksModel &M, const Operation &Op,
                          int Level);
void sequenceLstmOp(const OpContext &C);
/// Runs one operation; throws ComputeFailure.
void runOperation(const OpContext &C);
/// The float kernels; false when the operation is not one of them.
bool runFloatOperation(const OpContext &C);
/// EQUAL, GREATER, LESS, SELECT and CAST (HostOpsLogical.cpp).
void runLogicalOperation(const OpContext &C);
/// The quantized kernels; false when the operation is not one of them.
bool runQuantOperation(const OpContext &C);
/// Quantized LOGISTIC, TANH, SOFTMAX and HARD_SWISH in fixed point; false
/// for other operations.
bool runQuantActivation(const OpContext &C);
/// The float function of a unary operation (Alpha: ELU's).
float unaryFloat(int32_t Type, float X, float Alpha);

// Shared shape helpers.
/// Numpy broadcast of A and B (trailing dims aligned); false if they do not
/// broadcast.
bool broadcastDims(const std::vector<uint32_t> &A,
                   const std::vector<uint32_t> &B, std::vector<uint32_t> &Out);
/// For each element of Out, the flat index into In (broadcast to Out).
std::vector<size_t> broadcastIndices(const std::vector<uint32_t> &In,
                                     const std::vector<uint32_t> &Out);
/// A tensor seen around one axis: Outer slices of Depth elements along it,
/// each element Inner apart.
struct AxisSplit {
  size_t Outer = 1, Depth = 1, Inner = 1;
};
/// Dims split at Axis (negative counts from the end).
inline AxisSplit splitAtAxis(const std::vector<uint32_t> &Dims, int32_t Axis) {
  if (Axis < 0)
    Axis += int32_t(Dims.size());
  AxisSplit S;
  for (size_t I = 0; I < Dims.size(); ++I) {
    if (I < size_t(Axis))
      S.Outer *= Dims[I];
    else if (I == size_t(Axis))
      S.Depth = Dims[I];
    else
      S.Inner *= Dims[I];
  }
  return S;
}
/// The clamp range of a fuse code for float outputs.
void floatActivationRange(int32_t Fuse, float &Lo, float &Hi);
/// The clamp range of a fuse code for a quantized output.
void quantActivationRange(int32_t Fuse, const Operand &Out, int32_t &Lo,
                          int32_t &Hi);
/// The value range of a quantized type.
void quantTypeRange(int32_t Type, int32_t &Lo, int32_t &Hi);
/// Element I of a quantized tensor (uint8 or int8).
inline int32_t qget(const Operand &O, const uint8_t *D, size_t I) {
  return O.Type == TENSOR_QUANT8_ASYMM ? int32_t(D[I])
                                       : int32_t(int8_t(D[I]));
}
/// Stores V, clamped to the type's range.
inline void qset(const Operand &O, uint8_t *D, size_t I, int32_t V) {
  if (O.Type == TENSOR_QUANT8_ASYMM) {
    D[I] = uint8_t(V < 0 ? 0 : V > 255 ? 255 : V);
  } else {
    D[I] = uint8_t(int8_t(V < -128 ? -128 : V > 127 ? 127 : V));
  }
}
/// round_half_away(X / Scale) + ZeroPoint in float (AOSP), clamped to the
/// type.
int32_t quantizeValue(const Operand &O, float X);

} // namespace kiln::nnapi::host

// Every function of KILN_NNAPI_FUNCTIONS, declared from the list itself (so
// the definitions cannot drift from it) and exported; the library is built
// with -fvisibility=hidden.
#define KILN_NNAPI_HOST_DECLARE(Name, Ret, Params)                             \
  extern "C" __attribute__((visibility("default"))) Ret Name Params;
KILN_NNAPI_FUNCTIONS(KILN_NNAPI_HOST_DECLARE)
#undef KILN_NNAPI_HOST_DECLARE

namespace kiln::nnapi::host {
/// Whether a function of API level Level exists on this device; reports
/// the one that does not.
bool functionAvailable(const char *Name, int Level);
} // namespace kiln::nnapi::host

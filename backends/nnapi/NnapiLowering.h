// The NNAPI lowering: kiln operators (the CPU target's NHWC graph, whose
// weight layouts OHWI, HWO and OI are NNAPI's) to an NNAPI operand and
// operation list (schema NnapiPayload). The graph's layout and quantize
// conversions at its inputs and outputs stay kiln operators the executor
// runs on the host (host_before, host_after), as PyTorch's float wrapper
// does; everything else becomes NNAPI operations at one feature level.
#pragma once

#include "backends/common/KilnModule.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace kiln::nnapi {

struct LoweringOptions {
  /// The feature level the file may use (27..30).
  int32_t FeatureLevel = 30;
  /// relaxComputationFloat32toFloat16 (--quantize fp16).
  bool RelaxFp16 = false;
};

class Lowering {
public:
  Lowering(KilnModule &M, LoweringOptions O);
  /// Fills M's NnapiPayload; lists every operator it cannot lower at the
  /// level, one line each, in one error.
  llvm::Error run();
  /// The level the payload needs (<= Options.FeatureLevel).
  int32_t neededLevel() const { return Needed; }

  // For the per-family rules (Nnapi*Lowering.cpp).
  const fb::ModelT &model() const { return M.Model; }
  const fb::TensorT &tensor(int32_t T) const { return *M.Model.tensors[size_t(T)]; }
  const fb::OperatorT &op(int32_t Op) const {
    return *M.Model.operators[size_t(Op)];
  }
  /// The operand holding kiln tensor T (an activation or a constant),
  /// made on first use.
  uint32_t operandOf(int32_t T);
  /// The operand of activation T with another element count view: the
  /// same type and quantization, dims Dims, standing for no kiln tensor.
  uint32_t activationLike(uint32_t Like, std::vector<uint32_t> Dims);
  /// For a float layer: the operand of constant T as TENSOR_FLOAT32, a
  /// dequantized copy when kiln keeps it int8 or int32 (the weights of a
  /// layer left float, which kiln's CPU runtime widens at load).
  uint32_t floatOperandOf(int32_t T);
  /// The weight or bias operand of a layer whose input is operand X.
  uint32_t weightFor(uint32_t X, int32_t T) {
    return operand(X).type == 3 /*TENSOR_FLOAT32*/ ? floatOperandOf(T)
                                                   : operandOf(T);
  }
  uint32_t scalarI32(int32_t V);
  uint32_t scalarF32(float V);
  uint32_t scalarBool(bool V);
  uint32_t tensorI32(const std::vector<int32_t> &Values,
                     std::vector<uint32_t> Dims = {});
  /// A constant operand with bytes in NNAPI's encoding.
  uint32_t constant(int32_t Type, std::vector<uint32_t> Dims, float Scale,
                    int32_t ZeroPoint, std::vector<uint8_t> Bytes);
  const fb::NnapiOperandT &operand(uint32_t I) const { return *P.operands[I]; }
  /// Gives operand I other dims (the same element count).
  void setDimensions(uint32_t I, std::vector<uint32_t> Dims) {
    P.operands[I]->dimensions = std::move(Dims);
  }
  /// Makes operand I an optional input left out (OMITTED: no value).
  void markOmitted(uint32_t I) {
    P.operands[I]->source = fb::NnapiValueSource::OMITTED;
    P.operands[I]->value.clear();
    P.operands[I]->segment = -1;
  }
  /// Makes constant I per-channel (TENSOR_QUANT8_SYMM_PER_CHANNEL).
  void setChannelScales(uint32_t I, uint32_t Dim, std::vector<float> Scales) {
    P.operands[I]->channel_dim = Dim;
    P.operands[I]->channel_scales = std::move(Scales);
  }
  /// Appends an operation for kiln operator Op.
  void emit(int32_t Code, std::vector<uint32_t> Inputs,
            std::vector<uint32_t> Outputs, int32_t Op);
  /// Records that Op needs feature level Level for What; false (and an
  /// error line) when that is above the chosen level.
  bool need(int32_t Level, const std::string &What, int32_t Op);
  /// An error line for operator Op.
  void fail(int32_t Op, const std::string &Why);
  /// The fused activation code for a clamp [Min, Max], or -1.
  static int32_t fuseCode(float Min, float Max);
  /// Emits Code with inputs Before, the fused activation of the clamp
  /// [Min, Max], then After, writing Out; a clamp that is no fused code
  /// becomes NONE and a MAXIMUM/MINIMUM pair (level 29, float only).
  bool emitWithClamp(int32_t Code, std::vector<uint32_t> Before,
                     std::vector<uint32_t> After, uint32_t Out, float Min,
                     float Max, int32_t Op);
  /// For operations whose quantized output must keep the input's scale and
  /// zero point (pools, reshape, transpose, pad, slice, gather): the operand
  /// to write, kiln tensor T's own or a temporary in In's parameters;
  /// finishOutput then requantizes a temporary into T (an ADD of zero).
  uint32_t outputLike(uint32_t In, int32_t T);
  void finishOutput(uint32_t Written, int32_t T, int32_t Op);
  /// Whether quantized operand Out holds no real value outside [Min, Max]
  /// (by more than half a quantum): its own saturation is that clamp.
  bool saturatesWithin(uint32_t Out, double Min, double Max) const;
  /// A quantized one-element constant of Type holding V exactly: 127
  /// quanta of |V| / 127, zero point 0 (128 for TENSOR_QUANT8_ASYMM).
  uint32_t quantScalar(int32_t Type, float V);
  /// Clamps quantized operand X to [Min, Max] into Out (Out's parameters):
  /// MAXIMUM and MINIMUM with quantized bounds (level 29); an infinite
  /// bound is left out.
  void clampQuantized(uint32_t X, uint32_t Out, float Min, float Max,
                      int32_t Op);
  /// A new activation operand standing for no kiln tensor.
  uint32_t activation(int32_t Type, std::vector<uint32_t> Dims, float Scale,
                      int32_t ZeroPoint);
  /// Records that kiln operator Op left int8 for float inside the NNAPI
  /// model (a DEQUANTIZE/QUANTIZE pair), and why.
  void noteFloatIsland(int32_t Op, const std::string &Why);
  /// "node 'name' (KIND): why", one per operator that left int8.
  const std::vector<std::string> &floatIslands() const { return Islands; }
  /// A one-element constant holding quantized operand Like's zero point
  /// (the real 0) in Like's type and parameters: an ADD of it requantizes.
  uint32_t zeroLike(uint32_t Like);
  bool quantized(int32_t T) const;
  /// Whether T is F32 or int8 (quantized): what NNAPI arithmetic takes.
  bool floatOrInt8(int32_t T) const {
    return tensor(T).dtype == fb::DType::F32 || quantized(T);
  }
  /// The bytes of weight segment I (held in memory: the CPU lowering
  /// produces no segment the NNAPI lowering reads).
  const uint8_t *segmentBytes(int32_t I) const {
    return M.Segments[size_t(I)].bytes().data();
  }
  bool int8Signed() const { return O.FeatureLevel >= 30; }
  int32_t level() const { return O.FeatureLevel; }

private:
  void lowerOperator(int32_t Op);
  void splitHostOperators();
  uint32_t addOperand(std::unique_ptr<fb::NnapiOperandT> Operand);
  void fillTensorType(fb::NnapiOperandT &Operand, const fb::TensorT &T);

  KilnModule &M;
  LoweringOptions O;
  fb::NnapiPayloadT &P;
  int32_t Needed = 27;
  int32_t CurrentOp = -1;
  std::vector<std::string> Errors, Islands;
  std::map<int32_t, uint32_t> TensorOperands, FloatConstants;
  std::map<std::pair<int32_t, uint32_t>, uint32_t> Scalars;
  std::set<int32_t> HostOperators;
};

// Per-family rules; each returns after emitting, or after fail().
void lowerConv(Lowering &L, int32_t Op);
void lowerDeconv(Lowering &L, int32_t Op);
void lowerFullyConnected(Lowering &L, int32_t Op);
void lowerPool(Lowering &L, int32_t Op);
void lowerBinary(Lowering &L, int32_t Op);
void lowerUnary(Lowering &L, int32_t Op);
/// CAST of int32 (NNAPI CAST) or bool (SELECT) to f32.
void lowerCast(Lowering &L, int32_t Op);
/// The float operations of unary operator Op from float operand X to Out.
void emitUnaryFloat(Lowering &L, int32_t Op, uint32_t X, uint32_t Out);
/// Unary operator Op between int8 operands X and Out, in int8 where NNAPI
/// can (NnapiInt8ActivationLowering.cpp).
void lowerInt8Unary(Lowering &L, int32_t Op, uint32_t X, uint32_t Out);
/// A quantized MUL NNAPI cannot take, through float (Fuse: its fused
/// activation code).
void lowerInt8MulViaFloat(Lowering &L, int32_t Op, uint32_t A, uint32_t B,
                          uint32_t Out, int32_t Fuse, const std::string &Why);
void lowerSoftmax(Lowering &L, int32_t Op);
/// NnapiMatmulLowering.cpp: a matmul of two computed tensors as
/// BATCH_MATMUL (feature level 6).
void lowerBatchMatmul(Lowering &L, int32_t Op);
void lowerPrelu(Lowering &L, int32_t Op);
/// NnapiRecurrentLowering.cpp: LSTM as UNIDIRECTIONAL_SEQUENCE_LSTM (29).
void lowerLstm(Lowering &L, int32_t Op);
void lowerMovement(Lowering &L, int32_t Op);
void lowerReduce(Lowering &L, int32_t Op);
void lowerQuantize(Lowering &L, int32_t Op);
void lowerResize(Lowering &L, int32_t Op);

/// V's bytes, for a constant operand's value.
template <typename T> std::vector<uint8_t> bytesOf(const std::vector<T> &V) {
  std::vector<uint8_t> B(V.size() * sizeof(T));
  if (!B.empty())
    std::memcpy(B.data(), V.data(), B.size());
  return B;
}

/// Dims of a kiln shape as NNAPI takes them (rank 0 becomes [1]; a shape
/// above rank 4 loses the axes nnapiDroppedAxes names).
std::vector<uint32_t> nnapiDims(const std::vector<int64_t> &Shape);
/// The size-1 axes a shape above rank 4 loses so that it fits NNAPI's rank
/// 4: leading ones first (which keeps broadcasting aligned: Swin's
/// [1, 16, 3, 49, 49] + [1, 16, 1, 49, 49]), then, if still too long, every
/// other (ShuffleNet's channel shuffle, [1, H, W, 2, C/2]).
std::vector<bool> nnapiDroppedAxes(const std::vector<int64_t> &Shape);

} // namespace kiln::nnapi

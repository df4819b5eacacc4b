// int8 activations that stay int8 on NNAPI. The CPU module runs them as
// 256-entry tables (I8 UNARY); NNAPI has operations for most of them, with
// rules of their own: LOGISTIC and TANH write fixed output parameters
// (1/256 and 1/128), MUL needs s_out > s_a s_b, the RELU family keeps its
// input's parameters. Each becomes those operations, with an ADD of zero
// to requantize where the model's calibrated parameters differ (TFLite's
// converter does the same). What has no int8 form at the file's feature
// level (HARD_SWISH below 30, ELU and the other unaries NNAPI has only in
// float) goes through float (DEQUANTIZE, the float operations, QUANTIZE),
// and the lowering records why (Lowering::floatIslands).
#include "backends/nnapi/NnapiLowering.h"
#include "schema/nnapi/NeuralNetworksApi.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace kiln::nnapi {

namespace {

void typeRange(int32_t Type, int32_t &Lo, int32_t &Hi) {
  Lo = Type == TENSOR_QUANT8_ASYMM ? 0 : -128;
  Hi = Type == TENSOR_QUANT8_ASYMM ? 255 : 127;
}

/// The real values operand I can hold.
void realRange(const fb::NnapiOperandT &O, double &Lo, double &Hi) {
  int32_t QLo, QHi;
  typeRange(O.type, QLo, QHi);
  Lo = double(O.scale) * double(QLo - O.zero_point);
  Hi = double(O.scale) * double(QHi - O.zero_point);
}

/// Out itself when it has Scale and ZeroPoint, else a new operand with
/// them and Out's type and dims.
uint32_t withParams(Lowering &L, uint32_t Out, float Scale, int32_t Zp) {
  const fb::NnapiOperandT &O = L.operand(Out);
  if (O.scale == Scale && O.zero_point == Zp)
    return Out;
  return L.activation(O.type, O.dimensions, Scale, Zp);
}

/// Requantizes Written into Out (an ADD of zero with fused code Fuse),
/// unless Written is Out.
void requantizeInto(Lowering &L, uint32_t Written, uint32_t Out, int32_t Op,
                    int32_t Fuse = FUSED_NONE) {
  if (Written != Out)
    L.emit(ADD, {Written, L.zeroLike(Written), L.scalarI32(Fuse)}, {Out}, Op);
}

/// The fixed output zero point of LOGISTIC (Tanh false) or TANH.
int32_t fixedZeroPoint(int32_t Type, bool Tanh) {
  const bool U = Type == TENSOR_QUANT8_ASYMM;
  return Tanh ? (U ? 128 : 0) : (U ? 0 : -128);
}

/// DEQUANTIZE, the float operations of Op, QUANTIZE.
void viaFloat(Lowering &L, int32_t Op, uint32_t X, uint32_t Out,
              const std::string &Why) {
  uint32_t FX = L.activation(TENSOR_FLOAT32, L.operand(X).dimensions, 0, 0);
  uint32_t FY = L.activation(TENSOR_FLOAT32, L.operand(Out).dimensions, 0, 0);
  L.emit(DEQUANTIZE, {X}, {FX}, Op);
  emitUnaryFloat(L, Op, FX, FY);
  L.emit(QUANTIZE, {FY}, {Out}, Op);
  L.noteFloatIsland(Op, Why);
}

/// max(0, min(1, alpha x + beta)): MUL by alpha into the exact range of
/// alpha x, then ADD of beta with RELU1 into the output, whose parameters
/// (calibrated over [0, 1]) saturate below 0; a RELU follows where they
/// reach below 0.
void hardSigmoid(Lowering &L, int32_t Op, uint32_t X, uint32_t Out,
                 float Alpha, float Beta) {
  const fb::NnapiOperandT &XO = L.operand(X);
  double Lo, Hi;
  realRange(XO, Lo, Hi);
  const double A = double(Alpha) * Lo, B = double(Alpha) * Hi;
  const double Min = std::min({A, B, 0.0}), Max = std::max({A, B, 0.0});
  int32_t QLo, QHi;
  typeRange(XO.type, QLo, QHi);
  const float Scale = float((Max - Min) / double(QHi - QLo));
  const int32_t Zp =
      std::clamp(QLo - int32_t(std::lround(Min / double(Scale))), QLo, QHi);
  uint32_t Scaled = L.activation(XO.type, XO.dimensions, Scale, Zp);
  L.emit(MUL, {X, L.quantScalar(XO.type, Alpha), L.scalarI32(FUSED_NONE)},
         {Scaled}, Op);
  double OutLo, OutHi;
  realRange(L.operand(Out), OutLo, OutHi);
  const bool Saturates = OutLo >= -0.5 * double(L.operand(Out).scale);
  uint32_t Sum = Saturates ? Out
                           : L.activation(L.operand(Out).type,
                                          L.operand(Out).dimensions,
                                          L.operand(Out).scale,
                                          L.operand(Out).zero_point);
  L.emit(ADD,
         {Scaled, L.quantScalar(XO.type, Beta), L.scalarI32(FUSED_RELU1)},
         {Sum}, Op);
  if (!Saturates)
    L.emit(RELU, {Sum}, {Out}, Op);
}

} // namespace

void lowerInt8Unary(Lowering &L, int32_t Op, uint32_t X, uint32_t Out) {
  const fb::UnaryOptionsT &C = *L.op(Op).options.AsUnaryOptions();
  const int32_t Type = L.operand(X).type;
  switch (C.op) {
  case fb::UnaryOp::SIGMOID:
  case fb::UnaryOp::TANH: {
    // int8 files are level 29 or more, where both take int8.
    const bool Tanh = C.op == fb::UnaryOp::TANH;
    uint32_t Fixed = withParams(L, Out, Tanh ? 1.0f / 128 : 1.0f / 256,
                                fixedZeroPoint(Type, Tanh));
    L.emit(Tanh ? TANH : LOGISTIC, {X}, {Fixed}, Op);
    return requantizeInto(L, Fixed, Out, Op);
  }
  case fb::UnaryOp::HARD_SWISH:
    if (L.level() < 30)
      return viaFloat(L, Op, X, Out, "NNAPI's HARD_SWISH needs feature "
                                     "level 30");
    return L.emit(HARD_SWISH, {X}, {Out}, Op);
  case fb::UnaryOp::HARD_SIGMOID:
    return hardSigmoid(L, Op, X, Out, C.alpha, C.beta);
  case fb::UnaryOp::SILU: {
    // x * sigmoid(x): LOGISTIC into its fixed parameters, then MUL.
    const double Product = double(L.operand(X).scale) / 256;
    if (!(double(L.operand(Out).scale) > Product))
      return viaFloat(L, Op, X, Out, "the output scale is too small for "
                                     "NNAPI's quantized MUL");
    uint32_t Gate = L.activation(Type, L.operand(X).dimensions, 1.0f / 256,
                                 fixedZeroPoint(Type, false));
    L.emit(LOGISTIC, {X}, {Gate}, Op);
    return L.emit(MUL, {X, Gate, L.scalarI32(FUSED_NONE)}, {Out}, Op);
  }
  case fb::UnaryOp::LEAKY_RELU:
    return L.emit(PRELU, {X, L.quantScalar(Type, C.alpha)}, {Out}, Op);
  case fb::UnaryOp::CLAMP: {
    // A clamp to [min, max] is the type's own saturation when the output
    // holds no value outside it: an ADD of zero requantizes and clamps.
    if (L.saturatesWithin(Out, C.min, C.max))
      return L.emit(ADD, {X, L.zeroLike(X), L.scalarI32(FUSED_NONE)}, {Out},
                    Op);
    // Else MAXIMUM and MINIMUM with the bounds, in int8.
    return L.clampQuantized(X, Out, C.min, C.max, Op);
  }
  default:
    return viaFloat(L, Op, X, Out,
                    std::string("NNAPI has no int8 ") +
                        fb::EnumNameUnaryOp(C.op));
  }
}

void lowerInt8MulViaFloat(Lowering &L, int32_t Op, uint32_t A, uint32_t B,
                          uint32_t Out, int32_t Fuse, const std::string &Why) {
  uint32_t FA = L.activation(TENSOR_FLOAT32, L.operand(A).dimensions, 0, 0);
  uint32_t FB = L.activation(TENSOR_FLOAT32, L.operand(B).dimensions, 0, 0);
  uint32_t FY = L.activation(TENSOR_FLOAT32, L.operand(Out).dimensions, 0, 0);
  L.emit(DEQUANTIZE, {A}, {FA}, Op);
  L.emit(DEQUANTIZE, {B}, {FB}, Op);
  L.emit(MUL, {FA, FB, L.scalarI32(Fuse)}, {FY}, Op);
  L.emit(QUANTIZE, {FY}, {Out}, Op);
  L.noteFloatIsland(Op, Why);
}

} // namespace kiln::nnapi

// Quantized graphs on the CPU target (schema 1.2).
//  - Narrow weights: a weight read through cast(f16 constant) or
//    dequantize(i8/i32 constant) stays narrow in the file (F16, or I8/I32
//    with its QuantParams); the runtime widens it at load for a float
//    operator. Any other use of such a value gets the folded f32 constant
//    (ConstantFolds.h: the lowering context's constantOf).
//  - Int8 patterns: conv, linear, add, mul (1.8), max_pool, global_avg_pool
//    and the unary activations (1.8, as I8 UNARY: a table) whose
//    activations are dequantize(i8 per tensor), whose weight is
//    dequantize(i8 constant per output channel, zero point 0) with an i32
//    bias (its scales derived by the loader since 1.8), and whose only use is a quantize to i8 per tensor, run as qs8/qc8
//    operators; relu/clip fused into them become int8 output bounds. The
//    quantize after them and the dequantizes before them emit nothing.
//    Reshapes, transposes, concats, slices and splits with the same
//    parameters on every input and output move the i8 tensors.
//  - Everything else stays float: quantize -> QUANTIZE, dequantize of an
//    activation -> DEQUANTIZE, and dynamic_quantize -> dequantize pairs
//    (int8-dynamic) keep the f32 activation (this XNNPACK has no qd8).
#pragma once

#include "backends/kilnops/KilnOpRules.h"

#include "llvm/ADT/Optional.h"

namespace kiln {

/// True for cast/dequantize of a constant (no operator: its users read the
/// narrow or the folded constant).
bool isNarrowingNode(const Node &N);

/// A weight kept narrow: the stored constant and its parameters (none for
/// f16).
struct NarrowWeight {
  const Tensor *Stored;
  llvm::Optional<QuantParams> Quant;
};
llvm::Optional<NarrowWeight> narrowWeightOf(const Value *V);

/// flatten/reshape/squeeze/unsqueeze/identity.
bool isReshapeLike(const Node &N);
/// Reshape-likes, transpose, concat, slice and split: with the same
/// parameters on every input and output they move int8 values (a RESHAPE,
/// TRANSPOSE, CONCAT or SLICEs of i8 tensors).
bool isInt8Move(const Node &N);
llvm::Error lowerInt8Move(const Node &N, LoweringContext &Ctx);
/// True when N runs as an int8 operator (see above) under Opts (MUL and the
/// tables only with LoweringOptions::Int8Elementwise).
bool isInt8Pattern(const Node &N, const LoweringOptions &Opts);
/// A unary activation (sigmoid, tanh, hard_sigmoid, hard_swish, elu,
/// leaky_relu, relu, clip) that, between dequantize(i8) and quantize(i8),
/// runs as an I8 UNARY: the runtime's 256-entry table of it (with
/// LoweringOptions::Int8Elementwise).
bool isInt8Table(const Node &N, const LoweringOptions &Opts);
/// SiLU as ONNX exports it between int8 values: for N = mul(x, s) with
/// s = sigmoid(x) (through quantize/dequantize, x the same i8 value on both
/// sides, s used by N alone), the sigmoid; null otherwise. The mul then runs
/// as one I8 UNARY SILU table and the sigmoid emits nothing.
const Node *siluSigmoidOf(const Node &N, const LoweringOptions &Opts);
/// True for a sigmoid that siluSigmoidOf absorbed into its mul.
bool isAbsorbedSigmoid(const Node &N, const LoweringOptions &Opts);

/// The per-tensor parameters of an i8 activation value.
QuantParams int8ParamsOf(const Value *V);

/// The i8 tensor behind operand V = dequantize(i8 value) of an int8 pattern.
int32_t int8Operand(LoweringContext &Ctx, const Value *V, bool Nhwc);
/// A new i8 tensor for the quantize that follows int8 pattern N; defines
/// that quantize's result with it.
int32_t int8Result(LoweringContext &Ctx, const Node &N, bool Nhwc);

/// Weight tensors in the CPU layouts from a narrow or int8 weight: OHWI
/// ([O, kh, kw, I], axis 0), HWO ([1, kh, kw, O], axis 3) or OI as stored.
int32_t packedNarrowConvWeight(LoweringContext &Ctx, const Value *W,
                               const NarrowWeight &NW, bool Depthwise);
int32_t narrowConstant(LoweringContext &Ctx, const Value *V,
                       const NarrowWeight &NW, fb::Layout Layout);
/// The I32 bias of an int8 convolution or fully connected operator: its
/// scales are input scale x weight scale, so they are stored only where the
/// target asks for them (LoweringOptions::OmitInt8BiasScales off).
int32_t int8Bias(LoweringContext &Ctx, const Value *V, const NarrowWeight &NW);

/// Attaches QuantParams to tensor Index of the module.
void setQuantParams(LoweringContext &Ctx, int32_t Index, const QuantParams &Q);

} // namespace kiln

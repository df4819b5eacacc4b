// The kiln-operator lowering's rules: for each IR op it takes, a check (can
// this node become kiln operators, and if not, why) and a lowering (the
// runtime operators it becomes). The capability table (KilnOpCapabilities.cpp) is the union of
// the families below; checks are cheap and never emit anything, so every
// unsupported node of a model can be listed before lowering starts.
#pragma once

#include "backends/kilnops/KilnOps.h"
#include "backends/kilnops/LoweringContext.h"

#include "IR/OpRegistry.h"
#include "IR/ops/FusedActivation.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Optional.h"
#include "llvm/Support/FormatVariadic.h"

#include <string>

namespace kiln {

inline KilnOpSupport supported() { return {}; }
template <typename... Ts>
KilnOpSupport notSupported(const char *Fmt, Ts &&...Vals) {
  return {false, llvm::formatv(Fmt, std::forward<Ts>(Vals)...).str()};
}

using CpuCheckFn = KilnOpSupport (*)(const Node &);
using CpuLowerFn = llvm::Error (*)(const Node &, LoweringContext &);

struct CpuOpRule {
  const char *Op;
  CpuCheckFn Check;
  CpuLowerFn Lower;
};

// One list per family (SpatialLowering.cpp, LinearLowering.cpp,
// ElementwiseLowering.cpp, ShapeLowering.cpp, ReductionLowering.cpp,
// ResizeLowering.cpp).
llvm::ArrayRef<CpuOpRule> spatialRules();
llvm::ArrayRef<CpuOpRule> linearRules();
llvm::ArrayRef<CpuOpRule> elementwiseRules();
llvm::ArrayRef<CpuOpRule> shapeRules();
llvm::ArrayRef<CpuOpRule> reductionRules();
llvm::ArrayRef<CpuOpRule> resizeRules();
llvm::ArrayRef<CpuOpRule> quantRules(); // QuantLowering.cpp
llvm::ArrayRef<CpuOpRule> imageRules(); // ImageLowering.cpp
llvm::ArrayRef<CpuOpRule> detectionRules(); // DetectionLowering.cpp
llvm::ArrayRef<CpuOpRule> recurrentRules(); // RecurrentLowering.cpp

/// The pixels_to_tensor node reading graph input In, if In is an image input
/// (ImageLowering.cpp), and what the file's metadata says about it.
const Node *imageInputReader(const Value *In);
std::unique_ptr<fb::ImageInputInfoT> imageInputInfo(const Value *In);
/// The per-tensor int8 quantize that pixels_to_tensor P's PIXELS_TO_TENSOR
/// writes the result of (its only user), or null.
const Node *fusedInputQuantize(const Node &P);

/// The rule for an op, or null when the CPU target has none.
const CpuOpRule *findCpuRule(llvm::StringRef Op);

//===-- Helpers shared by the rules ---------------------------------------===//

/// f32 contents of a constant (copied, so unaligned source bytes are fine).
std::vector<float> floatsOf(const Tensor &T);

/// A check that every listed operand (absent ones skipped) and every result
/// is f32.
KilnOpSupport requireF32(const Node &N);
/// A check that operand I is present and constant.
KilnOpSupport requireConstant(const Node &N, unsigned I, const char *What);

/// The fused activation of a conv/linear/add node as the runtime stores it:
/// a clamp range, plus a separate UNARY op for leaky_relu and hard_swish.
struct OutputActivation {
  float Min, Max;
  llvm::Optional<fb::UnaryOptionsT> Extra;
};
OutputActivation outputActivation(const Node &N);

/// Emits Emit(Out) writing Result's value, then the extra activation op if
/// there is one. Result is defined in NHWC or canonically.
void emitWithActivation(LoweringContext &Ctx, const Value *Result, bool Nhwc,
                        const OutputActivation &Act,
                        llvm::function_ref<void(int32_t Out)> Emit);

/// A transpose's permutation (reversed axes when it has none).
std::vector<int32_t> transposePermOf(const Node &N);
/// A CONCAT of N's operands along its axis, in NHWC when any 4-D input
/// already is (InNhwc): Operand(V, Nhwc) gives each input's tensor and
/// Result(Nhwc) the output's, which it defines.
llvm::Error emitConcat(const Node &N, LoweringContext &Ctx,
                       llvm::function_ref<bool(const Value *)> InNhwc,
                       llvm::function_ref<int32_t(const Value *, bool)> Operand,
                       llvm::function_ref<int32_t(bool)> Result);
/// A slice's options (starts and steps; the sizes are the result's), when
/// its parameters are constants.
llvm::Optional<fb::SliceOptionsT> sliceOptionsOf(const Node &N);
/// One slice per result of a split.
llvm::Expected<std::vector<fb::SliceOptionsT>> splitSlicesOf(const Node &N);

/// NCHW axis -> NHWC axis.
inline int64_t nhwcAxis(int64_t Axis) {
  constexpr int64_t ToNhwc[4] = {0, 3, 1, 2};
  return ToNhwc[size_t(Axis)];
}

template <typename T> fb::OpOptionsUnion optionsOf(T Table) {
  fb::OpOptionsUnion U;
  U.Set(std::move(Table));
  return U;
}

/// XNNPACK for f32 ranks it handles (<= 6), reference otherwise.
fb::Engine engineForF32(bool XnnpackHasIt, int64_t Rank);

} // namespace kiln

// reduce_sum / reduce_mean / reduce_max / reduce_min -> REDUCE (reference),
// except a mean over the spatial axes of an NHWC image (the squeeze-excite
// pattern), which is XNNPACK's global average pooling.
#include "backends/kilnops/KilnOpRules.h"

#include "IR/ShapeInference.h"

namespace kiln {

namespace {

/// The reduced axes, normalized and sorted; None when they are not known.
llvm::Optional<std::vector<int32_t>> reducedAxes(const Node &N) {
  int64_t Rank = N.operand(0)->type().rank();
  std::vector<int64_t> Axes;
  if (N.numOperands() > 1 && N.operand(1)) {
    auto C = constantInts(N.operand(1));
    if (!C)
      return llvm::None;
    Axes = *C;
  }
  std::vector<char> Seen(size_t(Rank), 0);
  if (Axes.empty() && !N.getInt("noop_with_empty_axes"))
    Seen.assign(size_t(Rank), 1);
  for (int64_t A : Axes) {
    int64_t Norm = A < 0 ? A + Rank : A;
    if (Norm < 0 || Norm >= Rank)
      return llvm::None;
    Seen[size_t(Norm)] = 1;
  }
  std::vector<int32_t> Out;
  for (int32_t I = 0; I < int32_t(Rank); ++I)
    if (Seen[size_t(I)])
      Out.push_back(I);
  return Out;
}

KilnOpSupport checkReduce(const Node &N) {
  // The data is f32; the axes operand is i64.
  if (N.operand(0)->type().Elem != ElementType::F32 ||
      N.result()->type().Elem != ElementType::F32)
    return notSupported("{0} on {1}", N.opName(),
                        elementTypeName(N.operand(0)->type().Elem));
  auto Axes = reducedAxes(N);
  if (!Axes)
    return notSupported("the axes must be a constant (run -O1 or higher)");
  if (!N.isOp("reduce_sum"))
    for (int32_t A : *Axes)
      if (N.operand(0)->type().Dims[size_t(A)].size() == 0)
        return notSupported("{0} over an empty axis", N.opName());
  return supported();
}

fb::ReduceOp reduceOpOf(const Node &N) {
  if (N.isOp("reduce_sum"))
    return fb::ReduceOp::SUM;
  if (N.isOp("reduce_mean"))
    return fb::ReduceOp::MEAN;
  if (N.isOp("reduce_max"))
    return fb::ReduceOp::MAXIMUM;
  return fb::ReduceOp::MINIMUM;
}

llvm::Error lowerReduce(const Node &N, LoweringContext &Ctx) {
  const Value *X = N.operand(0);
  std::vector<int32_t> Axes = *reducedAxes(N);
  bool SpatialMean = N.isOp("reduce_mean") && X->type().rank() == 4 &&
                     Ctx.hasNhwc(X) && Axes == std::vector<int32_t>{2, 3};
  if (SpatialMean) {
    std::vector<int64_t> S = staticSizes(X->type().Dims);
    if (S[2] * S[3] > 0) {
      std::string Name = X->name().empty() ? "mean" : X->name();
      int32_t Pooled = Ctx.addTensor(Name + ".mean", ElementType::F32,
                                     {S[0], 1, 1, S[1]}, fb::Layout::NHWC);
      Ctx.addOp(fb::OpKind::GLOBAL_AVERAGE_POOL_2D, {Ctx.nhwc(X)}, {Pooled},
                optionsOf(fb::Pool2DOptionsT()), fb::Engine::XNNPACK);
      if (N.result()->type().rank() == 4) {
        Ctx.define(N.result(), Pooled, true);
        return llvm::Error::success();
      }
      int32_t Out = Ctx.resultTensor(N.result(), false);
      Ctx.addOp(fb::OpKind::RESHAPE, {Pooled}, {Out},
                optionsOf(fb::ReshapeOptionsT()), fb::Engine::REFERENCE);
      Ctx.define(N.result(), Out, false);
      return llvm::Error::success();
    }
  }
  fb::ReduceOptionsT O;
  O.op = reduceOpOf(N);
  O.axes = Axes;
  int32_t In = Ctx.canonical(X);
  int32_t Out = Ctx.resultTensor(N.result(), false);
  Ctx.addOp(fb::OpKind::REDUCE, {In}, {Out}, optionsOf(O),
            fb::Engine::REFERENCE);
  Ctx.define(N.result(), Out, false);
  return llvm::Error::success();
}

KilnOpSupport checkArg(const Node &N) {
  ElementType E = N.operand(0)->type().Elem;
  if (E != ElementType::F32 && E != ElementType::I32 && E != ElementType::I64)
    return notSupported("{0} on {1}", N.opName(), elementTypeName(E));
  auto Axis = normalizeAxis(N.getInt("axis"), N.operand(0)->type().rank());
  if (!Axis) {
    llvm::consumeError(Axis.takeError());
    return notSupported("bad axis");
  }
  if (N.operand(0)->type().Dims[size_t(*Axis)].size() == 0)
    return notSupported("{0} of an empty axis", N.opName());
  return supported();
}

llvm::Error lowerArg(const Node &N, LoweringContext &Ctx) {
  fb::ArgReduceOptionsT O;
  O.axis = int32_t(*normalizeAxis(N.getInt("axis"), N.operand(0)->type().rank()));
  O.min = N.isOp("argmin");
  O.select_last_index = N.getInt("select_last_index") != 0;
  int32_t In = Ctx.canonical(N.operand(0));
  int32_t Out = Ctx.resultTensor(N.result(), false);
  Ctx.addOp(fb::OpKind::ARG_REDUCE, {In}, {Out}, optionsOf(O),
            fb::Engine::REFERENCE);
  Ctx.define(N.result(), Out, false);
  return llvm::Error::success();
}

KilnOpSupport checkLayerNorm(const Node &N) {
  if (N.numResults() != 1)
    return notSupported("layer_norm with mean/inv_std results");
  return requireF32(N);
}

llvm::Error lowerLayerNorm(const Node &N, LoweringContext &Ctx) {
  fb::LayerNormOptionsT O;
  O.axis = int32_t(*normalizeAxis(N.getInt("axis"), N.operand(0)->type().rank()));
  O.epsilon = float(N.getFloat("epsilon"));
  std::vector<int32_t> In = {Ctx.canonical(N.operand(0)),
                             Ctx.canonical(N.operand(1))};
  if (N.numOperands() > 2 && N.operand(2))
    In.push_back(Ctx.canonical(N.operand(2)));
  int32_t Out = Ctx.resultTensor(N.result(), false);
  // oneDNN's layer normalization where the runtime has oneDNN.
  Ctx.addOp(fb::OpKind::LAYER_NORM, In, {Out}, optionsOf(O), fb::Engine::ANY);
  Ctx.define(N.result(), Out, false);
  return llvm::Error::success();
}

const CpuOpRule Rules[] = {
    {"reduce_sum", checkReduce, lowerReduce},
    {"reduce_mean", checkReduce, lowerReduce},
    {"reduce_max", checkReduce, lowerReduce},
    {"reduce_min", checkReduce, lowerReduce},
    {"argmax", checkArg, lowerArg},
    {"argmin", checkArg, lowerArg},
    {"layer_norm", checkLayerNorm, lowerLayerNorm},
};

} // namespace

llvm::ArrayRef<CpuOpRule> reductionRules() { return Rules; }

} // namespace kiln

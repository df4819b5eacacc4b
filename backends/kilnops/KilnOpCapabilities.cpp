// The kiln-operator lowering's capability table (what the CPU target
// runs, and what every other target starts from): which IR ops it takes (the rule lists of
// each family) and the checks every node must pass first: static shapes and
// element types the runtime has kernels for. The engine each operator ends
// up on (XNNPACK or the reference kernels) is decided by the lowering and
// shown by `kiln convert --stats`.
#include "backends/kilnops/KilnOpRules.h"
#include "backends/kilnops/KilnOps.h"

#include <algorithm>
#include <cstring>

namespace kiln {

const CpuOpRule *findCpuRule(llvm::StringRef Op) {
  for (auto Family : {spatialRules(), linearRules(), elementwiseRules(),
                      shapeRules(), reductionRules(), resizeRules(),
                      quantRules(), imageRules(), detectionRules(),
                      recurrentRules()})
    for (const CpuOpRule &R : Family)
      if (Op == R.Op)
        return &R;
  return nullptr;
}

std::vector<std::string> kilnOpsSupportedOps() {
  std::vector<std::string> Ops;
  for (auto Family : {spatialRules(), linearRules(), elementwiseRules(),
                      shapeRules(), reductionRules(), resizeRules(),
                      quantRules(), imageRules(), detectionRules(),
                      recurrentRules()})
    for (const CpuOpRule &R : Family)
      Ops.push_back(R.Op);
  std::sort(Ops.begin(), Ops.end());
  Ops.erase(std::unique(Ops.begin(), Ops.end()), Ops.end());
  return Ops;
}

std::vector<float> floatsOf(const Tensor &T) {
  std::vector<float> V(size_t(T.numElements()));
  if (!V.empty())
    std::memcpy(V.data(), T.buffer().data(), V.size() * sizeof(float));
  return V;
}

KilnOpSupport requireF32(const Node &N) {
  for (const Value *V : N.operands())
    if (V && V->type().Elem != ElementType::F32)
      return notSupported("{0} operands only (got {1})", "f32",
                          elementTypeName(V->type().Elem));
  for (const Value *V : N.results())
    if (V->type().Elem != ElementType::F32)
      return notSupported("{0} results only (got {1})", "f32",
                          elementTypeName(V->type().Elem));
  return supported();
}

KilnOpSupport requireConstant(const Node &N, unsigned I, const char *What) {
  if (I >= N.numOperands() || !N.operand(I))
    return notSupported("the {0} must be a constant", What);
  const Value *V = N.operand(I);
  if (isConstantOrFolded(V))
    return supported();
  if (const Node *P = V->producer())
    return notSupported("the {0} must be a constant, but '{1}' computes it "
                        "(-O1 and above fold constant computations)",
                        What, P->opName());
  return notSupported("the {0} must be a constant, not a graph input", What);
}

OutputActivation outputActivation(const Node &N) {
  FusedActivation A = readFusedActivation(N);
  const float Inf = std::numeric_limits<float>::infinity();
  OutputActivation R{-Inf, Inf, llvm::None};
  switch (A.Kind) {
  case ActivationKind::None:
    break;
  case ActivationKind::Relu:
    R.Min = 0;
    break;
  case ActivationKind::Clip:
    R.Min = float(A.Min);
    R.Max = float(A.Max);
    break;
  case ActivationKind::LeakyRelu: {
    fb::UnaryOptionsT U;
    U.op = fb::UnaryOp::LEAKY_RELU;
    U.alpha = float(A.Alpha);
    R.Extra = U;
    break;
  }
  case ActivationKind::HardSwish: {
    fb::UnaryOptionsT U;
    U.op = fb::UnaryOp::HARD_SWISH;
    R.Extra = U;
    break;
  }
  }
  return R;
}

void emitWithActivation(LoweringContext &Ctx, const Value *Result, bool Nhwc,
                        const OutputActivation &Act,
                        llvm::function_ref<void(int32_t Out)> Emit) {
  int32_t Out = Ctx.resultTensor(Result, Nhwc);
  if (!Act.Extra) {
    Emit(Out);
    Ctx.define(Result, Out, Nhwc);
    return;
  }
  const fb::TensorT &T = Ctx.tensor(Out);
  int32_t Before = Ctx.addTensor(T.name + ".pre", ElementType::F32, T.shape,
                                 T.layout);
  Emit(Before);
  bool Xnnpack = Act.Extra->op == fb::UnaryOp::LEAKY_RELU ||
                 Act.Extra->op == fb::UnaryOp::HARD_SWISH;
  Ctx.addOp(fb::OpKind::UNARY, {Before}, {Out}, optionsOf(*Act.Extra),
            Xnnpack ? fb::Engine::XNNPACK : fb::Engine::REFERENCE);
  Ctx.define(Result, Out, Nhwc);
}

fb::Engine engineForF32(bool XnnpackHasIt, int64_t Rank) {
  return XnnpackHasIt && Rank <= 6 ? fb::Engine::XNNPACK : fb::Engine::REFERENCE;
}

KilnOpSupport checkKilnOpSupport(const Node &N) {
  if (N.isOp("const"))
    return supported();
  const CpuOpRule *R = findCpuRule(N.opName());
  if (!R)
    return notSupported("the CPU target has no kernel for '{0}'", N.opName());
  for (const Value *V : N.operands())
    if (V && !V->type().isStatic())
      return notSupported("operand type {0} is not static; fix the input "
                          "shapes with --input-shape",
                          toString(V->type()));
  for (const Value *V : N.results())
    if (!V->type().isStatic())
      return notSupported("result type {0} is not static; fix the input "
                          "shapes with --input-shape",
                          toString(V->type()));
  return R->Check(N);
}

} // namespace kiln

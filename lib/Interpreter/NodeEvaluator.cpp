#include "Interpreter/NodeEvaluator.h"

#include "Interpreter/Kernel.h"
#include "Support/Error.h"

namespace kiln {

static std::string context(const Node &N) {
  return "node '" + N.displayName() + "' (" + N.opName().str() + ")";
}

llvm::Expected<std::vector<Tensor>>
evaluateNode(const Node &N, llvm::ArrayRef<const Tensor *> Operands) {
  KernelFn Kernel = findKernel(N.opName());
  if (!Kernel)
    return inputError("{0}: no kernel for op '{1}'", context(N), N.opName());
  // Kernels read typed pointers; constants may alias unaligned file bytes.
  std::vector<Tensor> Copies;
  Copies.reserve(Operands.size());
  std::vector<const Tensor *> Aligned;
  for (const Tensor *T : Operands) {
    if (T && !T->buffer().isAligned(elementSize(T->type().Elem))) {
      Copies.emplace_back(T->type(), Buffer::copy(T->buffer().bytes()));
      T = &Copies.back();
    }
    Aligned.push_back(T);
  }
  static ThreadPoolRunner SingleThread(1);
  KernelContext Ctx{N, Aligned, {}, SingleThread};
  if (llvm::Error E = Kernel(Ctx))
    return addContext(std::move(E), context(N));
  if (Ctx.Outputs.size() != N.numResults())
    return internalError("{0}: the kernel made {1} results, the node has {2}",
                         context(N), Ctx.Outputs.size(), N.numResults());
  for (unsigned I = 0; I < N.numResults(); ++I)
    if (!isCompatible(N.result(I)->type(), Ctx.Outputs[I].type()))
      return internalError("{0}: result {1} is {2}, declared {3}", context(N), I,
                           toString(Ctx.Outputs[I].type()),
                           toString(N.result(I)->type()));
  return std::move(Ctx.Outputs);
}

llvm::Expected<llvm::Optional<std::vector<Tensor>>>
tryEvaluateConstantNode(const Node &N) {
  if (N.isOp("const"))
    return llvm::None;
  bool ShapeQuery = N.isOp("shape") || N.isOp("size");
  std::vector<Tensor> Placeholders;
  Placeholders.reserve(N.numOperands());
  std::vector<const Tensor *> Operands;
  for (const Value *V : N.operands()) {
    if (!V) {
      Operands.push_back(nullptr);
    } else if (const Tensor *T = V->constant()) {
      Operands.push_back(T);
    } else if (ShapeQuery && V->type().isStatic()) {
      // shape/size read only the operand's type: give the kernel a tensor of
      // that type without materializing its data.
      Placeholders.emplace_back(V->type(), Buffer());
      Operands.push_back(&Placeholders.back());
    } else {
      return llvm::None;
    }
  }
  auto R = evaluateNode(N, Operands);
  if (!R)
    return R.takeError();
  return llvm::Optional<std::vector<Tensor>>(std::move(*R));
}

} // namespace kiln

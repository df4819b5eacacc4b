// `const`: a weight or any other constant tensor.
#include "IR/Graph.h"
#include "IR/ops/OpBuilder.h"
#include "Support/Error.h"

namespace kiln {

static llvm::Expected<std::vector<TensorType>> inferConst(const Node &N) {
  return std::vector<TensorType>{N.getTensor("value").type()};
}

static llvm::Error verifyConst(const Node &N) {
  const Tensor &T = N.getTensor("value");
  auto Count = numElements(T.type().Dims);
  if (!Count)
    return inputError("constant has a non-static shape {0}",
                      toString(T.type().Dims));
  uint64_t Expected = uint64_t(*Count) * elementSize(T.type().Elem);
  if (Expected != T.buffer().size())
    return inputError("constant of type {0} needs {1} bytes, has {2}",
                      toString(T.type()), Expected, T.buffer().size());
  return llvm::Error::success();
}

void registerConstantOps(OpRegistry &R) {
  OpBuilder("const", "constant", "a constant tensor (weights, shapes, ...)")
      .required("value", AttrKind::Tensor, "the data")
      .verify(verifyConst)
      .infer(inferConst)
      .into(R);
}

} // namespace kiln

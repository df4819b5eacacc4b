// Reductions over a set of axes (an optional i64 operand, as in ONNX 18).
#include "IR/Graph.h"
#include "IR/ShapeInference.h"
#include "IR/ops/OpBuilder.h"
#include "Support/Error.h"

namespace kiln {

static llvm::Expected<std::vector<TensorType>> inferReduce(const Node &N) {
  const TensorType &X = N.operand(0)->type();
  const Value *AxesV = N.numOperands() > 1 ? N.operand(1) : nullptr;
  bool Keep = N.getInt("keepdims") != 0;
  std::vector<bool> Reduced(size_t(X.rank()), false);
  if (AxesV) {
    auto Axes = constantInts(AxesV);
    if (!Axes) { // run-time axes: the rank follows from how many there are
      if (Keep)
        return std::vector<TensorType>{withShape(X, unknownShape(X.rank()))};
      const TensorType &A = AxesV->type();
      if (A.rank() != 1 || !A.Dims[0].isStatic() || A.Dims[0].size() > X.rank())
        return inputError("axes {0} known only at run time with keepdims=0: "
                          "need a 1-D axes tensor of static length",
                          toString(A));
      int64_t Len = A.Dims[0].size();
      if (Len == 0) // empty axes: all of them, or none with noop_with_empty_axes
        return std::vector<TensorType>{
            N.getInt("noop_with_empty_axes") ? X : withShape(X, Shape())};
      return std::vector<TensorType>{withShape(X, unknownShape(X.rank() - Len))};
    }
    if (Axes->empty() && N.getInt("noop_with_empty_axes"))
      return std::vector<TensorType>{X};
    if (Axes->empty())
      Reduced.assign(Reduced.size(), true);
    for (int64_t A : *Axes) {
      auto NA = normalizeAxis(A, X.rank());
      if (!NA)
        return NA.takeError();
      Reduced[size_t(*NA)] = true;
    }
  } else if (!N.getInt("noop_with_empty_axes")) {
    Reduced.assign(Reduced.size(), true);
  }
  Shape Out;
  for (size_t I = 0; I < Reduced.size(); ++I) {
    if (!Reduced[I])
      Out.push_back(X.Dims[I]);
    else if (Keep)
      Out.push_back(Dim(1));
  }
  return std::vector<TensorType>{withShape(X, Out)};
}

void registerReductionOps(OpRegistry &R) {
  for (const char *Name :
       {"reduce_mean", "reduce_sum", "reduce_max", "reduce_min"})
    OpBuilder(Name, "reduction", "reduces x over axes (all axes when absent)")
        .operand("x").optional("axes")
        .attr("keepdims", AttrKind::Int, int64_t(1))
        .attr("noop_with_empty_axes", AttrKind::Int, int64_t(0))
        .infer(inferReduce).into(R);
}

} // namespace kiln

// Graph statistics for inspect and diff.
#include "Tooling/GraphStats.h"

#include "IR/ElementType.h"

namespace kiln {

namespace {

int64_t staticProduct(const Shape &S, size_t From = 0, size_t To = SIZE_MAX) {
  int64_t P = 1;
  for (size_t I = From; I < S.size() && I < To; ++I)
    P *= S[I].isStatic() ? S[I].size() : 1;
  return P;
}

int64_t dimOr1(const Shape &S, size_t I) {
  return I < S.size() && S[I].isStatic() ? S[I].size() : 1;
}

} // namespace

int64_t estimateMacs(const Node &N) {
  if (N.numResults() == 0 || N.numOperands() == 0 || !N.operand(0))
    return 0;
  const Shape &Out = N.result(0)->type().Dims;
  const Shape &In = N.operand(0)->type().Dims;
  llvm::StringRef Op = N.opName();
  if (Op == "conv" && N.numOperands() > 1) {
    // Each output element sums C/group * k... products.
    const Shape &W = N.operand(1)->type().Dims;
    return staticProduct(Out) * staticProduct(W, 1);
  }
  if (Op == "conv_transpose" && N.numOperands() > 1) {
    // Each input element scatters into M/group * k... outputs.
    const Shape &W = N.operand(1)->type().Dims;
    return staticProduct(In) * staticProduct(W, 1);
  }
  if ((Op == "linear" || Op == "gemm" || Op == "matmul") && !In.empty()) {
    int64_t K = dimOr1(In, In.size() - 1);
    if (Op == "gemm" && N.getInt("trans_a") != 0)
      K = dimOr1(In, 0);
    return staticProduct(Out) * K;
  }
  if (Op == "avg_pool" || Op == "max_pool") {
    int64_t K = 1;
    for (int64_t X : N.getInts("kernel"))
      K *= X;
    return staticProduct(Out) * K;
  }
  if (Op == "global_avg_pool" || Op == "global_max_pool")
    return staticProduct(In);
  if (Op == "batch_norm" || Op == "layer_norm" || Op == "instance_norm")
    return staticProduct(Out);
  return 0;
}

GraphStats computeGraphStats(const Graph &G) {
  GraphStats S;
  for (const Node &N : G.nodes()) {
    if (N.isOp("const")) {
      const Tensor &T = N.getTensor("value");
      ParamTotals &P = S.ParamsByType[elementTypeName(T.type().Elem).str()];
      P.Count += staticProduct(T.type().Dims);
      P.Bytes += int64_t(T.buffer().size());
      continue;
    }
    ++S.OpHistogram[N.opName().str()];
    NodeStats NS;
    NS.N = &N;
    NS.Macs = estimateMacs(N);
    for (const Value *V : N.operands())
      if (V && V->producer() && V->producer()->isOp("const"))
        NS.Params += staticProduct(V->type().Dims);
    S.TotalMacs += NS.Macs;
    S.Nodes.push_back(NS);
  }
  return S;
}

} // namespace kiln

// expand-matmul: a matmul of two computed tensors (attention's q k^T and
// p v) for targets without a batched matrix product: with static shapes and
// the same batch dims on both sides, the batch is flattened to P and
//   y[p, m, n] = sum_k a[p, m, k, 1] * b[p, 1, k, n]
// (a broadcast mul and a reduce_sum over k), then reshaped back. Exact up to
// the order of the float sum; the product tensor has P*M*K*N elements, so
// matmuls above MaxElements are left (and refused by name by the target).
#include "passes/NodeBuilder.h"
#include "passes/Pass.h"
#include "passes/ValueReplacement.h"

#include "IR/ShapeInference.h"
#include "IR/ops/FusedActivation.h"

#include <algorithm>

namespace kiln {

namespace {

constexpr int64_t MaxElements = int64_t(1) << 24;

bool isExpandable(const Node &N) {
  if (!N.isOp("matmul") || N.operand(1)->constant())
    return false;
  const TensorType &A = N.operand(0)->type(), &B = N.operand(1)->type();
  if (!A.isStatic() || !B.isStatic() || A.rank() < 2 || A.rank() != B.rank() ||
      !isFloatType(A.Elem) || A.Quant || B.Quant)
    return false;
  std::vector<int64_t> SA = staticSizes(A.Dims), SB = staticSizes(B.Dims);
  size_t R = SA.size();
  if (!std::equal(SA.begin(), SA.end() - 2, SB.begin()))
    return false;
  int64_t Total = SA[R - 2] * SA[R - 1] * SB[R - 1];
  for (size_t I = 0; I + 2 < R; ++I)
    Total *= SA[I];
  return Total <= MaxElements;
}

class ExpandMatMul : public Pass {
public:
  llvm::Expected<bool> run(Graph &G, PassStats &Stats) override {
    std::vector<Node *> Matches;
    for (Node &N : G.nodes())
      if (isExpandable(N) && readFusedActivation(N).isNone())
        Matches.push_back(&N);
    bool Changed = false;
    for (Node *N : Matches) {
      std::vector<int64_t> SA = staticSizes(N->operand(0)->type().Dims),
                           SB = staticSizes(N->operand(1)->type().Dims),
                           SY = staticSizes(N->result()->type().Dims);
      size_t R = SA.size();
      int64_t P = 1;
      for (size_t I = 0; I + 2 < R; ++I)
        P *= SA[I];
      int64_t M = SA[R - 2], K = SA[R - 1], Nn = SB[R - 1];
      NodeBuilder B(G, *N);
      Value *A4 = B.op("reshape", {N->operand(0), B.ints({P, M, K, 1})});
      Value *B4 = B.op("reshape", {N->operand(1), B.ints({P, 1, K, Nn})});
      Value *Sum = B.op("reduce_sum", {B.op("mul", {A4, B4}), B.ints({2})},
                        {{"keepdims", int64_t(0)}});
      Value *Y = B.op("reshape", {Sum, B.ints(SY)});
      if (llvm::Error E = B.takeError())
        return E;
      if (!canReplaceValue(G, N->result(), Y))
        continue;
      replaceValue(G, N->result(), Y);
      G.erase(N);
      Stats.add("expanded");
      Changed = true;
    }
    return Changed;
  }
};

} // namespace

std::unique_ptr<Pass> createExpandMatMul() {
  return std::make_unique<ExpandMatMul>();
}

} // namespace kiln

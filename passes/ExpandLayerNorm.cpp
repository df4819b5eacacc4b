// expand-layer-norm: layer_norm(x, scale, bias) over the axes from `axis` on
// becomes
//   d = x - mean(x);  y = d / sqrt(mean(d * d) + epsilon) * scale + bias
// with reduce_mean (keepdims), sub, mul, add, sqrt and div: ops the Vulkan,
// Metal and NNAPI targets run (NNAPI: MEAN, SUB, MUL, ADD, SQRT, DIV), for
// targets without a layer-norm kernel. Two passes over x, as the reference
// kernel does; the variance is the biased one (ONNX, PyTorch). A layer_norm
// whose mean or inverse-deviation results are used is left alone.
#include "passes/NodeBuilder.h"
#include "passes/Pass.h"
#include "passes/ValueReplacement.h"

#include "IR/ShapeInference.h"

#include <numeric>

namespace kiln {

namespace {

class ExpandLayerNorm : public Pass {
public:
  llvm::Expected<bool> run(Graph &G, PassStats &Stats) override {
    std::vector<Node *> Matches;
    for (Node &N : G.nodes())
      if (N.isOp("layer_norm") && isFloatType(N.operand(0)->type().Elem) &&
          !N.operand(0)->type().Quant && statsUnused(G, N))
        Matches.push_back(&N);
    bool Changed = false;
    for (Node *N : Matches) {
      const TensorType &X = N->operand(0)->type();
      auto Axis = normalizeAxis(N->getInt("axis"), X.rank());
      if (!Axis)
        return Axis.takeError();
      std::vector<int64_t> Axes(size_t(X.rank() - *Axis));
      std::iota(Axes.begin(), Axes.end(), *Axis);
      NodeBuilder B(G, *N);
      AttrMap Keep = {{"keepdims", int64_t(1)}};
      Value *Mean = B.op("reduce_mean", {N->operand(0), B.ints(Axes)}, Keep);
      Value *D = B.op("sub", {N->operand(0), Mean});
      Value *Var = B.op("reduce_mean", {B.op("mul", {D, D}), B.ints(Axes)}, Keep);
      Value *Eps = B.scalar(X.Elem, N->getFloat("epsilon"));
      Value *Y = B.op("div", {D, B.op("sqrt", {B.op("add", {Var, Eps})})});
      Y = B.op("mul", {Y, N->operand(1)});
      if (N->numOperands() > 2 && N->operand(2))
        Y = B.op("add", {Y, N->operand(2)});
      if (llvm::Error E = B.takeError())
        return E;
      if (!canReplaceValue(G, N->result(0), Y))
        continue; // the unused expansion is dce's
      replaceValue(G, N->result(0), Y);
      G.erase(N);
      Stats.add("expanded");
      Changed = true;
    }
    return Changed;
  }

private:
  static bool statsUnused(const Graph &G, const Node &N) {
    for (unsigned I = 1; I < N.numResults(); ++I)
      if (N.result(I)->hasUses() || G.isOutput(N.result(I)))
        return false;
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> createExpandLayerNorm() {
  return std::make_unique<ExpandLayerNorm>();
}

} // namespace kiln

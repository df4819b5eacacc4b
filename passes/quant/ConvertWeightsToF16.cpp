// convert-weights-f16: fp16 weights. A weight operand (of conv, linear, gemm,
// matmul, the norms, prelu or an elementwise binary op) that is an f32
// constant with at least 16 elements becomes an f16 constant read through
// cast(to="f32"): the file stores half the bytes, and the graph computes with
// the f16-rounded weights, which is what an fp16 runtime sees. A backend that
// computes in f16 drops the cast; others widen once at load. Weights with a
// magnitude above 65504 (f16 max) stay f32.
#include "passes/quant/QDQBuilder.h"
#include "passes/quant/QuantRewrites.h"

#include "IR/OpRegistry.h"

#include <cmath>

namespace kiln {

namespace {
constexpr int64_t MinElements = 16;
constexpr float HalfMax = 65504.0f;

/// Operands of N that hold weights (when they are constants).
std::vector<unsigned> weightOperands(const Node &N) {
  llvm::StringRef Op = N.opName();
  if (Op == "conv" || Op == "conv_transpose" || Op == "linear" || Op == "gemm")
    return {1, 2};
  if (Op == "matmul" || Op == "add" || Op == "sub" || Op == "mul" || Op == "div")
    return {0, 1};
  if (Op == "batch_norm")
    return {1, 2, 3, 4};
  if (Op == "instance_norm" || Op == "layer_norm")
    return {1, 2};
  if (Op == "prelu")
    return {1};
  return {};
}

bool fitsHalf(const Tensor &T) {
  for (int64_t I = 0; I < T.numElements(); ++I)
    if (std::fabs(T.at<float>(I)) > HalfMax)
      return false;
  return true;
}

Value *halfCopy(Graph &G, Value *W) {
  const Tensor &T = *W->constant();
  std::vector<uint16_t> H(size_t(T.numElements()));
  for (size_t I = 0; I < H.size(); ++I)
    H[I] = floatToHalf(T.at<float>(int64_t(I)));
  Node *Before = nodeAfter(W->producer());
  std::string Name = W->name().empty() ? "" : W->name() + ".f16";
  Value *C = G.createConstant(
      Tensor::fromValues<uint16_t>(ElementType::F16, T.type().Dims, H), Name,
      Before);
  AttrMap Attrs;
  Attrs["to"] = std::string("f32");
  Node *Cast = G.createNode(OpRegistry::instance().get("cast"), {C},
                            {withoutQuant(W->type())}, std::move(Attrs), Before);
  if (!W->name().empty())
    Cast->result()->setName(W->name() + ".f32");
  return Cast->result();
}
} // namespace

void convertWeightsToF16(Graph &G, const NodeSet &KeepFloat, PassStats &Stats) {
  // Collect first: (node, operand) pairs, grouped by weight in graph order.
  std::vector<std::pair<Value *, std::vector<Use>>> Weights;
  for (Node &N : G.nodes()) {
    if (KeepFloat.count(&N))
      continue;
    for (unsigned I : weightOperands(N)) {
      Value *W = I < N.numOperands() ? N.operand(I) : nullptr;
      if (!W || !W->producer() || !W->producer()->isOp("const") ||
          W->type().Elem != ElementType::F32 ||
          W->constant()->numElements() < MinElements)
        continue;
      auto It = std::find_if(Weights.begin(), Weights.end(),
                             [&](const auto &E) { return E.first == W; });
      if (It == Weights.end())
        It = Weights.insert(Weights.end(), {W, {}});
      It->second.push_back({&N, I});
    }
  }
  for (auto &[W, Uses] : Weights) {
    if (!fitsHalf(*W->constant())) {
      Stats.add("kept-f32-out-of-range");
      continue;
    }
    Value *H = halfCopy(G, W);
    for (const Use &U : Uses)
      U.User->setOperand(U.Index, H);
    if (!W->hasUses() && !G.isOutput(W)) {
      H->setName(W->name());
      G.erase(W->producer());
    }
    Stats.add("converted");
  }
}

namespace {
class ConvertWeightsToF16 : public Pass {
public:
  llvm::Expected<bool> run(Graph &G, PassStats &Stats) override {
    PassStats Local;
    convertWeightsToF16(G, {}, Local);
    Stats.merge(Local);
    return Local.counts().count("converted") != 0;
  }
};
} // namespace

std::unique_ptr<Pass> createConvertWeightsToF16() {
  return std::make_unique<ConvertWeightsToF16>();
}

} // namespace kiln

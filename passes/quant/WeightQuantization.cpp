#include "passes/quant/WeightQuantization.h"

#include "passes/quant/Int8Scheme.h"
#include "passes/quant/QDQBuilder.h"
#include "passes/quant/QuantRewrites.h"

#include <cmath>
#include <limits>

namespace kiln {

namespace {
const Tensor *f32Constant(const Value *V) {
  if (!isConstantValue(V))
    return nullptr;
  const Tensor *T = V->constant();
  return T && T->type().Elem == ElementType::F32 && T->type().isStatic() ? T
                                                                          : nullptr;
}

std::vector<float> valuesOf(const Tensor &T) {
  std::vector<float> V(size_t(T.numElements()));
  for (size_t I = 0; I < V.size(); ++I)
    V[I] = T.at<float>(int64_t(I));
  return V;
}
} // namespace

llvm::Optional<QuantParams> planWeightQuant(const Value *W, int64_t Axis) {
  const Tensor *T = f32Constant(W);
  if (!T || Axis >= T->type().rank())
    return llvm::None;
  std::vector<int64_t> Sizes = staticSizes(T->type().Dims);
  QuantizedWeight Q = quantizeWeightSymmetric(valuesOf(*T), Sizes, Axis);
  return symmetricParams(Q.Scales, Axis);
}

llvm::Optional<QuantParams> matchWeight(const Node &N, const Int8OpInfo &Info) {
  if (Info.Weight < 0 || unsigned(Info.Weight) >= N.numOperands())
    return llvm::None;
  const Value *W = N.operand(unsigned(Info.Weight));
  const Tensor *T = f32Constant(W);
  if (!T || !W->type().Quant)
    return llvm::None;
  const QuantParams &P = *W->type().Quant;
  int64_t Channels = 1;
  if (P.isPerAxis()) {
    if (P.Axis != Info.WeightAxis || P.Axis >= T->type().rank())
      return llvm::None;
    Channels = T->type().Dims[size_t(P.Axis)].size();
  }
  if (int64_t(P.Scales.size()) != Channels || P.ZeroPoints.size() != P.Scales.size())
    return llvm::None;
  for (size_t C = 0; C < P.Scales.size(); ++C)
    if (!std::isfinite(P.Scales[C]) || !(P.Scales[C] > 0) || P.ZeroPoints[C] != 0)
      return llvm::None;
  return P;
}

/// The i8 constant for float weight W with parameters P, and its dequantize.
static Value *quantizeWeightWith(Graph &G, Value *W, const QuantParams &P,
                                 Node *Before) {
  const Tensor &T = *W->constant();
  std::vector<int64_t> Sizes = staticSizes(T.type().Dims);
  int64_t Inner = 1;
  if (P.isPerAxis())
    for (size_t D = size_t(P.Axis) + 1; D < Sizes.size(); ++D)
      Inner *= Sizes[D];
  int64_t Channels = int64_t(P.Scales.size());
  std::vector<int8_t> Q(size_t(T.numElements()));
  for (int64_t I = 0; I < T.numElements(); ++I) {
    size_t C = P.isPerAxis() ? size_t(I / Inner % Channels) : 0;
    Q[size_t(I)] = int8_t(quantizeScalar(T.at<float>(I), P.Scales[C], 0,
                                         -WeightInt8Max, WeightInt8Max));
  }
  Tensor QT = Tensor::fromValues<int8_t>(ElementType::I8, T.type().Dims, Q);
  std::string Name = W->name().empty() ? "" : W->name() + ".i8";
  return insertDequantizedConstant(G, std::move(QT), P, ElementType::F32,
                                   Before, Name);
}

QuantizedWeightValue quantizeAnnotatedWeight(Graph &G, Value *W, Node *Before) {
  const QuantParams &P = *W->type().Quant;
  return {quantizeWeightWith(G, W, P, Before), P.Scales};
}

Value *quantizeWeightFor(Graph &G, Node &N, unsigned Operand,
                         const QuantParams &P,
                         std::vector<WeightCacheEntry> &Cache) {
  Value *W = N.operand(Operand);
  for (const WeightCacheEntry &E : Cache)
    if (E.Float == W && E.Params == P)
      return E.Dequantized;
  Value *D = quantizeWeightWith(G, W, P, &N);
  Cache.push_back({W, P, D});
  return D;
}

Value *quantizeBias(Graph &G, Value *B, float InScale,
                    llvm::ArrayRef<float> WScales, Node *Before) {
  const Tensor *T = f32Constant(B);
  if (!T || T->type().rank() != 1 ||
      (WScales.size() > 1 && T->numElements() != int64_t(WScales.size())))
    return nullptr;
  std::vector<float> Scales;
  for (float S : WScales)
    Scales.push_back(InScale * S);
  std::vector<int32_t> Q(size_t(T->numElements()));
  for (int64_t I = 0; I < T->numElements(); ++I) {
    float S = Scales[WScales.size() > 1 ? size_t(I) : 0];
    double V = std::nearbyint(double(T->at<float>(I)) / double(S));
    if (std::isnan(V))
      V = 0;
    Q[size_t(I)] = int32_t(std::min<double>(
        std::max<double>(V, std::numeric_limits<int32_t>::min()),
        std::numeric_limits<int32_t>::max()));
  }
  QuantParams P;
  P.Scales = Scales;
  P.ZeroPoints.assign(Scales.size(), 0);
  P.Axis = Scales.size() > 1 ? 0 : -1;
  Tensor QT = Tensor::fromValues<int32_t>(ElementType::I32, T->type().Dims, Q);
  std::string Name = B->name().empty() ? "" : B->name() + ".i32";
  return insertDequantizedConstant(G, std::move(QT), P, ElementType::F32, Before,
                                   Name);
}

} // namespace kiln

// RESIZE with the compiler's tap tables (per resized axis: input indices
// and weights of each output coordinate) as one dispatch of the separable
// resampling kernel over at most two axes, on C4 or PLAIN tensors; an axis
// that keeps its size and is needed as the kernel's second gets one
// identity tap.
#include "backends/gpu/VulkanLowering.h"

#include <algorithm>
#include <cstring>

namespace kiln::vulkan {

namespace {

struct Taps {
  BindingRef Index, Weight;
  int64_t Count = 1;
};

Taps identityTaps(Lowering &L, int64_t Out) {
  std::vector<uint8_t> Identity(size_t(Out) * 4);
  for (int64_t O = 0; O < Out; ++O) {
    int32_t V = int32_t(O);
    std::memcpy(Identity.data() + 4 * O, &V, 4);
  }
  Taps T;
  T.Index = L.bindWeight(std::move(Identity), -1);
  T.Weight = L.bindF32(std::vector<float>(size_t(Out), 1.0f), -1);
  return T;
}

std::string tableTaps(Lowering &L, int32_t Idx, int32_t W, Taps &T) {
  if (L.tensor(Idx).dtype != fb::DType::I32 || L.tensor(Idx).shape.size() != 2)
    return "its tap indices are not I32 [out, taps]";
  T.Count = L.tensor(Idx).shape[1];
  T.Index = L.bindWeight(L.rawBytes(Idx), Idx);
  T.Weight = L.bindF32(L.floats(W), W);
  return "";
}

/// Whether axis A's table leaves it as it is: as many outputs as inputs,
/// each reading only its own index (linear taps of scale 1 are [1, 0]).
bool isIdentityAxis(Lowering &L, const fb::OperatorT &Op, size_t A,
                    int64_t In, int64_t Out) {
  int32_t Idx = Op.inputs[1 + 2 * A], W = Op.inputs[2 + 2 * A];
  if (Idx < 0)
    return true;
  const std::vector<int64_t> &Shape = L.tensor(Idx).shape;
  if (In != Out || L.tensor(Idx).dtype != fb::DType::I32 || Shape.size() != 2 ||
      Shape[0] != Out)
    return false;
  int64_t Taps = Shape[1];
  std::vector<uint8_t> Index = L.rawBytes(Idx);
  std::vector<float> Weight = L.floats(W);
  for (int64_t O = 0; O < Out; ++O) {
    float Own = 0;
    for (int64_t T = 0; T < Taps; ++T) {
      int32_t V;
      std::memcpy(&V, Index.data() + 4 * (O * Taps + T), 4);
      float Wt = Weight[size_t(O * Taps + T)];
      if (V == O)
        Own += Wt;
      else if (Wt != 0.0f)
        return false;
    }
    if (Own != 1.0f)
      return false;
  }
  return true;
}

} // namespace

std::string lowerResize(Lowering &L, const fb::OperatorT &Op) {
  int32_t X = Op.inputs[0], Y = Op.outputs[0];
  const Storage &XS = L.storage(X), &YS = L.storage(Y);
  size_t Rank = YS.Dims.size();
  if (Rank > size_t(DomainRank) || Op.inputs.size() != 1 + 2 * Rank)
    return "its rank is above 6";
  std::vector<size_t> Resized;
  for (size_t A = 0; A < Rank; ++A)
    if (!isIdentityAxis(L, Op, A, XS.Dims[A], YS.Dims[A]))
      Resized.push_back(A);
  if (Resized.size() > 2)
    return "the Vulkan target resizes at most two axes";
  // The kernel's two axes: the resized ones, then the last others.
  std::vector<size_t> Axes = Resized;
  for (size_t A = Rank; A-- > 0 && Axes.size() < 2;)
    if (std::find(Axes.begin(), Axes.end(), A) == Axes.end())
      Axes.insert(Axes.begin(), A);
  if (Axes.size() < 2)
    return "a rank-1 resize";
  std::sort(Axes.begin(), Axes.end());
  Taps T[2];
  for (int K = 0; K < 2; ++K) {
    size_t A = Axes[size_t(K)];
    if (std::find(Resized.begin(), Resized.end(), A) == Resized.end()) {
      T[K] = identityTaps(L, YS.Dims[A]);
      continue;
    }
    if (std::string Why = tableTaps(L, Op.inputs[1 + 2 * A], Op.inputs[2 + 2 * A], T[K]);
        !Why.empty())
      return Why;
  }
  int Lead = DomainRank - int(Rank);
  PendingDispatch &D = L.dispatch("resize");
  D.Spec[5] = uint32_t(Lead + int(Axes[0]));
  D.Spec[6] = uint32_t(Lead + int(Axes[1]));
  D.Spec[7] = uint32_t(T[0].Count);
  D.Spec[8] = uint32_t(T[1].Count);
  outputDomain(D, YS);
  DomainDims Real = domainOf(YS.Dims);
  // The source is addressed with its own dims: same rank, each domain axis
  // its own axis (the resized ones get the table's input index).
  OperandMap Same;
  Same.Start.assign(Rank, 0);
  for (size_t A = 0; A < Rank; ++A)
    Same.Axis[size_t(Lead) + A] = int(A);
  operandConstants(XS, Same, 20, D.Spec);
  operandConstants(YS, alignedMap(YS, Real), 40, D.Spec);
  D.Bindings = {L.bindTensor(X), T[0].Index, T[0].Weight, T[1].Index,
                T[1].Weight, L.bindTensor(Y)};
  return "";
}

} // namespace kiln::vulkan

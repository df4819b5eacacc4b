// CONCAT as one dispatch of kernels/concat.comp, which takes up to seven
// inputs (eight storage buffers with the output: what mobile GPUs with the
// smallest maxPerStageDescriptorStorageBuffers in use still allow, and more
// than the concats of the common CNNs have: GoogLeNet's 4, DeepLabV3's
// ASPP 5). A concat of more inputs becomes one dispatch per seven, each
// writing its own range of the output, with no intermediate copies. A
// constant input (a ViT's class token) is read from a PLAIN weight blob.
#include "backends/gpu/VulkanLowering.h"

#include <map>

namespace kiln::vulkan {

namespace {

constexpr size_t MaxConcatInputs = 7;

} // namespace

std::string lowerConcat(Lowering &L, const fb::OperatorT &Op) {
  int32_t Y = Op.outputs[0];
  const Storage &YS = L.storage(Y);
  for (int32_t T : Op.inputs)
    if (T < 0)
      return "an absent input";
  auto IsConstant = [&](int32_t T) { return L.tensor(T).buffer >= 0; };
  // Storage and binding of each input: a constant's is its own PLAIN blob.
  std::map<int32_t, Storage> ConstantStorage;
  std::map<int32_t, BindingRef> ConstantBinding;
  for (int32_t T : Op.inputs)
    if (IsConstant(T) && !ConstantStorage.count(T)) {
      Storage S;
      S.Dims = L.tensor(T).shape;
      ConstantStorage[T] = S;
      ConstantBinding[T] = L.bindFloats(L.floats(T), T);
    }
  auto StorageOf = [&](int32_t T) -> const Storage & {
    return IsConstant(T) ? ConstantStorage[T] : L.storage(T);
  };
  auto BindingOf = [&](int32_t T) {
    return IsConstant(T) ? ConstantBinding[T] : L.bindTensor(T);
  };
  if (YS.Dims.size() > size_t(DomainRank))
    return "its rank is above 6";
  auto Axis = size_t(Op.options.AsConcatOptions()->axis);
  int Lead = DomainRank - int(YS.Dims.size());
  int CatAxis = Lead + int(Axis);
  // The inputs that hold part of the output, with their first index.
  std::vector<std::pair<int32_t, int64_t>> Parts;
  int64_t Total = 0;
  for (int32_t In : Op.inputs) {
    int64_t Extent = StorageOf(In).Dims[Axis];
    if (Extent > 0)
      Parts.emplace_back(In, Total);
    Total += Extent;
  }
  for (size_t First = 0; First < Parts.size(); First += MaxConcatInputs) {
    size_t Last = std::min(First + MaxConcatInputs, Parts.size());
    int64_t Begin = Parts[First].second;
    int64_t End = Last < Parts.size() ? Parts[Last].second : Total;
    PendingDispatch &D = L.dispatch("concat");
    DomainDims Domain = domainOf(YS.Dims);
    Domain[size_t(CatAxis)] = End - Begin;
    OperandMap Dst = identityMap(YS);
    Dst.Start[Axis] = Begin;
    // A C4 output's padding lanes get zero from the dispatch that reaches
    // its last channel: that one's channel axis runs to the padded count.
    int PadAxis = DomainRank;
    int64_t PadFrom = 0;
    if (YS.C4) {
      size_t Channel = DomainRank - 1;
      int64_t Real = Domain[Channel];
      int64_t Padded = (YS.Dims[3] + 3) / 4 * 4 - Dst.Start[3];
      if (Dst.Start[3] + Real == YS.Dims[3] && Padded > Real) {
        PadAxis = int(Channel);
        PadFrom = Real;
        Domain[Channel] = Padded;
      }
    }
    domainConstants(D, Domain, PadAxis, PadFrom);
    operandConstants(YS, Dst, 90, D.Spec);
    D.Spec[100] = uint32_t(CatAxis);
    for (size_t J = First; J < Last; ++J) {
      auto [In, Start] = Parts[J];
      const Storage &IS = StorageOf(In);
      OperandMap Map = identityMap(IS);
      Map.Start[Axis] = Begin - Start;
      auto Slot = uint32_t(J - First);
      operandConstants(IS, Map, 20 + 10 * Slot, D.Spec);
      if (J + 1 < Last) // where this input's range ends (the last's: else)
        D.Spec[101 + Slot] = uint32_t(Parts[J + 1].second - Begin);
      D.Bindings.push_back(BindingOf(In));
    }
    // The kernel's unused inputs read nothing; any valid buffer will do.
    while (D.Bindings.size() < MaxConcatInputs)
      D.Bindings.push_back(D.Bindings.front());
    D.Bindings.push_back(L.bindTensor(Y));
  }
  return "";
}

} // namespace kiln::vulkan

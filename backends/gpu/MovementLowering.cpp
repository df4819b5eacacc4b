// Data movement: TRANSPOSE, RESHAPE, SLICE and BROADCAST as gather dispatches
// (kernels/gather.comp) between any mix of C4 and PLAIN tensors.
// A RESHAPE between two tensors with the same bytes is an alias, not a
// dispatch; converting a graph input from NCHW to C4, or a C4 result back to
// an NCHW graph output, is the TRANSPOSE the graph already has.
#include "backends/gpu/VulkanLowering.h"

namespace kiln::vulkan {

namespace {

/// S's bytes read as row-major over Dims (a reshape's flat order): S must
/// be PLAIN; the map walks it with Dims' row-major strides.
Storage asFlat(const Storage &S, const std::vector<int64_t> &Dims) {
  return Storage{Dims, false};
}

bool sameBytes(const Storage &A, const Storage &B) {
  if (!A.C4 && !B.C4)
    return true; // row-major with the same element count
  if (A.C4 && B.C4)
    return A.Dims == B.Dims;
  return false;
}

std::string reshape(Lowering &L, int32_t X, int32_t Y) {
  const Storage &XS = L.storage(X), &YS = L.storage(Y);
  if (sameBytes(XS, YS) && !L.isGraphOutput(Y) &&
      L.place(Y) >= 0 && L.place(X) >= 0) {
    L.alias(Y, L.place(X));
    return "";
  }
  if (!XS.C4 && !YS.C4) { // a copy into the output's own buffer
    Storage Flat{{int64_t(XS.elements())}, false};
    DomainDims Domain = domainOf(Flat.Dims);
    L.gather(Flat, L.bindTensor(X), identityMap(Flat), Flat, L.bindTensor(Y),
             identityMap(Flat), Domain);
    return "";
  }
  if (XS.C4 && YS.C4)
    return "a reshape between two different NHWC shapes";
  if (XS.C4) { // walk X, write Y's row-major bytes in X's flat order
    DomainDims Domain = domainOf(XS.Dims);
    Storage Flat = asFlat(YS, XS.Dims);
    L.gather(XS, L.bindTensor(X), identityMap(XS), Flat, L.bindTensor(Y),
             identityMap(Flat), Domain);
    return "";
  }
  DomainDims Domain = domainOf(YS.Dims); // walk Y, read X in Y's flat order
  Storage Flat = asFlat(XS, YS.Dims);
  L.gather(Flat, L.bindTensor(X), identityMap(Flat), YS, L.bindTensor(Y),
           identityMap(YS), Domain);
  return "";
}

} // namespace

std::string lowerMovement(Lowering &L, const fb::OperatorT &Op) {
  int32_t Y = Op.outputs[0];
  const Storage &YS = L.storage(Y);
  for (int32_t T : Op.inputs)
    if (T >= 0 && (L.tensor(T).buffer >= 0))
      return "a constant input (the Vulkan target moves activations only)";
  int32_t X = Op.inputs[0];
  const Storage &XS = L.storage(X);
  if (XS.Dims.size() > size_t(DomainRank) || YS.Dims.size() > size_t(DomainRank))
    return "its rank is above 6";
  DomainDims Domain = domainOf(YS.Dims);
  int Lead = DomainRank - int(YS.Dims.size());
  switch (Op.kind) {
  case fb::OpKind::RESHAPE:
    return reshape(L, X, Y);
  case fb::OpKind::TRANSPOSE: {
    const auto &Perm = Op.options.AsTransposeOptions()->perm;
    OperandMap Src;
    Src.Start.assign(XS.Dims.size(), 0);
    for (size_t I = 0; I < Perm.size(); ++I)
      Src.Axis[size_t(Lead) + I] = Perm[I];
    L.gather(XS, L.bindTensor(X), Src, YS, L.bindTensor(Y), identityMap(YS),
             Domain);
    return "";
  }
  case fb::OpKind::SLICE: {
    const auto &O = *Op.options.AsSliceOptions();
    OperandMap Src = identityMap(XS);
    for (size_t A = 0; A < XS.Dims.size(); ++A) {
      Src.Start[A] = O.starts[A];
      Src.Step[size_t(Lead) + A] = O.steps[A];
    }
    L.gather(XS, L.bindTensor(X), Src, YS, L.bindTensor(Y), identityMap(YS),
             Domain);
    return "";
  }
  case fb::OpKind::BROADCAST:
    L.gather(XS, L.bindTensor(X), alignedMap(XS, Domain), YS, L.bindTensor(Y),
             identityMap(YS), Domain);
    return "";
  default:
    return "no data-movement kernel for it";
  }
}

} // namespace kiln::vulkan

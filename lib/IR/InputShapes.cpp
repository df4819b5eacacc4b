#include "IR/InputShapes.h"

#include "IR/OpRegistry.h"
#include "Support/Error.h"
#include "Support/Limits.h"

namespace kiln {

llvm::Error parseInputShapeSpec(llvm::StringRef Spec, InputShapeMap &Out) {
  auto [Name, Dims] = Spec.rsplit('=');
  if (Dims.empty() && !Spec.contains('=')) {
    Dims = Name;
    Name = "";
  }
  std::vector<int64_t> Sizes;
  llvm::SmallVector<llvm::StringRef, 8> Parts;
  Dims.split(Parts, 'x');
  std::string Input = Name.empty() ? std::string("the input")
                                   : ("input '" + Name + "'").str();
  for (llvm::StringRef P : Parts) {
    int64_t V;
    // Digits alone but no int64_t (getAsInteger fails on overflow too): a
    // size that is too large, not a malformed one.
    bool Digits = !P.empty() && P.find_first_not_of("0123456789") ==
                                    llvm::StringRef::npos;
    if (Digits && (P.getAsInteger(10, V) || V > limits::MaxDim))
      return usageError("--input-shape '{0}': size {1} of {2} is too large "
                        "(the largest is {3})",
                        Spec, P, Input, limits::MaxDim);
    if (P.getAsInteger(10, V) || V < 0)
      return usageError("--input-shape '{0}': '{1}' is not a size; expected "
                        "NAME=D1xD2x... with non-negative integer sizes",
                        Spec, P);
    Sizes.push_back(V);
  }
  if (int64_t(Sizes.size()) > limits::MaxRank)
    return usageError("--input-shape '{0}': rank above {1}", Spec,
                      limits::MaxRank);
  Out[Name] = std::move(Sizes);
  return llvm::Error::success();
}

llvm::Error fixInputShapes(Graph &G, const InputShapeMap &Shapes) {
  if (Shapes.empty())
    return llvm::Error::success();
  std::string Known;
  for (const auto &In : G.inputPtrs())
    Known += (Known.empty() ? "" : ", ") + In->name();
  for (const auto &KV : Shapes) {
    Value *Target = nullptr;
    if (KV.getKey().empty() && G.numInputs() == 1)
      Target = G.input(0);
    for (const auto &In : G.inputPtrs())
      if (In->name() == KV.getKey())
        Target = In.get();
    if (!Target)
      return usageError("--input-shape: the model has no input '{0}' (inputs: "
                        "{1})",
                        KV.getKey(), Known);
    const TensorType &Old = Target->type();
    if (Old.rank() != int64_t(KV.getValue().size()))
      return usageError("--input-shape: input '{0}' has rank {1} ({2}), got {3} "
                        "dims",
                        Target->name(), Old.rank(), toString(Old),
                        KV.getValue().size());
    for (size_t I = 0; I < KV.getValue().size(); ++I)
      if (Old.Dims[I].isStatic() && Old.Dims[I].size() != KV.getValue()[I])
        return usageError("--input-shape: input '{0}' has static dim {1} = {2}, "
                          "got {3}",
                          Target->name(), I, Old.Dims[I].size(),
                          KV.getValue()[I]);
    TensorType New = Old;
    New.Dims = makeShape(KV.getValue());
    Target->setType(New);
  }
  return reinferTypes(G, /*DimsOnly=*/false);
}

} // namespace kiln

#include "Tooling/DiffStructure.h"

#include "llvm/ADT/StringMap.h"

#include <set>

namespace kiln {

std::string explainAbsorbed(llvm::StringRef Base, llvm::StringRef Absorbed) {
  bool Compute = Base == "conv" || Base == "conv_transpose" || Base == "linear" ||
                 Base == "gemm" || Base == "matmul";
  if (Absorbed == "batch_norm")
    return "fuse-conv-bn";
  if (Absorbed == "relu" || Absorbed == "clip" || Absorbed == "leaky_relu" ||
      Absorbed == "hard_swish")
    return Base == "add" ? "fuse-add-activation" : "fuse-activation";
  if (Absorbed == "pad" && Base == "conv")
    return "fold-pad-into-conv";
  if ((Absorbed == "mul" || Absorbed == "add") && Compute)
    return "fuse-conv-scale";
  if (Absorbed == "flatten" || Absorbed == "gemm" || Absorbed == "matmul" ||
      Absorbed == "reshape")
    return "canonicalize";
  if (Absorbed == "quantize" || Absorbed == "dequantize")
    return "quantize";
  return "merged";
}

std::string explainRemoved(llvm::StringRef Op) {
  if (Op == "dropout")
    return "remove-dropout";
  if (Op == "identity" || Op == "cast" || Op == "reshape" || Op == "transpose" ||
      Op == "slice" || Op == "pad")
    return "eliminate-noops";
  return "fold-constants/dce";
}

DiffStructure compareStructure(const std::vector<DiffNode> &A,
                               const std::map<std::string, int64_t> &OpsA,
                               const std::vector<DiffNode> &B,
                               const std::map<std::string, int64_t> &OpsB) {
  DiffStructure S;
  S.OpsA = OpsA;
  S.OpsB = OpsB;
  llvm::StringMap<const DiffNode *> AByName;
  for (const DiffNode &N : A)
    for (const std::string &Src : N.Sources)
      AByName.try_emplace(Src, &N);
  auto OpInA = [&](const std::string &Src) -> std::string {
    auto It = AByName.find(Src);
    return It == AByName.end() ? "?" : It->second->Op;
  };
  std::set<std::string> Seen;
  std::set<std::vector<std::string>> Counted;
  for (const DiffNode &N : B) {
    for (const std::string &Src : N.Sources)
      Seen.insert(Src);
    // Quantize/dequantize nodes inherit the provenance of the layer they
    // wrap; the layer itself is the fusion (counted once).
    if (N.Sources.size() < 2 || N.Op == "quantize" || N.Op == "dequantize" ||
        !Counted.insert(N.Sources).second)
      continue;
    // The node's own op as A knew it (a .kiln names runtime kinds).
    auto BaseIt = AByName.find(N.Sources[0]);
    const DiffNode *BaseInA = BaseIt == AByName.end() ? nullptr : BaseIt->second;
    std::string Base = BaseInA ? BaseInA->Op : N.Op;
    Fusion F{N.Op, N.Name, {}};
    for (size_t I = 1; I < N.Sources.size(); ++I) {
      // A source that A already held in the same node (A is itself
      // optimized, e.g. fp32 against int8 .kiln) was fused before B.
      auto It = AByName.find(N.Sources[I]);
      if (BaseInA && It != AByName.end() && It->second == BaseInA)
        continue;
      std::string Op = OpInA(N.Sources[I]);
      F.Absorbed.push_back({N.Sources[I], Op});
      ++S.ByPass[explainAbsorbed(Base, Op)][Op + " folded into " + Base];
    }
    if (!F.Absorbed.empty())
      S.Fusions.push_back(std::move(F));
  }
  // Without provenance in B (stripped, or a .kiln older than schema 1.2)
  // nothing can be said about what was removed.
  S.BHasProvenance = !Seen.empty();
  if (S.BHasProvenance)
    for (const DiffNode &N : A) {
      if (N.Sources.empty() || Seen.count(N.Sources[0]))
        continue;
      ++S.ByPass[explainRemoved(N.Op)][N.Op + " removed"];
    }
  return S;
}

} // namespace kiln

// The structural half of `kiln diff`: which ops model B has more or fewer
// of than model A, which nodes of B stand for several nodes of A (their
// provenance), and the pass that explains each fusion or removal.
#pragma once

#include "Tooling/DiffModel.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kiln {

/// A node of B that absorbed nodes of A.
struct Fusion {
  std::string Op, Name; // the node of B
  std::vector<std::pair<std::string, std::string>> Absorbed; // (name, A op)
};

struct DiffStructure {
  std::map<std::string, int64_t> OpsA, OpsB;
  std::vector<Fusion> Fusions;
  /// "fuse-conv-bn" -> ("batch_norm folded into conv" -> count)
  std::map<std::string, std::map<std::string, int64_t>> ByPass;
  /// False when B carries no provenance (stripped, or a .kiln older than
  /// schema 1.2): then nothing is said about what was removed.
  bool BHasProvenance = false;
};

/// The pass that explains node Base (in B) having absorbed a node of op
/// Absorbed (in A): "fuse-conv-bn", "fuse-activation", ..., or "merged".
std::string explainAbsorbed(llvm::StringRef Base, llvm::StringRef Absorbed);
/// The pass that explains a node of op Op (in A) missing from B.
std::string explainRemoved(llvm::StringRef Op);

/// Compares the nodes (with their provenance) and op counts of A and B.
DiffStructure compareStructure(const std::vector<DiffNode> &A,
                               const std::map<std::string, int64_t> &OpsA,
                               const std::vector<DiffNode> &B,
                               const std::map<std::string, int64_t> &OpsB);
inline DiffStructure compareStructure(const DiffModel &A, const DiffModel &B) {
  return compareStructure(A.nodes(), A.ops(), B.nodes(), B.ops());
}

} // namespace kiln

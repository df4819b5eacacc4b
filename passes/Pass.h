// The pass interface. A pass rewrites a Graph in place, says whether it
// changed anything, and counts what it did ("fuse-conv-bn: 52 fused").
#pragma once

#include "IR/Graph.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <memory>
#include <string>

namespace kiln {

/// Counters of one pass run, e.g. {"removed": 3}. Ordered for stable output.
class PassStats {
public:
  void add(llvm::StringRef What, int64_t N = 1) { Counts[What.str()] += N; }
  const std::map<std::string, int64_t> &counts() const { return Counts; }
  void merge(const PassStats &O) {
    for (const auto &[K, V] : O.Counts)
      Counts[K] += V;
  }

private:
  std::map<std::string, int64_t> Counts;
};

class Pass {
public:
  virtual ~Pass() = default;
  /// Returns true if the graph changed. An error means the graph is unusable
  /// (passes decline unsupported patterns silently instead).
  virtual llvm::Expected<bool> run(Graph &G, PassStats &Stats) = 0;
};

struct PassInfo {
  const char *Name;        // kebab-case, used on the CLI and in reports
  const char *Description; // one line
  std::unique_ptr<Pass> (*Create)();
};

/// Every registered pass (passes/Passes.def), in registry order.
llvm::ArrayRef<PassInfo> allPasses();
const PassInfo *findPass(llvm::StringRef Name);

} // namespace kiln

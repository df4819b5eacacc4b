// The .kir text form. Printing is deterministic: the same graph always gives
// the same text, and print(parse(print(g))) == print(g).
#pragma once

#include "IR/Graph.h"

#include "llvm/Support/raw_ostream.h"

#include <string>

namespace kiln {

/// Collects large constants for a `.kir.weights` sidecar: 64-byte-aligned
/// blobs, de-duplicated by content.
class WeightsSidecar {
public:
  /// Appends Bytes (unless an identical blob is already there) and returns
  /// its offset.
  uint64_t add(llvm::StringRef Bytes, uint64_t Hash);
  const std::string &bytes() const { return Data; }
  bool empty() const { return Data.empty(); }

private:
  std::string Data;
  std::vector<std::pair<uint64_t, uint64_t>> Index; // (hash, offset)
};

struct PrintOptions {
  /// Constants with at most this many elements print inline (dense[...]).
  int64_t InlineElementLimit = 16;
  /// Print every constant inline, whatever its size (--print-weights).
  bool PrintAllWeights = false;
  /// When set, larger constants go into the sidecar as blob(offset, size,
  /// hash); otherwise they print as elided("hash") and cannot be re-parsed.
  WeightsSidecar *Sidecar = nullptr;
  /// Print loc(...) provenance on nodes.
  bool PrintProvenance = true;
};

void printGraph(const Graph &G, llvm::raw_ostream &OS,
                const PrintOptions &Opts = {});
std::string printGraphToString(const Graph &G, const PrintOptions &Opts = {});

/// The line that opens a .kir written with a sidecar: `weights "NAME"`,
/// NAME being the sidecar's file name in the .kir's folder. It belongs to
/// the file, not the graph, so printGraph never prints it.
std::string sidecarLine(llvm::StringRef SidecarName);

/// Quotes Name for .kir unless it is a plain identifier ([A-Za-z0-9_.]+).
std::string quoteNameIfNeeded(llvm::StringRef Name);

} // namespace kiln

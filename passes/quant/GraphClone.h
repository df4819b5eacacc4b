// Copying a graph: same inputs, nodes (op, attributes, provenance, result
// names and types), outputs and order. Constants share their bytes, so a
// copy of a large model is cheap. --keep-float auto quantizes copies to
// measure them.
#pragma once

#include "IR/Graph.h"

#include "llvm/ADT/DenseMap.h"

#include <memory>

namespace kiln {

/// The copy, and for each node of G the corresponding node of the copy.
struct GraphCopy {
  std::unique_ptr<Graph> G;
  llvm::DenseMap<const Node *, Node *> NodeMap;
  Node *map(const Node *N) const { return NodeMap.lookup(N); }
};

GraphCopy cloneGraph(const Graph &G);

} // namespace kiln

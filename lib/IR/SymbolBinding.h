// Symbolic dims (an ONNX dim_param such as "N" or "batch") through a graph:
// which symbols a graph has, where shape inference lost one, and copies of
// the graph with each symbol bound to a size. A backend that writes
// batch-polymorphic files lowers such copies (backends/common/
// SymbolicModule.h).
#pragma once

#include "IR/Graph.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Error.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kiln {

/// The symbols of the graph inputs' dims, in order of first appearance.
std::vector<std::string> graphSymbols(const Graph &G);

/// Error naming the first node whose result has an unknown dim ("?") although
/// its operands have none: the op cannot carry the symbolic dims through
/// (for example a reshape to a shape computed at run time). Success when
/// every dim of every value is static or a symbol.
llvm::Error checkSymbolsCarried(const Graph &G);

/// A copy of G: the same nodes, names, attributes and sources; constants
/// share their bytes with G's. Map, when given, gets each value of G and
/// its copy.
std::unique_ptr<Graph>
cloneGraph(const Graph &G,
           llvm::DenseMap<const Value *, Value *> *Map = nullptr);

/// Gives every symbolic dim of the graph inputs its size from Sizes (every
/// symbol must be there) and re-infers every node's result types.
llvm::Error bindSymbols(Graph &G, const std::map<std::string, int64_t> &Sizes);

} // namespace kiln

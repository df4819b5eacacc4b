// The IR verifier: SSA form, topological order, use-list consistency,
// attributes against the op schema, and types against inference. It runs
// after parsing, after every pass in tests and debug builds, and before a
// backend sees a graph.
#pragma once

#include "IR/Graph.h"

#include "llvm/Support/Error.h"

namespace kiln {

/// Schema, op-specific checks and type inference for one node. Messages read
/// "node 'NAME' (OP): problem".
llvm::Error verifyNode(const Node &N);

/// Everything: structure, then every node. All problems are reported (up to
/// a cap), one per line.
llvm::Error verifyGraph(const Graph &G);

} // namespace kiln

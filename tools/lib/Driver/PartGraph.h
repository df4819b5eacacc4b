// A part of a graph as a graph of its own: what placement asks a target
// about (one node) and what each part of a partitioned file is compiled
// from (Placement.h).
#pragma once

#include "IR/Graph.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"

#include <memory>
#include <string>

namespace kiln {

/// A new graph of Nodes (in that order; nodes of G) whose inputs are
/// Inputs and whose outputs are Outputs (values of G, names and types
/// kept). Constants the nodes read, and casts or dequantizes of constants
/// (isPartOfNoPart), are cloned in; any other operand must be among Inputs
/// or computed by an earlier node of Nodes.
/// Names, when given, renames values (a boundary value without a name of
/// its own gets one, the same in every part).
std::unique_ptr<Graph>
extractPartGraph(const Graph &G, llvm::ArrayRef<const Node *> Nodes,
                 llvm::ArrayRef<const Value *> Inputs,
                 llvm::ArrayRef<const Value *> Outputs,
                 const llvm::DenseMap<const Value *, std::string> *Names = nullptr);

} // namespace kiln

// Fixing graph-input shapes (--input-shape name=1x3x224x224) and
// propagating them: every node's result types are re-inferred in order.
#pragma once

#include "IR/Graph.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <vector>

namespace kiln {

using InputShapeMap = llvm::StringMap<std::vector<int64_t>>;

/// Parses "name=1x3x224x224" (a bare "1x3x224x224" means the only input and is
/// stored under the empty name). Usage error on bad syntax.
llvm::Error parseInputShapeSpec(llvm::StringRef Spec, InputShapeMap &Out);

/// Sets the named inputs' shapes (rank must match; a static dim that differs
/// is an error) and re-infers every node's result types. Unknown names are an
/// error that lists the graph's inputs.
llvm::Error fixInputShapes(Graph &G, const InputShapeMap &Shapes);

} // namespace kiln

// Graphviz rendering of an IR graph for `kiln inspect --format dot|svg`.
// Constants are folded into their users' labels; a node that stands for
// several source nodes (a fusion) is labelled with what it absorbed.
#pragma once

#include "IR/Graph.h"

#include "llvm/Support/Error.h"

#include <string>

namespace kiln {

std::string graphToDot(const Graph &G);

/// Lays out Dot with Graphviz's `dot -Tsvg` (Debian package graphviz).
llvm::Expected<std::string> dotToSvg(const std::string &Dot);

} // namespace kiln

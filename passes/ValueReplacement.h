// Replacing a value by an equivalent one without changing the graph's
// interface: a graph output keeps its name, and a rewrite that would have to
// return a graph input (or the same value twice under two names) declines.
#pragma once

#include "IR/Graph.h"

namespace kiln {

/// True when From's uses can all become To while the graph outputs keep their
/// names: From is not an output, or To is a node result that is not an output.
bool canReplaceValue(const Graph &G, const Value *From, const Value *To);

/// Every use of From becomes To; if From was a graph output, To takes its
/// name. Call only when canReplaceValue(G, From, To) holds.
void replaceValue(Graph &G, Value *From, Value *To);

/// Erases the producer of V if it is a `const` nobody uses any more (so a
/// single pass run does not leave dead weights behind).
void eraseIfDeadConstant(Graph &G, Value *V);

} // namespace kiln

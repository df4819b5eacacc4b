#include "passes/ValueReplacement.h"

namespace kiln {

bool canReplaceValue(const Graph &G, const Value *From, const Value *To) {
  if (From == To || !G.isOutput(From))
    return From != To;
  return !To->isGraphInput() && !G.isOutput(To);
}

void replaceValue(Graph &G, Value *From, Value *To) {
  if (G.isOutput(From) && !From->name().empty())
    To->setName(From->name());
  G.replaceAllUsesWith(From, To);
}

void eraseIfDeadConstant(Graph &G, Value *V) {
  if (!V || !V->constant() || V->hasUses() || G.isOutput(V))
    return;
  G.erase(V->producer());
}

} // namespace kiln

// dce: removes nodes none of whose results is used by another node or by a
// graph output. Walks the graph backwards so a whole dead chain goes in one
// run. All kiln ops are side-effect free, so nothing else needs to stay.
#include "passes/Pass.h"

namespace kiln {

namespace {
class DeadCodeElimination : public Pass {
public:
  llvm::Expected<bool> run(Graph &G, PassStats &Stats) override {
    bool Changed = false;
    for (auto It = G.nodes().rbegin(); It != G.nodes().rend();) {
      Node &N = *It++;
      bool Live = false;
      for (unsigned I = 0; I < N.numResults() && !Live; ++I)
        Live = N.result(I)->hasUses() || G.isOutput(N.result(I));
      if (Live)
        continue;
      G.erase(&N);
      Stats.add("removed");
      Changed = true;
    }
    return Changed;
  }
};
} // namespace

std::unique_ptr<Pass> createDeadCodeElimination() {
  return std::make_unique<DeadCodeElimination>();
}

} // namespace kiln

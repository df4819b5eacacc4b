#include "passes/Pipelines.h"

namespace kiln {

std::vector<std::string> pipelineForLevel(int OptLevel) {
  if (OptLevel <= 0)
    return {}; // -O0: verification only
  // -O1 and -O2 grow with the pass issue; dce runs last so every rewrite's
  // leftovers go.
  return {"dce"};
}

} // namespace kiln

// Constant folding with a size cap, shared by fold-constants (the model never
// grows) and materialize-constants (what a runtime target needs constant).
#pragma once

#include "passes/Pass.h"

#include <cstddef>
#include <memory>

namespace kiln {

struct FoldSizeCap {
  size_t MaxResultBytes; // a node's kept results together
  size_t GrowthMargin;   // how much larger than its constant operands
};

std::unique_ptr<Pass> createFoldConstantsWith(FoldSizeCap Cap);

} // namespace kiln

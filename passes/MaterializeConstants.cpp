// materialize-constants: fold-constants without its growth cap. Weights and
// masks that a model computes from constants (ConstantOfShape weights in the
// ONNX model zoo's light models, Swin's shifted-window attention mask built
// by ScatterND, positional encodings) become constants even where that makes
// the file larger: the runtime targets have no kernels for computing
// weights, so the alternative is refusing the model. Runs in every runtime
// target's pipeline, after fold-constants (--target onnx keeps the small
// model).
// The only cap is limits::MaxFileBytes, what a .kiln file can hold.
#include "passes/FoldConstants.h"

#include "Support/Limits.h"

#include <limits>

namespace kiln {

std::unique_ptr<Pass> createMaterializeConstants() {
  return createFoldConstantsWith(
      {size_t(limits::MaxFileBytes), std::numeric_limits<size_t>::max() / 2});
}

} // namespace kiln

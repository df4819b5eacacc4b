// Placeholder: registerNNKernels() registers the conv, pooling, matmul, norm
// and resize kernels defined in the sibling files.
#include "Interpreter/Kernel.h"

namespace kiln {
void registerNNKernels() {}
} // namespace kiln

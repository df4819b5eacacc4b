// Some node tests feed shape-like operands (Squeeze/Unsqueeze axes,
// ReduceSum axes with keepdims=0) as graph inputs. kiln is an offline
// compiler: such operands must be known when the model is compiled, so the
// runner retries those tests with their integer inputs baked into the model
// as initializers (the values of the data set being run).
#pragma once

#include "IR/Graph.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln::conformance {

/// Imports ModelPath with every integer-typed graph input replaced by an
/// initializer read from the matching InputFiles entry. Frozen receives the
/// indices of the inputs that were replaced.
llvm::Expected<std::unique_ptr<Graph>>
importWithFrozenIntInputs(const std::string &ModelPath,
                          const std::vector<std::string> &InputFiles,
                          std::vector<size_t> &Frozen);

} // namespace kiln::conformance

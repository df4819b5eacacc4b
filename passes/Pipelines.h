// The pass pipelines for each -O level.
#pragma once

#include <string>
#include <vector>

namespace kiln {

/// Pass names for -O0, -O1 or -O2 (the default), in order.
std::vector<std::string> pipelineForLevel(int OptLevel);

/// The same for a target whose runtime cannot compute weights nor run a
/// recurrent layer whole (every kiln runtime target): -O1 and up also
/// materialize constant computations that fold-constants leaves because
/// folding them grows the model, and unroll lstm/gru/rnn layers.
std::vector<std::string> pipelineForRuntimeTarget(int OptLevel);

} // namespace kiln

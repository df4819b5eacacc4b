// The pass pipelines for each -O level.
#pragma once

#include "llvm/ADT/StringRef.h"

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

/// pipelineForRuntimeTarget, then Expansions (expand-* passes: ops the
/// target has no kernel for, written with ones it has), after the fusions
/// so that a fused form (gelu) is expanded once, then the clean-up again.
/// The runtime pipeline is its prefix: a .kir that went through it (kiln
/// opt --pass-record) continues with the rest (PassRecord.h).
std::vector<std::string>
pipelineWithExpansions(int OptLevel, const std::vector<std::string> &Expansions);

/// The IR ops a pass rewrites into others (unroll-recurrence: lstm, gru,
/// rnn; expand-gelu: gelu...), so that a target whose pipeline runs it takes
/// them without a kernel of their own; empty for other passes.
std::vector<std::string> opsRewrittenBy(llvm::StringRef Pass);

/// NNAPI: layer_norm, gelu and batched matmul expanded, transposes above
/// rank 4 lowered.
std::vector<std::string> pipelineForNnapiTarget(int OptLevel);

} // namespace kiln

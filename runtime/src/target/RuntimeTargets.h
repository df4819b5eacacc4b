// The runtime's target registry: the entries Targets.def lists, and what
// the rest of the runtime asks of them. Nothing outside a target's folder
// switches on fb::Target; it asks here.
#pragma once

#include "target/RuntimeTarget.h"

#include <vector>

namespace kiln::rt {

/// Every target this runtime knows, in Targets.def's order.
const std::vector<const RuntimeTarget *> &runtimeTargets();

/// T's entry, or null for a target this runtime does not know.
const RuntimeTarget *findRuntimeTarget(fb::Target T);

/// "cpu", "vulkan", ... ("unknown" outside the registry).
const char *targetName(fb::Target T);

/// Verifies Bytes (loader/ModelVerifier.cpp) for the registry's targets
/// and builds the model. Errors are KILN_ERROR_INVALID_MODEL (or
/// UNSUPPORTED for another schema version or an unknown target). A
/// batch-polymorphic file is checked and described with every symbol at 1.
Status loadVerifiedModel(std::shared_ptr<ModelBytes> Bytes,
                         std::shared_ptr<const LoadedModel> &Out);

/// The batch-polymorphic model Model at other symbol sizes (one per symbol,
/// each at least 1): every check of loadVerifiedModel runs again at those
/// sizes (shapes, limits, each operator's contract). Errors are
/// KILN_ERROR_INVALID_ARGUMENT, naming the tensor or operator.
Status specializeModel(const LoadedModel &Model,
                       const std::vector<int64_t> &Sizes,
                       std::shared_ptr<const LoadedModel> &Out);

/// The executor for Model's target, or KILN_ERROR_UNSUPPORTED naming the
/// build option that would give it one. Previous: as
/// RuntimeTarget::CreateExecutor.
Status createExecutor(std::shared_ptr<const LoadedModel> Model,
                      const SessionOptions &Opts, std::unique_ptr<Executor> &Out,
                      Executor *Previous = nullptr);

/// Every target's part of the C API's options, into Opts.
Status readTargetOptions(const kiln_session_options &C, SessionOptions &Opts);

} // namespace kiln::rt

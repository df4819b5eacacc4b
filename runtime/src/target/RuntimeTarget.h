// A target on the runtime's side, in one value: what the loader needs
// (TargetRules: the payload, what its files may hold, the payload's
// verifier), how a session gets its executor, and how the C API's options
// reach it. Each target's folder defines its entry (cpu/CpuTarget.cpp,
// vulkan/VulkanTarget.cpp, ...) and runtime/src/Targets.def lists them; the
// loader and the session loop over that table (RuntimeTargets.h) and name
// no target. Verifiers are in every build (tools read any file); the
// executor only where the build has the target's API (KILN_WITH_<T>).
#pragma once

#include "loader/TargetRules.h"
#include "target/Executor.h"

#include <kiln/kiln.h>

#include <memory>

namespace kiln::rt {

struct RuntimeTarget {
  TargetRules Loader;
  /// What a build needs for the executor, for the message of one without
  /// it: "Vulkan (KILN_WITH_VULKAN)"; null where every build has it.
  const char *BuildOption = nullptr;
  /// Makes the executor for a session; null where this build has none.
  /// Previous: the session's executor before a resize, whose
  /// batch-independent parts the new one may take (the CPU's).
  Status (*CreateExecutor)(std::shared_ptr<const LoadedModel> Model,
                           const SessionOptions &Opts,
                           std::unique_ptr<Executor> &Out,
                           Executor *Previous) = nullptr;
  /// Checks and reads this target's part of the C API's options (its struct
  /// behind kiln_session_options, which ends at the caller's struct_size)
  /// into Opts. Null: the target has no options. Errors are
  /// KILN_ERROR_INVALID_ARGUMENT.
  Status (*ReadOptions)(const kiln_session_options &C,
                        SessionOptions &Opts) = nullptr;
};

/// RuntimeTarget::CreateExecutor for an executor class with
/// `static Status create(Model, Opts, std::unique_ptr<ExecutorT> &)`.
template <typename ExecutorT>
Status createExecutorOf(std::shared_ptr<const LoadedModel> Model,
                        const SessionOptions &Opts,
                        std::unique_ptr<Executor> &Out, Executor *) {
  std::unique_ptr<ExecutorT> E;
  if (Status S = ExecutorT::create(std::move(Model), Opts, E))
    return S;
  Out = std::move(E);
  return Status::ok();
}

/// Whether C, which ends at C.struct_size bytes, has the field at Offset.
inline bool hasOptionsField(const kiln_session_options &C, size_t Offset) {
  return C.struct_size > Offset;
}

} // namespace kiln::rt

// The executor of each target this runtime runs. A new target adds its
// folder beside cpu/, a case here and one in loader/Targets.cpp.
#include "cpu/CpuExecutor.h"
#include "loader/Targets.h"
#include "session/Executor.h"

namespace kiln::rt {

Status createExecutor(std::shared_ptr<const LoadedModel> Model,
                      const SessionOptions &Opts,
                      std::unique_ptr<Executor> &Out) {
  switch (Model->Target) {
  case fb::Target::CPU: {
    std::unique_ptr<CpuExecutor> Cpu;
    if (Status S = CpuExecutor::create(std::move(Model), Opts, Cpu))
      return S;
    Out = std::move(Cpu);
    return Status::ok();
  }
  default: // the loader admits only the targets runtimeRuns() names
    return unsupported("no executor for the ", targetName(Model->Target),
                       " target");
  }
}

} // namespace kiln::rt

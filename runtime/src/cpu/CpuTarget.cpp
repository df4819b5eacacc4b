// The CPU target's entry in the runtime's registry (Targets.def): files
// with an empty payload whose operators run on the runtime's kernels, in
// every build; the only batch-polymorphic ones.
#include "cpu/CpuExecutor.h"
#include "target/RuntimeTarget.h"

#include <cstddef>

namespace kiln::rt {

namespace {

Status createCpuExecutor(std::shared_ptr<const LoadedModel> Model,
                         const SessionOptions &Opts,
                         std::unique_ptr<Executor> &Out, Executor *Previous) {
  std::unique_ptr<CpuExecutor> Cpu;
  if (Status S = CpuExecutor::create(std::move(Model), Opts, Cpu,
                                     dynamic_cast<CpuExecutor *>(Previous)))
    return S;
  Out = std::move(Cpu);
  return Status::ok();
}

/// kiln_cpu_options, and the CPU knobs kiln_session_options carried before
/// it (either one set turns a knob on).
Status readCpuOptions(const kiln_session_options &C, SessionOptions &Opts) {
  Opts.Cpu.ForceReference = C.force_reference != 0;
  Opts.Cpu.DisableOnednn =
      hasOptionsField(C, offsetof(kiln_session_options, disable_onednn)) &&
      C.disable_onednn != 0;
  Opts.Cpu.HugePageWeights =
      hasOptionsField(C, offsetof(kiln_session_options, huge_page_weights)) &&
      C.huge_page_weights != 0;
  const kiln_cpu_options *Cpu =
      hasOptionsField(C, offsetof(kiln_session_options, cpu)) ? C.cpu : nullptr;
  if (!Cpu)
    return Status::ok();
  if (Cpu->struct_size != sizeof(kiln_cpu_options))
    return invalidArgument("kiln_session_create: cpu options not initialized "
                           "with kiln_cpu_options_init");
  Opts.Cpu.ForceReference |= Cpu->force_reference != 0;
  Opts.Cpu.DisableOnednn |= Cpu->disable_onednn != 0;
  Opts.Cpu.HugePageWeights |= Cpu->huge_page_weights != 0;
  return Status::ok();
}

} // namespace

const RuntimeTarget &cpuRuntimeTarget() {
  static const RuntimeTarget Entry = [] {
    RuntimeTarget T;
    T.Loader.Value = fb::Target::CPU;
    T.Loader.Name = "cpu";
    T.Loader.Payload = fb::TargetPayload::CpuPayload;
    T.Loader.Polymorphic = true;
    T.CreateExecutor = createCpuExecutor;
    T.ReadOptions = readCpuOptions;
    return T;
  }();
  return Entry;
}

} // namespace kiln::rt

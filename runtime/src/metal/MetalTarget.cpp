// The Metal target's entry in the runtime's registry (Targets.def): its
// payload is verified in every build, so that tools read Metal files
// anywhere; the executor (Objective-C++) needs KILN_WITH_METAL, on Apple.
#include "gpu/GpuBuffersVerifier.h"
#include "metal/MetalPayloadVerifier.h"
#include "target/RuntimeTarget.h"
#ifdef KILN_WITH_METAL
#include "metal/MetalExecutor.h"
#endif

#include <cstddef>

namespace kiln::rt {

namespace {

Status verifyMetalFile(const fb::Model &M, LoadedModel &LM) {
  if (Status S = verifyGpuIo(LM))
    return S;
  return verifyMetalPayload(M, LM.Tensors);
}

Status readMetalOptions(const kiln_session_options &C, SessionOptions &Opts) {
  const kiln_metal_options *Metal =
      hasOptionsField(C, offsetof(kiln_session_options, metal)) ? C.metal
                                                                : nullptr;
  if (!Metal)
    return Status::ok();
  if (Metal->struct_size != sizeof(kiln_metal_options))
    return invalidArgument("kiln_session_create: metal options not "
                           "initialized with kiln_metal_options_init");
  if (Metal->binary_archive_path)
    Opts.Metal.BinaryArchivePath = Metal->binary_archive_path;
  return Status::ok();
}

} // namespace

const RuntimeTarget &metalRuntimeTarget() {
  static const RuntimeTarget Entry = [] {
    RuntimeTarget T;
    T.Loader.Value = fb::Target::METAL;
    T.Loader.Name = "metal";
    T.Loader.Payload = fb::TargetPayload::MetalPayload;
    T.Loader.PayloadRuns = true;
    T.Loader.GpuLayouts = true;
    T.Loader.VerifyPayload = verifyMetalFile;
    T.BuildOption = "Metal (KILN_WITH_METAL, Apple only)";
#ifdef KILN_WITH_METAL
    T.CreateExecutor = createExecutorOf<metal::MetalExecutor>;
#endif
    T.ReadOptions = readMetalOptions;
    return T;
  }();
  return Entry;
}

} // namespace kiln::rt

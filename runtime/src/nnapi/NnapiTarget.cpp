// The NNAPI target's entry in the runtime's registry (Targets.def): its
// payload (the NNAPI model and the host steps around it) is verified in
// every build; the executor, which dlopens libneuralnetworks.so, needs
// KILN_WITH_NNAPI.
#include "nnapi/NnapiPayloadVerifier.h"
#include "target/RuntimeTarget.h"
#ifdef KILN_WITH_NNAPI
#include "nnapi/NnapiExecutor.h"
#endif

#include <cstddef>

namespace kiln::rt {

namespace {

Status verifyNnapiFile(const fb::Model &M, LoadedModel &LM) {
  return verifyNnapiPayload(M, LM.Tensors);
}

Status readNnapiOptions(const kiln_session_options &C, SessionOptions &Opts) {
  const kiln_nnapi_options *Nnapi =
      hasOptionsField(C, offsetof(kiln_session_options, nnapi)) ? C.nnapi
                                                                : nullptr;
  if (!Nnapi)
    return Status::ok();
  if (Nnapi->struct_size != sizeof(kiln_nnapi_options))
    return invalidArgument("kiln_session_create: nnapi options not "
                           "initialized with kiln_nnapi_options_init");
  if (Nnapi->preference < KILN_NNAPI_PREFER_LOW_POWER ||
      Nnapi->preference > KILN_NNAPI_PREFER_SUSTAINED_SPEED)
    return invalidArgument("kiln_session_create: nnapi preference is not a "
                           "KILN_NNAPI_PREFER_* value");
  if (Nnapi->library)
    Opts.Nnapi.Library = Nnapi->library;
  Opts.Nnapi.Preference = Nnapi->preference;
  Opts.Nnapi.DisallowCpu = Nnapi->disallow_cpu != 0;
  if (Nnapi->cache_dir)
    Opts.Nnapi.CacheDir = Nnapi->cache_dir;
  return Status::ok();
}

} // namespace

const RuntimeTarget &nnapiRuntimeTarget() {
  static const RuntimeTarget Entry = [] {
    RuntimeTarget T;
    T.Loader.Value = fb::Target::NNAPI;
    T.Loader.Name = "nnapi";
    T.Loader.Payload = fb::TargetPayload::NnapiPayload;
    T.Loader.PayloadRuns = true;
    T.Loader.VerifyPayload = verifyNnapiFile;
    T.BuildOption = "NNAPI (KILN_WITH_NNAPI)";
#ifdef KILN_WITH_NNAPI
    T.CreateExecutor = createExecutorOf<NnapiExecutor>;
#endif
    T.ReadOptions = readNnapiOptions;
    return T;
  }();
  return Entry;
}

} // namespace kiln::rt

#include "loader/Targets.h"

namespace kiln::rt {

namespace {

/// The payload each target's files carry.
fb::TargetPayload payloadOf(fb::Target T) {
  switch (T) {
  case fb::Target::CPU:
    return fb::TargetPayload::CpuPayload;
  case fb::Target::VULKAN:
    return fb::TargetPayload::VulkanPayload;
  case fb::Target::NNAPI:
    return fb::TargetPayload::NnapiPayload;
  case fb::Target::METAL:
    return fb::TargetPayload::MetalPayload;
  default:
    return fb::TargetPayload::NONE;
  }
}

/// Every target this build runs, for error messages: "cpu".
std::string runnableTargets() {
  std::string Names;
  for (auto T = uint8_t(fb::Target::MIN); T <= uint8_t(fb::Target::MAX); ++T)
    if (runtimeRuns(fb::Target(T)))
      Names += (Names.empty() ? "" : ", ") + std::string(targetName(fb::Target(T)));
  return Names;
}

} // namespace

const char *targetName(fb::Target T) {
  switch (T) {
  case fb::Target::CPU:
    return "cpu";
  case fb::Target::VULKAN:
    return "vulkan";
  case fb::Target::METAL:
    return "metal";
  case fb::Target::NNAPI:
    return "nnapi";
  default:
    return "unknown";
  }
}

bool runtimeRuns(fb::Target T) {
#ifdef KILN_WITH_VULKAN
  if (T == fb::Target::VULKAN)
    return true;
#endif
#ifdef KILN_WITH_NNAPI
  if (T == fb::Target::NNAPI)
    return true;
#endif
#ifdef KILN_WITH_METAL
  if (T == fb::Target::METAL)
    return true;
#endif
  return T == fb::Target::CPU;
}

bool loaderVerifies(fb::Target T) {
  return T == fb::Target::CPU || T == fb::Target::VULKAN ||
         T == fb::Target::NNAPI || T == fb::Target::METAL;
}

Status resolveTarget(const fb::Model &M, fb::Target &Out) {
  fb::Target T = M.target();
  if (T == fb::Target::UNKNOWN) {
    if (M.schema_minor() >= 4)
      return invalidModel("the file names no target (schema ", M.schema_major(),
                          ".", M.schema_minor(), " files name one)");
    T = fb::Target::CPU; // before 1.4, every file was a CPU file
  } else if (!loaderVerifies(T)) {
    if (uint8_t(T) > uint8_t(fb::Target::MAX))
      return unsupported("the file is for target ", unsigned(T),
                         ", which this runtime does not know; it runs: ",
                         runnableTargets(), " (update the kiln runtime)");
    return unsupported("the file is for the ", targetName(T),
                       " target, and this runtime runs only: ",
                       runnableTargets(), "; convert the model for one of "
                       "those, or use a runtime built with ", targetName(T));
  }
  if (M.payload_type() != fb::TargetPayload::NONE &&
      M.payload_type() != payloadOf(T))
    return invalidModel("the payload (", fb::EnumNameTargetPayload(M.payload_type()),
                        ") is not the ", targetName(T), " target's");
  if (M.schema_minor() >= 4 && M.payload_type() == fb::TargetPayload::NONE)
    return invalidModel("the file has no ", targetName(T), " payload");
  Out = T;
  return Status::ok();
}

} // namespace kiln::rt

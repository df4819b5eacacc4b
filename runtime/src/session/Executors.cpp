// The executor of each target this runtime runs. A new target adds its
// folder beside cpu/, a case here and one in loader/Targets.cpp.
#include "cpu/CpuExecutor.h"
#include "loader/Targets.h"
#include "session/Executor.h"
#ifdef KILN_WITH_VULKAN
#include "vulkan/VulkanExecutor.h"
#endif
#ifdef KILN_WITH_NNAPI
#include "nnapi/NnapiExecutor.h"
#endif
#ifdef KILN_WITH_METAL
#include "metal/MetalExecutor.h"
#endif

namespace kiln::rt {

Status createExecutor(std::shared_ptr<const LoadedModel> Model,
                      const SessionOptions &Opts,
                      std::unique_ptr<Executor> &Out, Executor *Previous) {
  switch (Model->Target) {
  case fb::Target::CPU: {
    std::unique_ptr<CpuExecutor> Cpu;
    if (Status S = CpuExecutor::create(std::move(Model), Opts, Cpu,
                                       dynamic_cast<CpuExecutor *>(Previous)))
      return S;
    Out = std::move(Cpu);
    return Status::ok();
  }
  case fb::Target::VULKAN: {
#ifdef KILN_WITH_VULKAN
    std::unique_ptr<vk::VulkanExecutor> Vk;
    if (Status S = vk::VulkanExecutor::create(std::move(Model), Opts, Vk))
      return S;
    Out = std::move(Vk);
    return Status::ok();
#else // the loader verifies Vulkan files in every build (kiln inspect)
    return unsupported("the file is for the vulkan target, and this runtime "
                       "was built without Vulkan (KILN_WITH_VULKAN)");
#endif
  }
  case fb::Target::NNAPI: {
#ifdef KILN_WITH_NNAPI
    std::unique_ptr<NnapiExecutor> Nn;
    if (Status S = NnapiExecutor::create(std::move(Model), Opts, Nn))
      return S;
    Out = std::move(Nn);
    return Status::ok();
#else // the loader verifies NNAPI files in every build
    return unsupported("the file is for the nnapi target, and this runtime "
                       "was built without NNAPI (KILN_WITH_NNAPI)");
#endif
  }
  case fb::Target::METAL: {
#ifdef KILN_WITH_METAL
    std::unique_ptr<metal::MetalExecutor> Mtl;
    if (Status S = metal::MetalExecutor::create(std::move(Model), Opts, Mtl))
      return S;
    Out = std::move(Mtl);
    return Status::ok();
#else // the loader verifies Metal files in every build (kiln inspect)
    return unsupported("the file is for the metal target, and this runtime "
                       "was built without Metal (KILN_WITH_METAL, Apple only)");
#endif
  }
  default: // the loader admits only the targets loaderVerifies() names
    return unsupported("no executor for the ", targetName(Model->Target),
                       " target");
  }
}

} // namespace kiln::rt

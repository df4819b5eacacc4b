#include "Tooling/SessionFlags.h"

namespace kiln {

void addSessionFlags(CLI::App &Sub, CompiledModel::SessionSettings &S,
                     const std::string &Prefix) {
  Sub.add_flag("--no-onednn", S.DisableOnednn,
               Prefix + "run the convolutions on XNNPACK even where this "
                        "runtime has oneDNN (to compare the two)");
  Sub.add_flag("--reference-kernels", S.ForceReference,
               Prefix + "run every CPU operator on kiln's reference kernels "
                        "(kiln_cpu_options force_reference; to check the "
                        "optimized kernels against them)");
  Sub.add_flag("--huge-pages", S.HugePages,
               Prefix + "put the weights oneDNN converts on transparent huge "
                        "pages (kiln_cpu_options huge_page_weights)");
  Sub.add_flag("--verify-weights", S.VerifyWeightHashes,
               Prefix + "hash every weight segment and compare it with the "
                        "hash the file records before running "
                        "(kiln_session_options verify_weight_hashes)");
  addVulkanSessionFlags(Sub, S, Prefix);
  addGpuKernelPolicyFlag(Sub, Prefix);
}

void addGpuKernelPolicyFlag(CLI::App &Sub, const std::string &Prefix) {
  // The policy is the process's (kiln_set_gpu_kernel_policy) and applies
  // when a file loads, so it is set as the flag is parsed.
  Sub.add_option_function<std::string>(
         "--gpu-kernels",
         [](const std::string &Policy) {
           kiln_set_gpu_kernel_policy(Policy == "any-valid"
                                          ? KILN_GPU_KERNELS_ANY_VALID
                                          : KILN_GPU_KERNELS_CATALOG);
         },
         Prefix + "GPU files: catalog (default: only the kernels this kiln "
                  "was built with) or any-valid (a developer option: any "
                  "SPIR-V or MSL that passes the runtime's checks; "
                  "docs/security.md)")
      ->check(CLI::IsMember({"catalog", "any-valid"}));
}

void addVulkanSessionFlags(CLI::App &Sub, CompiledModel::SessionSettings &S,
                           const std::string &Prefix) {
  Sub.add_option("--vulkan-device", S.VulkanDevice,
                 Prefix + "Vulkan files: the device to run on, counting the "
                          "devices with a compute queue from 0 (default: the "
                          "first)")
      ->check(CLI::Range(0, 1 << 20));
  Sub.add_flag("--vulkan-validation", S.VulkanValidation,
               Prefix + "Vulkan files: check every Vulkan call with the "
                        "Khronos validation layer (slow; fails without it)");
  Sub.add_option("--pipeline-cache", S.PipelineCacheDir,
                 Prefix + "Vulkan files: keep compiled pipelines in this "
                          "folder across runs (created if missing)");
}

} // namespace kiln

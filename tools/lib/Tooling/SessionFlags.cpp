#include "Tooling/SessionFlags.h"

namespace kiln {

void addSessionFlags(CLI::App &Sub, CompiledModel::SessionSettings &S,
                     const std::string &Prefix) {
  Sub.add_flag("--no-onednn", S.DisableOnednn,
               Prefix + "run the convolutions on XNNPACK even where this "
                        "runtime has oneDNN (to compare the two)");
  Sub.add_flag("--huge-pages", S.HugePages,
               Prefix + "put the weights oneDNN converts on transparent huge "
                        "pages (kiln_cpu_options huge_page_weights)");
  Sub.add_flag("--verify-weights", S.VerifyWeightHashes,
               Prefix + "hash every weight segment and compare it with the "
                        "hash the file records before running "
                        "(kiln_session_options verify_weight_hashes)");
  addVulkanSessionFlags(Sub, S, Prefix);
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

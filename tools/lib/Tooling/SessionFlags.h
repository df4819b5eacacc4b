// The command-line flags that choose how the kiln runtime creates a session,
// shared by `kiln run` (for .kiln models) and `kiln bench`:
//   --no-onednn  --reference-kernels  --huge-pages  --verify-weights
//   --vulkan-device N  --vulkan-validation  --pipeline-cache DIR (Vulkan files)
//   --gpu-kernels catalog|any-valid (GPU files: kiln_set_gpu_kernel_policy)
// --threads stays with each command: their defaults differ, and `kiln run`
// also gives it to the reference interpreter.
#pragma once

#include "Tooling/CompiledModel.h"

#include <CLI/CLI.hpp>

#include <string>

namespace kiln {

/// Adds the flags to Sub, writing into S. Prefix starts each help text (e.g.
/// ".kiln: " where the command also runs other models).
void addSessionFlags(CLI::App &Sub, CompiledModel::SessionSettings &S,
                     const std::string &Prefix = "");
/// --gpu-kernels: the process's GPU kernel policy, set as it is parsed.
void addGpuKernelPolicyFlag(CLI::App &Sub, const std::string &Prefix = "");
/// Only the Vulkan flags (for `kiln diff`, whose .kiln sides run on the
/// CPU executor's defaults).
void addVulkanSessionFlags(CLI::App &Sub, CompiledModel::SessionSettings &S,
                           const std::string &Prefix = "");

} // namespace kiln

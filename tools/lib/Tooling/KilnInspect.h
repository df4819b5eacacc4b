// `kiln inspect` of a .kiln file: the compiled model as the runtime will run
// it (operators, engines, NHWC shapes), what it was made from (metadata),
// and where its bytes go; for a Vulkan file also its kernels, dispatches
// and buffers (VulkanInspect.h), for a Metal file its MSL kernels,
// dispatches and buffers (MetalInspect.h), and one kernel's source on its
// own (--kernel). Text, JSON, and Graphviz DOT of the
// operators (fused operators labelled with the source nodes they absorbed).
#pragma once

#include "Tooling/KilnFileStats.h"

#include "llvm/Support/JSON.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace kiln {

std::string kilnTextReport(const KilnFileStats &S, bool Nodes);
llvm::json::Value kilnJsonReport(const KilnFileStats &S, bool Nodes);
std::string kilnToDot(const KilnFileStats &S);

/// The kernels a GPU file holds, in file order: a Metal file's MetalKernel
/// names, a Vulkan file's VulkanShader names; none for the other targets.
std::vector<std::string> kilnKernelNames(const fb::ModelT &M);

/// `kiln inspect --kernel NAME`: the source of the kernel named Name, as
/// the file holds it: a Metal kernel's MSL verbatim, a Vulkan shader's
/// SPIR-V disassembled (where the build has SPIRV-Tools). Bad input, naming
/// Path, when the file has no kernels (a CPU or NNAPI file) or none of that
/// name (the message lists the names it has).
llvm::Expected<std::string> kilnKernelSource(const fb::ModelT &M,
                                             llvm::StringRef Path,
                                             llvm::StringRef Name);

/// "1.30 M", "12.5 K", "512"; "1.20 MiB", "3.0 KiB", "12 B".
std::string humanCount(int64_t N);
std::string humanBytes(int64_t N);

} // namespace kiln

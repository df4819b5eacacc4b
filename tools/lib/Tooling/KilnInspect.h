// `kiln inspect` of a .kiln file: the compiled model as the runtime will run
// it (operators, engines, NHWC shapes), what it was made from (metadata),
// and where its bytes go; for a Vulkan file also its kernels, dispatches
// and buffers (VulkanInspect.h). Text, JSON, and Graphviz DOT of the
// operators (fused operators labelled with the source nodes they absorbed).
#pragma once

#include "Tooling/KilnFileStats.h"

#include "llvm/Support/JSON.h"

#include <string>

namespace kiln {

std::string kilnTextReport(const KilnFileStats &S, bool Nodes);
llvm::json::Value kilnJsonReport(const KilnFileStats &S, bool Nodes);
std::string kilnToDot(const KilnFileStats &S);

/// "1.30 M", "12.5 K", "512"; "1.20 MiB", "3.0 KiB", "12 B".
std::string humanCount(int64_t N);
std::string humanBytes(int64_t N);

} // namespace kiln

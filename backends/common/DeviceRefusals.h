// Reasons the device targets (Vulkan, Metal, NNAPI) give for operators that
// run on the CPU target only, shared so they say the same thing.
#pragma once

namespace kiln {

/// BOX_NMS (`kiln convert --nms`): sorting and greedy suppression are host
/// work, which the device targets leave to the CPU target: with --fallback
/// cpu it runs there after the device's partition.
inline constexpr const char *BoxNmsOnCpuOnly =
    "detection post-processing runs on the CPU target; add --fallback cpu "
    "(the device runs the network, the CPU the NMS), convert for --target "
    "cpu, or leave out --nms and run NMS in the app";

} // namespace kiln

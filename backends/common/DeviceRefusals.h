// Reasons the device targets (Vulkan, Metal, NNAPI) give for operators that
// run on the CPU target only, shared so they say the same thing.
#pragma once

namespace kiln {

/// BOX_NMS (`kiln convert --nms`): sorting and greedy suppression are host
/// work. The device targets will hand it to the CPU through partitions with
/// CPU fallback; until then they refuse it.
inline constexpr const char *BoxNmsOnCpuOnly =
    "detection post-processing runs on the CPU target only until device "
    "files can fall back to the CPU; convert for --target cpu, or leave out "
    "--nms and run NMS in the app";

} // namespace kiln

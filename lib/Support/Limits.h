// Hard limits on untrusted input. Every parser checks against these before it
// allocates, so a hostile file gets a clear error instead of an OOM or a hang.
#pragma once

#include <cstdint>

namespace kiln::limits {

constexpr int64_t MaxRank = 16;
constexpr int64_t MaxDim = int64_t(1) << 40;
/// Elements in one tensor (16 Gi elements: 64 GiB of f32).
constexpr int64_t MaxElements = int64_t(1) << 34;
/// Kernel sizes, strides, dilations, paddings and output paddings of
/// sliding-window ops (2^24, the runtime's limits::MaxSpatialParam): a
/// .kiln holds them as uint32, and int64 window arithmetic on them and on
/// dims up to MaxDim cannot overflow.
constexpr int64_t MaxSpatialParam = int64_t(1) << 24;
/// Bytes in one input file.
constexpr uint64_t MaxFileBytes = uint64_t(8) << 30;
/// Nesting depth for anything recursive (subgraphs, brackets).
constexpr int MaxNesting = 64;

} // namespace kiln::limits

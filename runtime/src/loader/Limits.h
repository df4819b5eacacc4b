// Limits on what a .kiln file may describe. They bound the work and memory
// the loader spends on an untrusted file before it rejects it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace kiln::rt::limits {

/// Tensor rank (XNNPACK's own limit is 6).
constexpr size_t MaxRank = 8;
/// Symbolic dims a batch-polymorphic file may name (schema 1.9).
constexpr size_t MaxSymbols = 6;
constexpr size_t MaxTensors = size_t(1) << 20;
constexpr size_t MaxOperators = size_t(1) << 20;
constexpr size_t MaxOperatorInputs = 4096;
/// Parts of a partitioned file (schema 1.13).
constexpr size_t MaxPartitions = 256;
/// Bytes of one tensor (1 TiB: element counts times sizes never overflow).
constexpr uint64_t MaxTensorBytes = uint64_t(1) << 40;
/// Inner blocks of a BLOCKED tensor (oneDNN's DNNL_MAX_NDIMS).
constexpr size_t MaxInnerBlocks = 12;
/// Kernel sizes, strides, dilations and paddings of spatial operators.
constexpr uint32_t MaxSpatialParam = uint32_t(1) << 24;
/// FlatBuffers verifier: nesting depth and number of tables.
constexpr uint32_t MaxDepth = 64;
constexpr uint32_t MaxTables = 10'000'000;

} // namespace kiln::rt::limits

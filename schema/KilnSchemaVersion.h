// The version of schema/kiln.fbs that this source tree writes and reads
// (rules in schema/README.md). Shared by the writer and the runtime.
#pragma once

#include <cstdint>

namespace kiln::fb {

/// Bumped for an incompatible change; a runtime reads only its own major.
constexpr uint32_t SchemaMajor = 1;
/// Bumped for every appended field, table, enum value or union member, and
/// for operand types an operator did not take before.
constexpr uint32_t SchemaMinor = 16;
/// The minor version a file without symbolic dims or image inputs is
/// stamped with: what such a file needs, so that it stays byte-identical to
/// 1.8's. A file with symbolic dims needs 1.9; one with image inputs 1.10;
/// one with BOX_NMS 1.11; a Metal file whose kernels check buffer lengths
/// 1.12; a partitioned file 1.13; a file with a self-test 1.14; one with
/// LSTM or an NNAPI operand left out (OMITTED) 1.15; one with GRU 1.16.
constexpr uint32_t StaticFileMinor = 8;
constexpr uint32_t SymbolicFileMinor = 9;

/// Weight segments start at multiples of this many bytes.
constexpr uint64_t SegmentAlignment = 64;

} // namespace kiln::fb

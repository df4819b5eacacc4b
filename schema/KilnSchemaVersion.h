// The version of schema/kiln.fbs that this source tree writes and reads
// (rules in schema/README.md). Shared by the writer and the runtime.
#pragma once

#include <cstdint>

namespace kiln::fb {

/// Bumped for an incompatible change; a runtime reads only its own major.
constexpr uint32_t SchemaMajor = 1;
/// Bumped for every appended field, table, enum value or union member, and
/// for operand types an operator did not take before.
constexpr uint32_t SchemaMinor = 9;
/// The minor version a file without symbolic dims is stamped with: what a
/// static file needs, so that static files stay byte-identical to 1.8's.
constexpr uint32_t StaticFileMinor = 8;

/// Weight segments start at multiples of this many bytes.
constexpr uint64_t SegmentAlignment = 64;

} // namespace kiln::fb

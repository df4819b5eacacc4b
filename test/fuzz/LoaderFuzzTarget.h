// One untrusted .kiln file through the runtime, the way an app would use
// it: load from memory, create a session, set every input to zeros, run,
// read every output. Shared by the libFuzzer target, its standalone replay
// driver and the mutant corpus test.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace kiln::fuzz {

enum class Outcome { RejectedAtLoad, RejectedAtSession, FailedRun, Ran };

/// Activations above this are refused when the session is created, so a
/// file cannot make the harness allocate without bound.
constexpr uint64_t MaxArenaBytes = uint64_t(32) << 20;

Outcome runOne(const uint8_t *Data, size_t Size);
inline Outcome runOne(const std::string &Bytes) {
  return runOne(reinterpret_cast<const uint8_t *>(Bytes.data()), Bytes.size());
}

} // namespace kiln::fuzz

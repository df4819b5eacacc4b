// kiln_session_self_test: runs a file's self-test (schema 1.14) on the
// session's device. Every graph input is set to its sample; the session
// runs twice; each output is compared with its reference (float outputs:
// the largest |output - reference|; integer outputs: the fraction of
// elements that differ), and the two runs' outputs byte for byte.
#pragma once

#include "Status.h"

#include <cstddef>

namespace kiln::rt {

class Session;

struct SelfTestOutcome {
  bool Passed = false;
  /// The second run gave the first run's bytes.
  bool Deterministic = false;
  /// The output whose error is largest against its tolerance, its error
  /// and tolerance, and that error over the reference's peak magnitude.
  size_t WorstOutput = 0;
  double MaxError = 0, Tolerance = 0, RelativeError = 0;
  /// Elements compared, over every output, and how many of them were NaN
  /// or infinite where the reference is finite (each fails).
  size_t Compared = 0, NonFinite = 0;
  /// Milliseconds of the first run.
  double RunMs = 0;
};

/// Invalid argument when the model has no self-test; a run's own error
/// otherwise. The session's inputs hold the samples afterwards.
Status runSelfTest(Session &S, SelfTestOutcome &Out);

} // namespace kiln::rt

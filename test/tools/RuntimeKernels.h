// The runtime's kernel choices the tests run models under: the default
// (oneDNN for the convolutions where the runtime has it, XNNPACK for the
// rest, reference kernels where neither), XNNPACK without oneDNN, and the
// reference kernels alone; with the one-thread session options for each.
// Shared by the runtime's unit tests and kiln-cpu-e2e.
#pragma once

#include "kiln/kiln.h"

namespace kiln::testing {

enum class Kernels { Default, XnnpackOnly, ReferenceOnly };

inline const char *kernelsName(Kernels K) {
  switch (K) {
  case Kernels::Default:
    return "default kernels";
  case Kernels::XnnpackOnly:
    return "xnnpack";
  case Kernels::ReferenceOnly:
    return "reference kernels";
  }
  return "";
}

/// One thread and the kernels K.
inline kiln_session_options sessionOptions(Kernels K) {
  kiln_session_options O;
  kiln_session_options_init(&O);
  O.num_threads = 1;
  O.force_reference = K == Kernels::ReferenceOnly;
  O.disable_onednn = K == Kernels::XnnpackOnly;
  return O;
}

} // namespace kiln::testing

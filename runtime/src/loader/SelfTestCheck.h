// The loader's checks of a file's self-test (schema 1.14, Model.self_test),
// so that kiln_session_self_test can trust it: one sample per graph input
// of exactly that input's size, one reference per graph output of
// ceil(elements / stride) floats, tolerances and peaks finite and >= 0.
#pragma once

#include "Status.h"

namespace kiln::rt {

struct LoadedModel;

Status checkSelfTest(const LoadedModel &LM);

} // namespace kiln::rt

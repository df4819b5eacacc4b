// kiln.Session: a .kiln file loaded and ready to run, over the runtime's C
// API (kiln/kiln.h), with numpy arrays in and out.
#pragma once

#include <pybind11/pybind11.h>

namespace kiln::python {

void addSession(pybind11::module_ &M);

} // namespace kiln::python

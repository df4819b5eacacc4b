// Calibration from any Python iterable of numpy arrays (or dicts of arrays
// by input name): a DataLoader's batches after .numpy(), streamed.
#pragma once

#include <pybind11/pybind11.h>

namespace kiln::python {

void addCalibrate(pybind11::module_ &M);

} // namespace kiln::python

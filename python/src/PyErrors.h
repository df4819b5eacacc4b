// kiln's errors as Python exceptions: KilnError and its subclasses, made
// when the module is imported, and the one way C++ code raises them.
#pragma once

#include "Support/Error.h"

#include <pybind11/pybind11.h>

#include <string>

namespace kiln::python {

/// Adds KilnError, InvalidInputError, UnsupportedModelError, UsageError,
/// GateError and InternalError to M.
void addErrors(pybind11::module_ &M);

/// Raises the exception for D (with the GIL held): its class by D's exit
/// code, with exit_code, kind, file, node and op attributes; Output (what
/// the command printed, e.g. a failed gate's report) as .output.
[[noreturn]] void raiseDiagnosis(const Diagnosis &D,
                                 const std::string &Output = "");

/// Raises a bad-input KilnError with Message.
[[noreturn]] void raiseInvalidInput(const std::string &Message);

} // namespace kiln::python

#include "PyErrors.h"

#include "Command.h"

#include "llvm/ADT/StringRef.h"

namespace py = pybind11;

namespace kiln::python {

namespace {

PyObject *KilnErrorType, *InvalidInputType, *UnsupportedType, *UsageType,
    *GateType, *InternalType;

PyObject *newException(py::module_ &M, const char *Name, const char *Doc,
                       PyObject *Base) {
  std::string Qualified = std::string("kiln.") + Name;
  PyObject *T =
      PyErr_NewExceptionWithDoc(Qualified.c_str(), Doc, Base, nullptr);
  if (!T)
    throw py::error_already_set();
  M.add_object(Name, py::handle(T)); // the module keeps a reference
  return T;
}

py::object toPython(const llvm::json::Value &V) {
  if (auto S = V.getAsString())
    return py::str(S->str());
  if (auto I = V.getAsInteger())
    return py::int_(*I);
  return py::none();
}

} // namespace

void addErrors(py::module_ &M) {
  KilnErrorType = newException(
      M, "KilnError",
      "An error from kiln, with its message as kiln's CLI prints it (naming "
      "the file, node and op where it can) and attributes exit_code (what "
      "the CLI would exit with), kind, file, node and op (None where the "
      "message names none).",
      PyExc_Exception);
  InvalidInputType = newException(
      M, "InvalidInputError",
      "A malformed or unreadable model, file or input (CLI exit code 1).",
      KilnErrorType);
  UnsupportedType = newException(
      M, "UnsupportedModelError",
      "A well-formed model kiln or the target cannot compile or run (an "
      "unsupported op, or a combination the target does not take).",
      InvalidInputType);
  UsageType = newException(
      M, "UsageError",
      "Arguments that do not fit together or are out of range (CLI exit code "
      "2).",
      KilnErrorType);
  GateType = newException(
      M, "GateError",
      "An accuracy or size gate failed (CLI exit code 3); .output holds the "
      "report that failed it.",
      KilnErrorType);
  InternalType = newException(
      M, "InternalError",
      "A bug in kiln (CLI exit code 70): please report it with the call and "
      "the input file.",
      KilnErrorType);
}

void raiseDiagnosis(const Diagnosis &D, const std::string &Output) {
  PyObject *Type = KilnErrorType;
  switch (D.Code) {
  case ExitCode::BadInput:
    Type = D.Unsupported ? UnsupportedType : InvalidInputType;
    break;
  case ExitCode::Usage:
    Type = UsageType;
    break;
  case ExitCode::GateFailed:
    Type = GateType;
    break;
  case ExitCode::Internal:
    Type = InternalType;
    break;
  case ExitCode::Success:
    break;
  }
  py::object Error = py::reinterpret_steal<py::object>(
      PyObject_CallFunction(Type, "s", D.Message.c_str()));
  if (!Error)
    throw py::error_already_set();
  llvm::json::Value J = errorJson(D);
  const llvm::json::Object *Fields = J.getAsObject()->getObject("error");
  for (const char *Key : {"exit_code", "kind", "file", "node", "op"})
    Error.attr(Key) = toPython(*Fields->get(Key));
  Error.attr("output") = py::str(Output);
  PyErr_SetObject(Type, Error.ptr());
  throw py::error_already_set();
}

void raiseInvalidInput(const std::string &Message) {
  raiseDiagnosis({ExitCode::BadInput, Message});
}

} // namespace kiln::python

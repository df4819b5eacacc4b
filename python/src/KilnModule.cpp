// kiln._kiln: the Python package's extension module. It runs kiln's own
// commands in this process (runCommandLine, the code the CLI runs, with
// what they print captured), calibrates from Python iterables, and runs
// .kiln files (kiln.Session). kiln/__init__.py is the API over it.
#include "Command.h"
#include "PyCalibrate.h"
#include "PyErrors.h"
#include "PySession.h"
#include "Version.h"

#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

namespace py = pybind11;
using namespace kiln;

namespace {

/// `kiln ARGS...` in this process, the GIL released: what it printed, or
/// the exception for its error (with what it printed as .output).
std::string runCommand(const std::vector<std::string> &Args) {
  std::string Out;
  std::optional<Diagnosis> Failed;
  {
    py::gil_scoped_release Released;
    llvm::raw_string_ostream OS(Out);
    RedirectCommandOutput Redirect(OS);
    if (llvm::Error E = runCommandLine(Args))
      Failed = diagnose(std::move(E));
    OS.flush();
  }
  if (Failed)
    python::raiseDiagnosis(*Failed, Out);
  return Out;
}

} // namespace

PYBIND11_MODULE(_kiln, M) {
  M.doc() = "kiln's extension module; use the kiln package's API.";
  M.attr("__version__") = KILN_VERSION_STRING;
  python::addErrors(M);
  python::addSession(M);
  python::addCalibrate(M);
  M.def("_run", &runCommand, py::arg("args"),
        "Runs `kiln ARGS...` in this process and returns what it printed.");
}

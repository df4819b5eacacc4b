// kiln.Session's keyword options (threads aside), read into the C API's
// option structs: the CPU's, Vulkan's, NNAPI's and Metal's, each read only
// by a file for its target (kiln/kiln.h).
#pragma once

#include "kiln/kiln.h"

#include <pybind11/pybind11.h>

#include <optional>
#include <string>

namespace kiln::python {

class SessionOptions {
public:
  /// Options from Kwargs; an unknown name or a value of the wrong type
  /// raises kiln.UsageError naming it (and, for a name, the known ones).
  SessionOptions(std::optional<unsigned> Threads,
                 const pybind11::kwargs &Kwargs, const std::string &Path);
  SessionOptions(const SessionOptions &) = delete;
  SessionOptions &operator=(const SessionOptions &) = delete;

  /// Valid while this object lives (it points into it).
  const kiln_session_options &get() const { return Session; }

  /// The names kiln.Session takes, for its docstring and errors.
  static const char *names();

private:
  kiln_session_options Session;
  kiln_cpu_options Cpu;
  kiln_vulkan_options Vulkan;
  kiln_nnapi_options Nnapi;
  kiln_metal_options Metal;
  std::string PipelineCacheDir, NnapiLibrary, NnapiCacheDir, MetalArchive;
};

} // namespace kiln::python

// The NNAPI library (libneuralnetworks.so, or a host device's .so in
// tests), dlopened once per session: a table of every function kiln calls
// (KILN_NNAPI_FUNCTIONS). Functions added after API level 27 may be null
// where the library predates them; the level-27 ones are required.
#pragma once

#include "Status.h"
#include "schema/nnapi/NeuralNetworksApi.h"

#include <memory>
#include <string>

namespace kiln::rt {

class NnapiLibrary {
public:
  ~NnapiLibrary();
  NnapiLibrary(const NnapiLibrary &) = delete;
  NnapiLibrary &operator=(const NnapiLibrary &) = delete;

  /// Opens Path, else $KILN_NNAPI_LIBRARY, else "libneuralnetworks.so".
  /// KILN_ERROR_UNSUPPORTED when it cannot be loaded or lacks a level-27
  /// function (named).
  static Status open(const std::string &Path,
                     std::unique_ptr<NnapiLibrary> &Out);

  const std::string &path() const { return Path; }

#define KILN_NNAPI_MEMBER(Name, Ret, Params) Ret(*Name) Params = nullptr;
  KILN_NNAPI_FUNCTIONS(KILN_NNAPI_MEMBER)
#undef KILN_NNAPI_MEMBER

private:
  NnapiLibrary() = default;
  void *Handle = nullptr;
  std::string Path;
};

/// "NO_ERROR", "BAD_DATA", ... ("result N" outside the enum).
std::string resultName(int Code);

} // namespace kiln::rt

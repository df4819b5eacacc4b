#include "nnapi/NnapiLibrary.h"

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>

namespace kiln::rt {

NnapiLibrary::~NnapiLibrary() {
  if (Handle)
    dlclose(Handle);
}

Status NnapiLibrary::open(const std::string &Path,
                          std::unique_ptr<NnapiLibrary> &Out) {
  std::string P = Path;
  if (P.empty())
    if (const char *Env = std::getenv("KILN_NNAPI_LIBRARY"))
      P = Env;
  if (P.empty())
    P = "libneuralnetworks.so";
  std::unique_ptr<NnapiLibrary> L(new NnapiLibrary());
  L->Path = P;
  L->Handle = dlopen(P.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!L->Handle) {
    const char *Err = dlerror();
    return unsupported("cannot load the NNAPI library ", P, ": ",
                       Err ? Err : "unknown error");
  }
  // The level-27 functions come first in KILN_NNAPI_FUNCTIONS, up to
  // ANeuralNetworksEvent_free.
  bool Required = true;
  std::string Missing;
#define KILN_NNAPI_LOAD(Name, Ret, Params)                                     \
  if (void *Sym = dlsym(L->Handle, #Name))                                     \
    std::memcpy(&L->Name, &Sym, sizeof Sym);                                   \
  if (!L->Name && Required && Missing.empty())                                 \
    Missing = #Name;                                                           \
  if (std::strcmp(#Name, "ANeuralNetworksEvent_free") == 0)                    \
    Required = false;
  KILN_NNAPI_FUNCTIONS(KILN_NNAPI_LOAD)
#undef KILN_NNAPI_LOAD
  if (!Missing.empty())
    return unsupported("the NNAPI library ", P, " lacks ", Missing,
                       " (API level 27)");
  Out = std::move(L);
  return Status::ok();
}

std::string resultName(int Code) {
  static const char *const Names[] = {
      "NO_ERROR",    "OUT_OF_MEMORY", "INCOMPLETE", "UNEXPECTED_NULL",
      "BAD_DATA",    "OP_FAILED",     "BAD_STATE",  "UNMAPPABLE",
      "OUTPUT_INSUFFICIENT_SIZE",     "UNAVAILABLE_DEVICE"};
  if (Code >= 0 && size_t(Code) < sizeof(Names) / sizeof(Names[0]))
    return Names[Code];
  return concat("result ", Code);
}

} // namespace kiln::rt

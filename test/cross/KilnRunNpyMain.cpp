// kiln-run-npy: runs a .kiln model in the runtime on .npy inputs and writes
// its outputs as .npy files (with Support's .npy reader and writer, which
// the runtime's cross-built unit tests link too), so that a cross-built copy
// can run under QEMU on models and inputs made on the host, where scripts/test-aarch64.sh compares the
// outputs with the reference interpreter's.
//
//   kiln-run-npy MODEL.kiln IN_DIR OUT_DIR KERNELS...
//
// Input I is read from IN_DIR/NAME.npy (NAME: the model's input name); its
// dtype and shape must be the input's. For each KERNELS (default, xnnpack or
// reference: the choices of test/tools/RuntimeKernels.h, one thread each) a
// session runs once and output I goes to OUT_DIR/KERNELS/I.npy, and the
// kernel library that ran each operator (kiln_session_operator_engine) to
// OUT_DIR/KERNELS/engines.txt, one a line; the output names go to
// OUT_DIR/names.txt. Exit status 1 on any failure, with the reason on
// stderr.
#include "IR/NpyTensor.h"
#include "RuntimeKernels.h"
#include "Support/Npy.h"

#include "kiln/kiln.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace kiln;
using kiln::testing::Kernels;

namespace {

struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string kilnError(const std::string &What) {
  return What + ": " + kiln_last_error();
}

/// The numpy dtype of a runtime dtype (its values are the IR's).
NpyDType npyTypeOf(const kiln_tensor_info &Info) {
  auto T = npyDTypeOf(static_cast<ElementType>(Info.dtype));
  if (!T)
    throw Failure(std::string("'") + Info.name +
                  "' has a type without .npy name");
  return *T;
}

std::vector<int64_t> shapeOf(const kiln_tensor_info &Info) {
  return std::vector<int64_t>(Info.shape, Info.shape + Info.rank);
}

/// The data of a .npy file (kiln's strict reader) holding Info's dtype and
/// shape.
std::string readNpy(const std::string &Path, const kiln_tensor_info &Info) {
  auto A = readNpyFile(Path);
  if (!A)
    throw Failure(llvm::toString(A.takeError()));
  if (A->DType != npyTypeOf(Info) || A->Shape != shapeOf(Info))
    throw Failure(Path + ": dtype or shape is not the model's input '" +
                  Info.name + "'");
  return std::string(reinterpret_cast<const char *>(A->Data), A->Size);
}

void writeNpy(const std::string &Path, const kiln_tensor_info &Info,
              const void *Data, size_t Size) {
  if (llvm::Error E = writeNpyFile(
          Path, npyTypeOf(Info), shapeOf(Info),
          llvm::StringRef(static_cast<const char *>(Data), Size)))
    throw Failure(llvm::toString(std::move(E)));
}

void makeDir(const std::string &Path) {
  if (mkdir(Path.c_str(), 0777) != 0 && errno != EEXIST)
    throw Failure("cannot create " + Path + ": " + std::strerror(errno));
}

Kernels parseKernels(const std::string &S) {
  if (S == "default")
    return Kernels::Default;
  if (S == "xnnpack")
    return Kernels::XnnpackOnly;
  if (S == "reference")
    return Kernels::ReferenceOnly;
  throw Failure("unknown kernels '" + S + "' (default, xnnpack, reference)");
}

void runOnce(const kiln_model *M, const std::vector<std::string> &Inputs,
             Kernels K, const std::string &OutDir) {
  kiln_session_options O = kiln::testing::sessionOptions(K);
  kiln_session *S = nullptr;
  if (kiln_session_create(M, &O, &S) != KILN_OK)
    throw Failure(kilnError("session"));
  try {
    for (size_t I = 0; I < Inputs.size(); ++I)
      if (kiln_session_set_input(S, I, Inputs[I].data(), Inputs[I].size()) !=
          KILN_OK)
        throw Failure(kilnError("input " + std::to_string(I)));
    if (kiln_session_run(S) != KILN_OK)
      throw Failure(kilnError("run"));
    makeDir(OutDir);
    // Which kernels ran each operator: the runtime falls back to its
    // reference kernels where XNNPACK refuses an operator.
    std::string Engines;
    for (size_t I = 0; I < kiln_session_num_operators(S); ++I)
      Engines += std::string(kiln_session_operator_engine(S, I)) + "\n";
    std::ofstream(OutDir + "/engines.txt") << Engines;
    for (size_t I = 0; I < kiln_model_num_outputs(M); ++I) {
      kiln_tensor_info Info;
      const void *Data;
      size_t Size;
      if (kiln_model_output_info(M, I, &Info) != KILN_OK ||
          kiln_session_get_output(S, I, &Data, &Size) != KILN_OK)
        throw Failure(kilnError("output " + std::to_string(I)));
      writeNpy(OutDir + "/" + std::to_string(I) + ".npy", Info, Data, Size);
    }
  } catch (...) {
    kiln_session_destroy(S);
    throw;
  }
  kiln_session_destroy(S);
}

int run(int Argc, char **Argv) {
  if (Argc < 5) {
    std::fprintf(stderr,
                 "usage: kiln-run-npy MODEL.kiln IN_DIR OUT_DIR KERNELS...\n"
                 "  KERNELS: default, xnnpack or reference\n");
    return 2;
  }
  std::string ModelPath = Argv[1], InDir = Argv[2], OutDir = Argv[3];
  std::vector<Kernels> Runs;
  std::vector<std::string> RunNames;
  for (int I = 4; I < Argc; ++I) {
    Runs.push_back(parseKernels(Argv[I]));
    RunNames.push_back(Argv[I]);
  }
  kiln_model *M = nullptr;
  if (kiln_model_load(ModelPath.c_str(), &M) != KILN_OK)
    throw Failure(kilnError("load " + ModelPath));
  try {
    std::vector<std::string> Inputs;
    for (size_t I = 0; I < kiln_model_num_inputs(M); ++I) {
      kiln_tensor_info Info;
      if (kiln_model_input_info(M, I, &Info) != KILN_OK)
        throw Failure(kilnError("input info"));
      Inputs.push_back(readNpy(InDir + "/" + Info.name + ".npy", Info));
    }
    makeDir(OutDir);
    std::string Names;
    for (size_t I = 0; I < kiln_model_num_outputs(M); ++I) {
      kiln_tensor_info Info;
      if (kiln_model_output_info(M, I, &Info) != KILN_OK)
        throw Failure(kilnError("output info"));
      Names += std::string(Info.name) + "\n";
    }
    std::ofstream(OutDir + "/names.txt") << Names;
    for (size_t R = 0; R < Runs.size(); ++R) {
      try {
        runOnce(M, Inputs, Runs[R], OutDir + "/" + RunNames[R]);
      } catch (const Failure &E) {
        throw Failure(RunNames[R] + " kernels: " + E.what());
      }
    }
  } catch (...) {
    kiln_model_destroy(M);
    throw;
  }
  kiln_model_destroy(M);
  return 0;
}

} // namespace

int main(int Argc, char **Argv) {
  try {
    return run(Argc, Argv);
  } catch (const Failure &E) {
    std::fprintf(stderr, "kiln-run-npy: %s\n", E.what());
    return 1;
  }
}

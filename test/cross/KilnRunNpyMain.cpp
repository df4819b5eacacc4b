// kiln-run-npy: runs a .kiln model in the runtime on .npy inputs and writes
// its outputs as .npy files. It links the runtime alone (no compiler
// library), so that a cross-built copy can run under QEMU on models and
// inputs made on the host, where scripts/test-aarch64.sh compares the
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
#include "RuntimeKernels.h"

#include "kiln/kiln.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

using kiln::testing::Kernels;

namespace {

struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string kilnError(const std::string &What) {
  return What + ": " + kiln_last_error();
}

/// numpy's name of a dtype ("" for one numpy has no type for).
const char *npyDescr(kiln_dtype T) {
  switch (T) {
  case KILN_DTYPE_F32:
    return "<f4";
  case KILN_DTYPE_F16:
    return "<f2";
  case KILN_DTYPE_F64:
    return "<f8";
  case KILN_DTYPE_I64:
    return "<i8";
  case KILN_DTYPE_I32:
    return "<i4";
  case KILN_DTYPE_I16:
    return "<i2";
  case KILN_DTYPE_I8:
    return "|i1";
  case KILN_DTYPE_U64:
    return "<u8";
  case KILN_DTYPE_U32:
    return "<u4";
  case KILN_DTYPE_U16:
    return "<u2";
  case KILN_DTYPE_U8:
    return "|u1";
  case KILN_DTYPE_BOOL:
    return "|b1";
  default:
    return "";
  }
}

/// A shape as a Python tuple: "(1, 3)", "(3,)" or "()".
std::string shapeTuple(const int64_t *Shape, size_t Rank) {
  std::string S = "(";
  for (size_t D = 0; D < Rank; ++D)
    S += (D ? ", " : "") + std::to_string(Shape[D]);
  return S + (Rank == 1 ? ",)" : ")");
}

std::string readFile(const std::string &Path) {
  std::ifstream F(Path, std::ios::binary);
  if (!F)
    throw Failure("cannot open " + Path);
  return std::string(std::istreambuf_iterator<char>(F), {});
}

/// The value of 'Key': in a .npy header dict, up to the next ',' or '}' that
/// is not inside parentheses.
std::string headerField(const std::string &Header, const std::string &Key,
                        const std::string &Path) {
  size_t At = Header.find("'" + Key + "'");
  if (At == std::string::npos)
    throw Failure(Path + ": no '" + Key + "' in the .npy header");
  At = Header.find(':', At);
  if (At == std::string::npos)
    throw Failure(Path + ": malformed .npy header");
  size_t End = At + 1;
  int Depth = 0;
  for (; End < Header.size(); ++End) {
    char C = Header[End];
    if (C == '(')
      ++Depth;
    else if (C == ')')
      --Depth;
    else if ((C == ',' || C == '}') && Depth == 0)
      break;
  }
  std::string V = Header.substr(At + 1, End - At - 1);
  std::string Out;
  for (char C : V)
    if (C != ' ' && C != '\'')
      Out += C;
  return Out;
}

/// The data of a C-order .npy file holding Info's dtype and shape.
std::string readNpy(const std::string &Path, const kiln_tensor_info &Info) {
  std::string Bytes = readFile(Path);
  if (Bytes.size() < 10 || Bytes.compare(0, 6, "\x93NUMPY") != 0)
    throw Failure(Path + ": not a .npy file");
  unsigned Major = uint8_t(Bytes[6]);
  size_t HeaderLen, HeaderAt;
  if (Major == 1) {
    HeaderLen = uint8_t(Bytes[8]) | size_t(uint8_t(Bytes[9])) << 8;
    HeaderAt = 10;
  } else {
    if (Bytes.size() < 12)
      throw Failure(Path + ": truncated .npy header");
    HeaderLen = 0;
    for (int I = 3; I >= 0; --I)
      HeaderLen = HeaderLen << 8 | uint8_t(Bytes[8 + size_t(I)]);
    HeaderAt = 12;
  }
  if (Bytes.size() < HeaderAt + HeaderLen)
    throw Failure(Path + ": truncated .npy header");
  std::string Header = Bytes.substr(HeaderAt, HeaderLen);
  std::string Descr = headerField(Header, "descr", Path);
  std::string Fortran = headerField(Header, "fortran_order", Path);
  std::string Shape = headerField(Header, "shape", Path);
  std::string WantDescr = npyDescr(Info.dtype);
  // numpy spells one-byte types either way ("|i1", "<i1"... and "|b1").
  auto Same = [](std::string A, std::string B) {
    if (A.size() == 3 && B.size() == 3 && A[1] == B[1] && A[2] == '1' &&
        B[2] == '1')
      return true;
    return A == B;
  };
  if (WantDescr.empty() || !Same(Descr, WantDescr))
    throw Failure(Path + ": dtype " + Descr + ", the model's input '" +
                  Info.name + "' is " +
                  (WantDescr.empty() ? "a type without .npy name" : WantDescr));
  if (Fortran != "False")
    throw Failure(Path + ": Fortran order");
  // "(1,3,64,64)", "(3,)" or "()" (the spaces are gone).
  std::vector<int64_t> Dims;
  for (size_t At = 1; At + 1 < Shape.size();) {
    size_t End = Shape.find(',', At);
    if (End == std::string::npos)
      End = Shape.size() - 1;
    if (End > At)
      Dims.push_back(std::stoll(Shape.substr(At, End - At)));
    At = End + 1;
  }
  if (Dims != std::vector<int64_t>(Info.shape, Info.shape + Info.rank))
    throw Failure(Path + ": shape " + Shape + ", the model's input '" +
                  Info.name + "' is " + shapeTuple(Info.shape, Info.rank));
  std::string Data = Bytes.substr(HeaderAt + HeaderLen);
  if (Data.size() != Info.byte_size)
    throw Failure(Path + ": " + std::to_string(Data.size()) +
                  " bytes of data, the model's input takes " +
                  std::to_string(Info.byte_size));
  return Data;
}

void writeNpy(const std::string &Path, const kiln_tensor_info &Info,
              const void *Data, size_t Size) {
  const char *Descr = npyDescr(Info.dtype);
  if (!*Descr)
    throw Failure(std::string("output '") + Info.name +
                  "' has a type without .npy name");
  std::string Header = std::string("{'descr': '") + Descr +
                       "', 'fortran_order': False, 'shape': " +
                       shapeTuple(Info.shape, Info.rank) + ", }";
  // Magic, version 1.0, length; the header padded with spaces to a
  // multiple of 64 bytes and ended by a newline.
  size_t Total = 10 + Header.size() + 1;
  Header.append((64 - Total % 64) % 64, ' ');
  Header += '\n';
  std::string Out = "\x93NUMPY";
  Out += char(1);
  Out += char(0);
  Out += char(Header.size() & 0xff);
  Out += char(Header.size() >> 8);
  Out += Header;
  Out.append(static_cast<const char *>(Data), Size);
  std::ofstream F(Path, std::ios::binary);
  if (!F.write(Out.data(), std::streamsize(Out.size())) || !F.flush())
    throw Failure("cannot write " + Path);
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

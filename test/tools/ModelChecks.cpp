#include "ModelChecks.h"

#include "IR/NpyTensor.h"
#include "IR/Parser.h"
#include "Support/Npy.h"
#include "frontends/onnx/OnnxImporter.h"
#ifdef KILN_WITH_TORCHSCRIPT
#include "frontends/torchscript/TorchScriptImporter.h"
#endif
#include "passes/PassManager.h"
#include "passes/Pipelines.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace kiln::testing {

std::string firstLine(llvm::Error E) {
  std::string S = llvm::toString(std::move(E));
  return S.substr(0, S.find('\n'));
}

std::string firstReason(const std::string &Message) {
  size_t Line = Message.find("\n  ");
  if (Line == std::string::npos)
    return Message;
  std::string S = Message.substr(Line + 3);
  return S.substr(0, S.find('\n'));
}

std::vector<std::string> listDir(const std::string &Dir, bool Dirs) {
  std::vector<std::string> Out;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC))
    if (llvm::sys::fs::is_directory(It->path()) == Dirs)
      Out.push_back(It->path());
  std::sort(Out.begin(), Out.end());
  return Out;
}

std::string compare(const Tensor &Got, const Tensor &Ref, double *Worst) {
  if (Got.type().Elem != Ref.type().Elem || Got.type().Dims != Ref.type().Dims)
    return "type " + toString(Got.type()) + ", expected " + toString(Ref.type());
  bool IsFloat = isFloatType(Ref.type().Elem);
  size_t Size = elementSize(Ref.type().Elem);
  for (int64_t I = 0; I < Ref.numElements(); ++I) {
    if (!IsFloat) {
      if (std::memcmp(Got.buffer().data() + I * Size,
                      Ref.buffer().data() + I * Size, Size) != 0)
        return llvm::formatv("integer value differs at {0}", I);
      continue;
    }
    double A = Got.asDouble(I), B = Ref.asDouble(I);
    if (std::isnan(A) || std::isnan(B) || std::isinf(A) || std::isinf(B)) {
      if (!(std::isnan(A) && std::isnan(B)) && A != B)
        return llvm::formatv("at {0}: {1:e7} vs {2:e7}", I, A, B);
      continue;
    }
    double E = std::fabs(A - B) / (AbsTol + RelTol * std::fabs(B));
    if (Worst)
      *Worst = std::max(*Worst, E);
    if (E > 1)
      return llvm::formatv("at {0}: {1:e7} vs reference {2:e7}", I, A, B);
  }
  return "";
}

double sqnrDb(const Tensor &Got, const Tensor &Ref) {
  double Signal = 0, Noise = 0;
  for (int64_t I = 0; I < Ref.numElements(); ++I) {
    double A = Got.asDouble(I), B = Ref.asDouble(I);
    Signal += B * B;
    Noise += (A - B) * (A - B);
  }
  return Noise == 0 ? 200 : 10 * std::log10(Signal / Noise);
}

std::string runCompiled(const std::string &Bytes, llvm::ArrayRef<Tensor> Inputs,
                        const kiln_session_options &Options,
                        std::vector<Tensor> &Out, std::string *Precision) {
  kiln_model *M = nullptr;
  if (kiln_model_load_buffer(Bytes.data(), Bytes.size(), &M) != KILN_OK)
    return std::string("load: ") + kiln_last_error();
  kiln_session *S = nullptr;
  std::string Why;
  if (kiln_session_create(M, &Options, &S) != KILN_OK) {
    Why = std::string("session: ") + kiln_last_error();
  } else {
    for (size_t I = 0; I < Inputs.size() && Why.empty(); ++I)
      if (kiln_session_set_input(S, I, Inputs[I].buffer().data(),
                                 Inputs[I].buffer().size()) != KILN_OK)
        Why = std::string("input: ") + kiln_last_error();
    if (Why.empty() && kiln_session_run(S) != KILN_OK)
      Why = std::string("run: ") + kiln_last_error();
    kiln_engine_info Engine;
    Engine.struct_size = sizeof Engine;
    if (Precision && Why.empty() &&
        kiln_session_engine_info(S, &Engine) == KILN_OK)
      *Precision = Engine.precision ? Engine.precision : "";
    for (size_t I = 0; Why.empty() && I < kiln_model_num_outputs(M); ++I) {
      kiln_tensor_info Info;
      const void *Data;
      size_t Size;
      if (kiln_model_output_info(M, I, &Info) != KILN_OK ||
          kiln_session_get_output(S, I, &Data, &Size) != KILN_OK) {
        Why = std::string("output: ") + kiln_last_error();
        break;
      }
      std::vector<int64_t> Dims(Info.shape, Info.shape + Info.rank);
      Out.emplace_back(
          TensorType(static_cast<ElementType>(Info.dtype), makeShape(Dims)),
          Buffer::copy({static_cast<const uint8_t *>(Data), Size}));
    }
  }
  kiln_session_destroy(S);
  kiln_model_destroy(M);
  return Why;
}

std::string inputsFileFor(const std::string &Model) {
  llvm::StringRef Dir = llvm::sys::path::parent_path(Model);
  std::string Stem = llvm::sys::path::filename(Model).split('.').first.str();
  return (Dir.empty() ? "" : Dir.str() + "/") + Stem + ".input.npz";
}

llvm::Expected<std::unique_ptr<Graph>> importModel(const std::string &Path) {
  if (llvm::StringRef(Path).endswith(".kir"))
    return parseGraphFile(Path);
  if (!llvm::StringRef(Path).endswith(".pt"))
    return importOnnxFile(Path);
#ifdef KILN_WITH_TORCHSCRIPT
  auto Npz = readNpzFile(inputsFileFor(Path));
  if (!Npz)
    return Npz.takeError();
  TorchScriptImportOptions O;
  for (const auto &[Name, Array] : *Npz)
    O.InputShapes[Name] = Array.Shape;
  return importTorchScriptFile(Path, O);
#else
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "built without the TorchScript frontend");
#endif
}

llvm::Expected<std::vector<Tensor>> exampleInputs(const std::string &Path,
                                                  const Graph &G) {
  std::string NpzPath = inputsFileFor(Path);
  auto Npz = readNpzFile(NpzPath);
  if (!Npz)
    return Npz.takeError();
  std::vector<Tensor> Inputs;
  for (const Value *In : G.inputs()) {
    auto It = std::find_if(Npz->begin(), Npz->end(),
                           [&](const auto &E) { return E.first == In->name(); });
    if (It == Npz->end())
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "no array '%s' in %s", In->name().c_str(),
                                     NpzPath.c_str());
    Inputs.push_back(tensorFromNpy(It->second));
  }
  return Inputs;
}

llvm::Expected<std::vector<Tensor>> nodeTestInputs(const std::string &Folder) {
  std::vector<Tensor> Inputs;
  for (unsigned I = 0;; ++I) {
    std::string P =
        Folder + "/test_data_set_0/input_" + std::to_string(I) + ".pb";
    if (!llvm::sys::fs::exists(P))
      break;
    auto T = readTensorProtoFile(P);
    if (!T)
      return T.takeError();
    Inputs.push_back(std::move(*T));
  }
  return Inputs;
}

llvm::Error optimize(Graph &G) {
  PassManagerOptions PMO;
  PMO.VerifyEach = true;
  PassManager PM(PMO);
  for (const std::string &P : pipelineForLevel(2))
    if (llvm::Error E = PM.add(P))
      return E;
  return PM.run(G);
}

Tensor asDeclared(Tensor T, ElementType Wanted) {
  if (Wanted == ElementType::BF16 && T.type().Elem == ElementType::U16)
    return Tensor(TensorType(ElementType::BF16, T.type().Dims), T.buffer());
  return T;
}

} // namespace kiln::testing

// kiln run: runs a model on .npy/.npz inputs with the reference interpreter,
// or a compiled .kiln file in the kiln runtime.
//   kiln run MODEL --input NAME=FILE.npy ... | --input FILE.npz
//            [--input NAME=PHOTO.png|.jpg (image inputs of .kiln files)]
//            [-o OUTDIR | -o FILE.npz] [--threads N] [--input-shape ...] [--json]
//   kiln run FILE.kiln --self-test [--json] [session flags]
//            runs the file's self-test (kiln convert --self-test) on the
//            session's device: exit 0 when it passes, 3 when it fails.
// -o OUTDIR writes one NAME.npy per output (characters other than letters,
// digits, '.', '_' and '-' become '_'); -o FILE.npz keeps the exact names.
#include "Command.h"
#include "Tooling/CompiledModel.h"
#include "Driver/ModelLoader.h"
#include "Tooling/SessionFlags.h"

#include "IR/NpyTensor.h"
#include "Interpreter/Interpreter.h"
#include "Interpreter/Kernel.h"
#include "Support/Error.h"
#include "Support/FileSystem.h"
#include "Support/Image.h"
#include "Support/Npy.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace kiln {

namespace {
struct RunOptions {
  std::string Model;
  std::vector<std::string> Inputs;
  std::vector<std::string> InputShapes;
  std::string Output;
  unsigned Threads = 0;
  CompiledModel::SessionSettings Session;
  bool Json = false;
  bool SelfTest = false;
};

/// The names and types a model is bound by: an IR graph's, or a .kiln
/// file's.
struct Signature {
  std::vector<std::pair<std::string, TensorType>> Inputs;
  std::vector<std::string> Outputs;
};

Signature signatureOf(const Graph &G) {
  Signature S;
  for (const Value *In : G.inputs())
    S.Inputs.push_back({In->name(), In->type()});
  for (const Value *Out : G.outputs())
    S.Outputs.push_back(Out->name());
  return S;
}

Signature signatureOf(const CompiledModel &M) {
  Signature S;
  for (const CompiledIo &In : M.inputs())
    S.Inputs.push_back({In.Name, In.Type});
  for (const CompiledIo &Out : M.outputs())
    S.Outputs.push_back(Out.Name);
  return S;
}

/// An .npz member's header against the model's input of its name, before
/// its data is inflated: the same checks (and messages) as bindInputs.
llvm::Error checkMember(const Signature &G, llvm::StringRef Path,
                        llvm::StringRef Member, const NpyHeader &H) {
  for (const auto &[InName, Want] : G.Inputs) {
    if (InName != Member)
      continue;
    ElementType Elem = elementTypeOf(H.DType);
    if (Elem != Want.Elem)
      return inputError("{0}: input '{1}' is {2} but the model expects {3} "
                        "(convert the array, e.g. arr.astype(np.float32))",
                        Path, Member, elementTypeName(Elem),
                        elementTypeName(Want.Elem));
    Shape Got;
    for (int64_t D : H.Shape)
      Got.push_back(Dim(D));
    if (!isCompatible(Want, TensorType(Elem, Got)))
      return inputError("{0}: input '{1}' has shape {2} but the model "
                        "expects {3}",
                        Path, Member, toString(Got), toString(Want.Dims));
    return llvm::Error::success();
  }
  return usageError("{0}: the model has no input named '{1}'", Path, Member);
}

/// Collects input tensors by name from the --input arguments. An image file
/// (.png, .jpg) is left in Images by input name, for the runtime to fit to
/// the input (kiln_session_set_image); its input gets zeros until then.
llvm::Error collectInputs(const RunOptions &O, const Signature &G,
                          llvm::StringMap<Tensor> &ByName,
                          llvm::StringMap<std::string> *Images = nullptr) {
  for (const std::string &Arg : O.Inputs) {
    llvm::StringRef A = Arg;
    auto [Name, Path] = A.split('=');
    if (!A.contains('=')) {
      Path = Name;
      Name = "";
    }
    if (Path.endswith(".npz")) {
      if (!Name.empty())
        return usageError("--input {0}: give an .npz without NAME= (its "
                          "members are named)",
                          Arg);
      auto Members = readNpzFile(
          Path, [&](llvm::StringRef Member, const NpyHeader &H) {
            return checkMember(G, Path, Member, H);
          });
      if (!Members)
        return Members.takeError();
      for (auto &[Key, Arr] : *Members)
        ByName[Key] = tensorFromNpy(Arr);
      continue;
    }
    if (Name.empty()) {
      if (G.Inputs.size() != 1)
        return usageError("--input {0}: the model has {1} inputs; write "
                          "NAME=FILE.npy",
                          Arg, G.Inputs.size());
      Name = G.Inputs[0].first;
    }
    if (isImagePath(Path)) {
      auto It = llvm::find_if(G.Inputs, [&](const auto &In) {
        return In.first == Name;
      });
      if (!Images)
        return usageError("--input {0}: images feed the image inputs of "
                          ".kiln files (convert with --image-input); give "
                          "this model an .npy",
                          Arg);
      if (It == G.Inputs.end())
        return usageError("--input {0}: the model has no input named '{1}'",
                          Arg, Name);
      // One image: a symbolic batch (or any unknown dim) is 1.
      TensorType One = It->second;
      for (Dim &D : One.Dims)
        if (!D.isStatic())
          D = Dim(1);
      (*Images)[Name] = Path.str();
      ByName[Name] = makeTensor(One.Elem, staticSizes(One.Dims));
      continue;
    }
    auto Arr = readNpyFile(Path);
    if (!Arr)
      return Arr.takeError();
    ByName[Name] = tensorFromNpy(*Arr);
  }
  return llvm::Error::success();
}

/// Orders the named tensors by graph input and checks their types.
llvm::Expected<std::vector<Tensor>>
bindInputs(const Signature &G, llvm::StringMap<Tensor> &ByName) {
  std::vector<Tensor> Bound;
  std::string Missing;
  for (const auto &[InName, InType] : G.Inputs) {
    auto It = ByName.find(InName);
    if (It == ByName.end()) {
      Missing += (Missing.empty() ? "" : ", ") + InName + " (" +
                 toString(InType) + ")";
      continue;
    }
    const TensorType &Want = InType, &Got = It->second.type();
    if (Got.Elem != Want.Elem)
      return inputError("input '{0}' is {1} but the model expects {2} (convert "
                        "the array, e.g. arr.astype(np.float32))",
                        InName, elementTypeName(Got.Elem),
                        elementTypeName(Want.Elem));
    if (!isCompatible(Want, Got))
      return inputError("input '{0}' has shape {1} but the model expects {2}",
                        InName, toString(Got.Dims), toString(Want.Dims));
    Bound.push_back(It->second);
    ByName.erase(It);
  }
  if (!Missing.empty())
    return usageError("missing input(s): {0}; pass --input NAME=FILE.npy",
                      Missing);
  if (!ByName.empty()) {
    std::string Extra;
    for (const auto &KV : ByName)
      Extra += (Extra.empty() ? "" : ", ") + KV.getKey().str();
    return usageError("the model has no input(s) named {0}", Extra);
  }
  return Bound;
}

std::string sanitizeFileName(llvm::StringRef Name) {
  std::string Out;
  for (char C : Name)
    Out += (llvm::isAlnum(C) || C == '.' || C == '_' || C == '-') ? C : '_';
  if (Out.empty() || Out == "." || Out == "..")
    Out = "_" + Out;
  return Out;
}

llvm::Error writeOutputs(const std::string &Dest, const Signature &G,
                         llvm::ArrayRef<Tensor> Outputs,
                         llvm::json::Array &Report) {
  bool ToNpz = llvm::StringRef(Dest).endswith(".npz");
  // Every name is settled before anything is written: a collision found
  // halfway would leave some outputs written and one file holding the data
  // of another output.
  std::vector<std::string> Names, Files;
  llvm::StringMap<size_t> ByFile;
  for (size_t I = 0; I < Outputs.size(); ++I) {
    std::string Name = G.Outputs[I];
    if (Name.empty())
      Name = "output_" + std::to_string(I);
    std::string File = Dest;
    if (!ToNpz) {
      llvm::SmallString<256> P(Dest);
      llvm::sys::path::append(P, sanitizeFileName(Name) + ".npy");
      File = P.str().str();
      auto [It, New] = ByFile.try_emplace(File, I);
      if (!New)
        return inputError("outputs '{0}' and '{1}' would both be written to "
                          "'{2}'; nothing was written (use -o FILE.npz to "
                          "keep exact names)",
                          Names[It->second], Name, File);
    }
    Names.push_back(std::move(Name));
    Files.push_back(std::move(File));
  }
  std::vector<std::pair<std::string, std::string>> Members; // name, .npy
  for (size_t I = 0; I < Outputs.size(); ++I) {
    auto Bytes = npyBytesOf(Outputs[I]);
    if (!Bytes)
      return addContext(Bytes.takeError(), "output '" + Names[I] + "'");
    Members.push_back({Names[I], std::move(*Bytes)});
  }
  if (ToNpz) {
    if (llvm::Error E = writeNpzFile(Dest, Members))
      return E;
  } else {
    if (std::error_code EC = llvm::sys::fs::create_directories(Dest))
      return inputError("{0}: cannot create the output folder: {1}", Dest,
                        EC.message());
    for (size_t I = 0; I < Members.size(); ++I)
      if (llvm::Error E = writeFileAtomically(Files[I], Members[I].second))
        return E;
  }
  for (size_t I = 0; I < Names.size(); ++I)
    Report.push_back(llvm::json::Object{{"name", Names[I]}, {"file", Files[I]}});
  return llvm::Error::success();
}

llvm::json::Array shapeJson(const TensorType &T) {
  llvm::json::Array A;
  for (const Dim &D : T.Dims)
    A.push_back(D.size());
  return A;
}

/// How many runs of a static file's batch the inputs hold: K when every
/// input is the model's shape but for dim 0, which is K times the model's
/// (the same K for all), and every output's dim 0 is that batch too; 1
/// otherwise (bindInputs then says what does not fit).
int64_t runsOfBatch(const CompiledModel &M,
                    const llvm::StringMap<Tensor> &ByName) {
  int64_t Runs = 0, Batch = 0;
  for (const CompiledIo &In : M.inputs()) {
    auto It = ByName.find(In.Name);
    if (It == ByName.end() || !In.Type.isStatic() || In.Type.rank() == 0)
      return 1;
    const Shape &Want = In.Type.Dims, &Got = It->second.type().Dims;
    if (Got.size() != Want.size() || It->second.type().Elem != In.Type.Elem ||
        !std::equal(Want.begin() + 1, Want.end(), Got.begin() + 1))
      return 1;
    int64_t B = Want[0].size(), N = Got[0].size();
    if (B <= 0 || N % B != 0 || (Runs && N / B != Runs) ||
        (Batch && B != Batch))
      return 1;
    Runs = N / B;
    Batch = B;
  }
  for (const CompiledIo &Out : M.outputs())
    if (Out.Type.rank() == 0 || Out.Type.Dims[0].size() != Batch)
      return 1;
  return Runs ? Runs : 1;
}

/// Rows [Run * B, (Run + 1) * B) of T along dim 0, for B = T's dim 0 / Runs.
Tensor rowsOf(const Tensor &T, int64_t Run, int64_t Runs) {
  TensorType Part = T.type();
  Part.Dims[0] = Dim(T.type().Dims[0].size() / Runs);
  size_t Bytes = T.buffer().size() / size_t(Runs);
  return Tensor(Part, Buffer::copy(T.buffer().bytes().slice(
                          size_t(Run) * Bytes, Bytes)));
}

/// The outputs of every run, joined along dim 0.
std::vector<Tensor> stackRuns(const std::vector<std::vector<Tensor>> &Runs) {
  std::vector<Tensor> Out;
  for (size_t I = 0; I < Runs.front().size(); ++I) {
    std::vector<uint8_t> Bytes;
    TensorType Type = Runs.front()[I].type();
    for (const auto &Run : Runs)
      Bytes.insert(Bytes.end(), Run[I].buffer().bytes().begin(),
                   Run[I].buffer().bytes().end());
    Type.Dims[0] = Dim(Type.Dims[0].size() * int64_t(Runs.size()));
    Out.emplace_back(Type, Buffer::own(std::move(Bytes)));
  }
  return Out;
}

/// Runs M on Inputs with the image files in Images decoded and fitted to
/// their inputs by the runtime (kiln_session_set_image: resized, bilinear).
llvm::Expected<std::vector<Tensor>>
runOnImages(CompiledModel &M, llvm::ArrayRef<Tensor> Inputs,
            const llvm::StringMap<std::string> &Images) {
  if (llvm::Error E = M.setInputs(Inputs))
    return E;
  for (size_t I = 0; I < M.inputs().size(); ++I) {
    auto It = Images.find(M.inputs()[I].Name);
    if (It == Images.end())
      continue;
    auto Info = M.imageInput(I);
    if (!Info)
      return usageError("--input {0}={1}: '{0}' is not an image input of this "
                        "file (convert it with --image-input {0}=FORMAT)",
                        It->getKey(), It->second);
    if (Info->format == KILN_PIXEL_NV21)
      return usageError("--input {0}={1}: '{0}' takes nv21 frames; give it "
                        "an .npy of the frame",
                        It->getKey(), It->second);
    bool Gray = Info->format == KILN_PIXEL_GRAY8;
    auto Img = readImageFile(It->second, Gray ? 1 : 3);
    if (!Img)
      return Img.takeError();
    if (llvm::Error E = M.setImage(I, Img->Pixels.data(), Img->Width,
                                   Img->Height, size_t(Img->Width * Img->Channels),
                                   Gray ? KILN_PIXEL_GRAY8 : KILN_PIXEL_RGB8))
      return E;
  }
  if (llvm::Error E = M.rerun())
    return E;
  return M.outputValues();
}

/// Runs a compiled .kiln file in the kiln runtime. A batch-polymorphic file
/// takes inputs of any batch; a static file given several of its batches
/// runs them in turn.
llvm::Expected<std::vector<Tensor>>
runCompiled(const RunOptions &O, CompiledModel &M, Signature &Sig,
            double &Ms) {
  if (!O.InputShapes.empty())
    return usageError("--input-shape does not apply to a .kiln file (its "
                      "shapes were fixed when it was converted)");
  Sig = signatureOf(M);
  llvm::StringMap<Tensor> ByName;
  llvm::StringMap<std::string> Images;
  if (llvm::Error E = collectInputs(O, Sig, ByName, &Images))
    return E;
  int64_t Runs = runsOfBatch(M, ByName);
  if (Runs > 1) {
    llvm::errs() << llvm::formatv(
        "kiln: note: {0} is static at batch {1}: running the {2} samples as "
        "{3} runs and stacking the outputs (a model converted without "
        "--input-shape takes any batch in one run)\n",
        O.Model, M.inputs()[0].Type.Dims[0].size(),
        M.inputs()[0].Type.Dims[0].size() * Runs, Runs);
  }
  std::vector<std::pair<std::string, TensorType>> Whole = Sig.Inputs;
  if (Runs > 1)
    for (auto &[Name, Type] : Sig.Inputs)
      Type.Dims[0] = Dim(Type.Dims[0].size() * Runs);
  auto Inputs = bindInputs(Sig, ByName);
  Sig.Inputs = std::move(Whole);
  if (!Inputs)
    return addContext(Inputs.takeError(), O.Model);
  CompiledModel::SessionSettings Settings = O.Session;
  Settings.Threads = O.Threads;
  for (const Tensor &T : *Inputs) // sized once, for these inputs
    Settings.InputShapes.push_back(staticSizes(T.type().Dims));
  if (llvm::Error E = M.createSession(Settings))
    return E;
  auto Start = std::chrono::steady_clock::now();
  std::vector<std::vector<Tensor>> PerRun;
  for (int64_t Run = 0; Run < Runs; ++Run) {
    std::vector<Tensor> Part;
    for (const Tensor &T : *Inputs)
      Part.push_back(Runs > 1 ? rowsOf(T, Run, Runs) : T);
    auto Outputs = Images.empty() ? M.run(Part) : runOnImages(M, Part, Images);
    if (!Outputs)
      return Outputs.takeError();
    PerRun.push_back(std::move(*Outputs));
  }
  Ms = std::chrono::duration<double, std::milli>(
           std::chrono::steady_clock::now() - Start)
           .count();
  return Runs > 1 ? stackRuns(PerRun) : std::move(PerRun.front());
}

/// Runs an IR model (.onnx, .kir, ...) in the reference interpreter.
llvm::Expected<std::vector<Tensor>> runInterpreted(const RunOptions &O,
                                                   Signature &Sig, double &Ms) {
  auto LoadOpts = makeLoadOptions(O.InputShapes);
  if (!LoadOpts)
    return LoadOpts.takeError();
  auto G = loadModel(O.Model, *LoadOpts);
  if (!G)
    return G.takeError();
  Sig = signatureOf(**G);
  llvm::StringMap<Tensor> ByName;
  if (llvm::Error E = collectInputs(O, Sig, ByName))
    return E;
  auto Inputs = bindInputs(Sig, ByName);
  if (!Inputs)
    return addContext(Inputs.takeError(), O.Model);

  InterpreterOptions IO;
  IO.Threads = O.Threads;
  Interpreter Interp(**G, IO);
  auto Start = std::chrono::steady_clock::now();
  auto Outputs = Interp.run(*Inputs);
  Ms = std::chrono::duration<double, std::milli>(
           std::chrono::steady_clock::now() - Start)
           .count();
  if (!Outputs)
    return addContext(Outputs.takeError(), O.Model);
  return Outputs;
}

/// kiln run --self-test: the file's sample through a session of the
/// given settings, twice, against its reference.
llvm::Error runSelfTest(const RunOptions &O) {
  if (!llvm::StringRef(O.Model).endswith(".kiln"))
    return usageError("--self-test runs a .kiln file's self-test; {0} is "
                      "not a .kiln file",
                      O.Model);
  if (!O.Inputs.empty() || !O.Output.empty() || !O.InputShapes.empty())
    return usageError("--self-test runs the file's own sample: drop --input, "
                      "--output and --input-shape");
  auto M = CompiledModel::load(O.Model);
  if (!M)
    return M.takeError();
  if (!M->hasSelfTest())
    return inputError("{0}: the file has no self-test; convert it with kiln "
                      "convert --self-test",
                      O.Model);
  CompiledModel::SessionSettings Settings = O.Session;
  Settings.Threads = O.Threads;
  if (llvm::Error E = M->createSession(Settings))
    return E;
  auto R = M->selfTest();
  if (!R)
    return R.takeError();
  CompiledModel::EngineInfo Engine = M->engineInfo();
  std::string Worst = R->worst_output < M->outputs().size()
                          ? M->outputs()[R->worst_output].Name
                          : "";
  std::string Where = Engine.Target;
  if (!Engine.Device.empty())
    Where += " (" + Engine.Device + ")";
  if (O.Json) {
    printJson(llvm::json::Object{
        {"model", O.Model},
        {"target", Engine.Target},
        {"device", Engine.Device},
        {"self_test",
         llvm::json::Object{
             {"passed", bool(R->passed)},
             {"deterministic", bool(R->deterministic)},
             {"worst_output", Worst},
             // An infinite error (a NaN output) is null, never a non-JSON
             // number; non_finite counts those elements.
             {"max_error", std::isfinite(R->max_error)
                               ? llvm::json::Value(R->max_error)
                               : llvm::json::Value(nullptr)},
             {"relative_error", std::isfinite(R->relative_error)
                                    ? llvm::json::Value(R->relative_error)
                                    : llvm::json::Value(nullptr)},
             {"tolerance", R->tolerance},
             {"compared", int64_t(R->compared)},
             {"non_finite", int64_t(R->non_finite)},
             {"run_ms", R->run_ms}}}});
  } else {
    commandOut() << llvm::formatv(
        "self-test {0} on {1}: worst output '{2}': max error {3} (relative "
        "{4}, tolerance {5}); {6} elements compared{7}; two runs {8}; first "
        "run {9:f2} ms\n",
        R->passed ? "passed" : "FAILED", Where, Worst,
        llvm::format("%.3g", R->max_error), llvm::format("%.3g", R->relative_error),
        llvm::format("%.3g", R->tolerance), R->compared,
        R->non_finite ? llvm::formatv(", {0} not finite", R->non_finite).str()
                      : "",
        R->deterministic ? "identical" : "DIFFER", R->run_ms);
  }
  if (R->passed)
    return llvm::Error::success();
  std::vector<std::string> Failures;
  if (!(R->max_error <= R->tolerance))
    Failures.push_back(llvm::formatv("self-test: output '{0}' is off by {1} "
                                     "(tolerance {2}) on {3}",
                                     Worst, llvm::format("%.3g", R->max_error),
                                     llvm::format("%.3g", R->tolerance), Where)
                           .str());
  if (!R->deterministic)
    Failures.push_back("self-test: two runs of the same input gave "
                       "different outputs on " + Where);
  if (Failures.empty()) // not passed, yet nothing above: say so anyway
    Failures.push_back("self-test: failed on " + Where);
  return linesError(ExitCode::GateFailed, O.Model + ": ", Failures);
}

llvm::Error runRun(const RunOptions &O) {
  if (O.SelfTest)
    return runSelfTest(O);
  Signature Sig;
  double Ms = 0;
  llvm::Expected<std::vector<Tensor>> Outputs = std::vector<Tensor>();
  if (llvm::StringRef(O.Model).endswith(".kiln")) {
    auto M = CompiledModel::load(O.Model);
    if (!M)
      return M.takeError();
    Outputs = runCompiled(O, *M, Sig, Ms);
  } else {
    Outputs = runInterpreted(O, Sig, Ms);
  }
  if (!Outputs)
    return Outputs.takeError();

  llvm::json::Array Files;
  if (!O.Output.empty())
    if (llvm::Error E = writeOutputs(O.Output, Sig, *Outputs, Files))
      return E;

  if (O.Json) {
    llvm::json::Array Outs;
    for (size_t I = 0; I < Outputs->size(); ++I) {
      const Tensor &T = (*Outputs)[I];
      llvm::json::Object Entry{{"name", Sig.Outputs[I]},
                               {"dtype", elementTypeName(T.type().Elem)},
                               {"shape", shapeJson(T.type())}};
      if (I < Files.size())
        Entry["file"] = *Files[I].getAsObject()->get("file");
      Outs.push_back(std::move(Entry));
    }
    printJson(llvm::json::Object{
        {"model", O.Model}, {"outputs", std::move(Outs)}, {"time_ms", Ms}});
    return llvm::Error::success();
  }
  for (size_t I = 0; I < Outputs->size(); ++I) {
    const Tensor &T = (*Outputs)[I];
    commandOut() << Sig.Outputs[I] << ": " << toString(T.type());
    int64_t N = std::min<int64_t>(T.numElements(), 6);
    commandOut() << " [";
    for (int64_t J = 0; J < N; ++J)
      commandOut() << (J ? ", " : "") << llvm::format("%.6g", T.asDouble(J));
    commandOut() << (T.numElements() > N ? ", ...]" : "]") << '\n';
  }
  if (!O.Output.empty())
    commandOut() << "wrote " << Outputs->size() << " output(s) to " << O.Output
                 << '\n';
  return llvm::Error::success();
}
} // namespace

Command addRunCommand(CLI::App &App) {
  auto O = std::make_shared<RunOptions>();
  CLI::App *Sub = App.add_subcommand(
      "run", "run a model on .npy/.npz inputs: .onnx/.pt/.kir in the reference "
             "interpreter, .kiln in the kiln runtime");
  Sub->add_option("model", O->Model,
                  "the model (.onnx, .pt TorchScript, .kir or .kiln)")
      ->required();
  Sub->add_option("-i,--input", O->Inputs,
                  "NAME=FILE.npy, FILE.npy (single-input models) or FILE.npz, "
                  "or NAME=PHOTO.png|.jpg for an image input of a .kiln file "
                  "(resized to it by the runtime) "
                  "(repeatable)")
      ->allow_extra_args(false);
  Sub->add_option("-o,--output", O->Output,
                  "a folder (one NAME.npy per output) or FILE.npz");
  Sub->add_option("--threads", O->Threads, "worker threads (0: all cores)");
  addSessionFlags(*Sub, O->Session, ".kiln: ");
  addInputShapeOption(*Sub, O->InputShapes);
  Sub->add_flag("--json", O->Json, "print a JSON report on stdout");
  Sub->add_flag("--self-test", O->SelfTest,
                "run a .kiln file's self-test (kiln convert --self-test) on "
                "the session's device: its sample, twice, against its "
                "reference; exit 3 when it fails");
  return {Sub, [O] { return runRun(*O); }};
}

} // namespace kiln

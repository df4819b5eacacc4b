// kiln-cpu-e2e: the CPU target end to end. Every ONNX conformance model
// (SUITE/node/*, SUITE/simple/*, test_data_set_0) and every example
// (EXAMPLES/*.onnx with NAME.input.npz) is imported, run unoptimized in the
// reference interpreter (the reference), optimized at -O2, compiled for the
// CPU target, written to .kiln bytes, loaded by the runtime and run on the
// default kernels (oneDNN where built, then XNNPACK), on XNNPACK alone and
// on the runtime's reference kernels alone. Where `--prepack native` blocks
// any weight, that file also runs on the default kernels (reading the
// blocked weights in place) and on XNNPACK (converting them back). Every run
// must match the reference within 1e-4 relative (plus 1e-6 absolute);
// integer outputs exactly. When kiln is built with the TorchScript frontend,
// the examples also include TorchScript fixtures (NAME.traced.pt /
// NAME.scripted.pt with NAME.input.npz). Models with an op the CPU target
// does not support are counted as UNSUPPORTED (with the reason), models that
// do not import or run in the interpreter as SKIP. Examples must pass, and
// convert byte-identically twice, portable and native.
//
// Each example is also quantized after -O2 (fp16 weights, int8-dynamic, and
// static int8 calibrated on its own input) and runs on the same three kernel
// sets against the interpreter's run of the same quantized graph: fp16, and
// int8-dynamic (whose activations the CPU target keeps in f32: the
// reference runs the graph's int8 weights on f32 activations too), within
// the float tolerances; static int8 against its QDQ form, at an SQNR of at
// least 50 dB for every output: integer kernels may round a value the other
// way where the float graph sits on a rounding tie, but on an AVX2 CPU
// every kernel set gives the QDQ graph's exact bits on every example, while
// oneDNN's int8 convolutions on the weights it halves (before the session
// declined them) gave 31-45 dB.
//
//   kiln-cpu-e2e [--suite DIR] [--examples DIR]... [--filter S] [--verbose]
#include "IR/NpyTensor.h"
#include "Interpreter/Interpreter.h"
#include "ModelChecks.h"
#include "RunInChild.h"
#include "RuntimeKernels.h"
#include "Support/Npy.h"
#include "backends/common/KilnWriter.h"
#include "backends/kilnops/KilnOps.h"
#include "backends/cpu/NativePrepack.h"
#include "frontends/onnx/OnnxImporter.h"
#ifdef KILN_WITH_TORCHSCRIPT
#include "frontends/torchscript/TorchScriptImporter.h"
#endif
#include "passes/PassManager.h"
#include "passes/Pipelines.h"
#include "passes/quant/QuantizeGraph.h"

#include "kiln/kiln.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

using namespace kiln;
using namespace kiln::testing;
using kiln::testing::Kernels;
using kiln::testing::kernelsName;
using kiln::testing::sessionOptions;

namespace {

/// The least SQNR of an int8 model's outputs against its QDQ graph's.
constexpr double MinInt8SqnrDb = 50;

struct Verdict {
  // PASS, PASS-NATIVE (the --prepack native file passed too), UNSUPPORTED,
  // SKIP or FAIL
  std::string Kind, Detail;
};

bool passed(const Verdict &V) {
  return V.Kind == "PASS" || V.Kind == "PASS-NATIVE";
}

/// Got against Ref with an int8 model's tolerance: same type, finite values,
/// SQNR of at least MinInt8SqnrDb; Worst keeps the lowest SQNR seen.
std::string compareInt8(const Tensor &Got, const Tensor &Ref, double &Worst) {
  if (Got.type().Elem != Ref.type().Elem || Got.type().Dims != Ref.type().Dims)
    return "type " + toString(Got.type()) + ", expected " + toString(Ref.type());
  for (int64_t I = 0; I < Got.numElements(); ++I)
    if (!std::isfinite(Got.asDouble(I)))
      return llvm::formatv("at {0}: {1}", I, Got.asDouble(I));
  double Db = sqnrDb(Got, Ref);
  Worst = std::min(Worst, Db);
  if (Db < MinInt8SqnrDb)
    return llvm::formatv("SQNR {0:f1} dB against the QDQ graph, below {1} dB",
                         Db, MinInt8SqnrDb);
  return "";
}

struct CompiledBytes {
  std::string Portable;
  /// `--prepack native` bytes; empty where no weight was blocked (no
  /// oneDNN, or no convolution or linear layer it runs).
  std::string Native;
};

llvm::Expected<CompiledBytes> compileToBytes(Graph &G) {
  auto C = lowerToKilnOps(G);
  if (!C)
    return C.takeError();
  CompiledBytes Out;
  auto Portable = serializeKilnModule(C->Module);
  if (!Portable)
    return Portable.takeError();
  Out.Portable = std::move(*Portable);
  auto Prepacked = prepackForThisCpu(C->Module);
  if (!Prepacked)
    return Prepacked.takeError();
  if (!Prepacked->Tensors)
    return Out;
  auto Native = serializeKilnModule(C->Module);
  if (!Native)
    return Native.takeError();
  if (llvm::Error E = Prepacked->conversionError())
    return E;
  Out.Native = std::move(*Native);
  return Out;
}

Verdict checkModel(const std::string &Path, std::vector<Tensor> Inputs,
                   bool IsExample) {
  auto G = importModel(Path);
  if (!G)
    return {"SKIP", "import: " + firstLine(G.takeError())};
  if (Inputs.size() != (*G)->numInputs())
    return {"SKIP", "input count"};
  for (unsigned I = 0; I < Inputs.size(); ++I) {
    Inputs[I] = asDeclared(std::move(Inputs[I]), (*G)->input(I)->type().Elem);
    // The interpreter tolerates unused inputs of another shape; a compiled
    // model binds exactly what it declares.
    if (!isCompatible((*G)->input(I)->type(), Inputs[I].type()))
      return {"SKIP", "input " + std::to_string(I) + " does not match its "
                      "declared type"};
  }
  InterpreterOptions IO;
  IO.Threads = 1;
  auto Ref = Interpreter(**G, IO).run(Inputs);
  if (!Ref)
    return {"SKIP", "interpreter: " + firstLine(Ref.takeError())};
  if (llvm::Error E = optimize(**G))
    return {"FAIL", "-O2: " + firstLine(std::move(E))};
  auto Bytes = compileToBytes(**G);
  if (!Bytes) {
    std::string Why = llvm::toString(Bytes.takeError());
    if (Why.find("the CPU target cannot run") != std::string::npos)
      return {"UNSUPPORTED", firstReason(Why)};
    return {"FAIL", "compile: " + Why.substr(0, Why.find('\n'))};
  }
  struct Run {
    const std::string *Bytes;
    Kernels K;
    const char *File;
  };
  std::vector<Run> Runs = {{&Bytes->Portable, Kernels::Default, ""},
                           {&Bytes->Portable, Kernels::XnnpackOnly, ""},
                           {&Bytes->Portable, Kernels::ReferenceOnly, ""}};
  // A native file reads its blocked weights in place on oneDNN, and
  // converts them back for XNNPACK.
  if (!Bytes->Native.empty())
    for (Kernels K : {Kernels::Default, Kernels::XnnpackOnly})
      Runs.push_back({&Bytes->Native, K, "native file, "});
  for (const Run &R : Runs) {
    std::vector<Tensor> Got;
    std::string Why = runCompiled(*R.Bytes, Inputs, sessionOptions(R.K), Got);
    std::string Engine = std::string(R.File) + kernelsName(R.K);
    if (!Why.empty())
      return {"FAIL", Engine + ": " + Why};
    if (Got.size() != Ref->size())
      return {"FAIL", Engine + ": output count"};
    for (size_t I = 0; I < Got.size(); ++I) {
      std::string Diff = compare(Got[I], (*Ref)[I]);
      if (!Diff.empty())
        return {"FAIL",
                llvm::formatv("{0}: output {1}: {2}", Engine, I, Diff).str()};
    }
  }
  if (IsExample) {
    auto G2 = importModel(Path);
    if (!G2)
      return {"FAIL", "re-import"};
    if (llvm::Error E = optimize(**G2))
      return {"FAIL", "-O2 again: " + firstLine(std::move(E))};
    auto Bytes2 = compileToBytes(**G2);
    if (!Bytes2)
      return {"FAIL", "compile again: " + firstLine(Bytes2.takeError())};
    if (Bytes2->Portable != Bytes->Portable)
      return {"FAIL", "two conversions differ"};
    if (Bytes2->Native != Bytes->Native)
      return {"FAIL", "two native conversions differ"};
  }
  if (Bytes->Native.empty())
    return {"PASS", llvm::formatv("{0} bytes", Bytes->Portable.size()).str()};
  return {"PASS-NATIVE", llvm::formatv("{0} bytes, native {1}",
                                       Bytes->Portable.size(),
                                       Bytes->Native.size())
                             .str()};
}

/// What the CPU target runs of an int8-dynamic graph: the int8 weights
/// (widened), on f32 activations, since it has no kernels that quantize
/// activations at run time (backends/kilnops/QuantLowering.cpp). Each
/// dynamic_quantize -> dequantize pair of an activation is bypassed.
void keepActivationsFloat(Graph &G) {
  for (Node &N : G.nodes()) {
    if (!N.isOp("dequantize"))
      continue;
    Node *P = N.operand(0)->producer();
    if (P && P->isOp("dynamic_quantize") && N.operand(0)->resultIndex() == 0)
      G.replaceAllUsesWith(N.result(), P->operand(0));
  }
}

/// The example at Path (inputs Inputs, calibration data CalibPath) after
/// -O2 and Mode, compiled and run on every kernel set against the
/// interpreter's run of the same quantized graph. "" or what failed; Detail
/// gets a note of the worst int8 SQNR.
std::string checkQuantized(const std::string &Path,
                           const std::vector<Tensor> &Inputs,
                           const std::string &CalibPath, QuantizeMode Mode,
                           std::string &Detail) {
  const std::string Name = quantizeModeName(Mode).str();
  auto G = importModel(Path);
  if (!G)
    return Name + ": import: " + firstLine(G.takeError());
  if (llvm::Error E = optimize(**G))
    return Name + ": -O2: " + firstLine(std::move(E));
  QuantizeOptions QO;
  QO.Mode = Mode;
  QO.Threads = 1;
  if (Mode == QuantizeMode::Int8)
    QO.Data.Path = CalibPath;
  QuantizeReport Report;
  if (llvm::Error E = quantizeGraph(**G, QO, Report))
    return Name + ": quantize: " + firstLine(std::move(E));
  auto C = lowerToKilnOps(**G);
  if (!C)
    return Name + ": compile: " + firstLine(C.takeError());
  auto Bytes = serializeKilnModule(C->Module);
  if (!Bytes)
    return Name + ": write: " + firstLine(Bytes.takeError());
  if (Mode == QuantizeMode::Int8Dynamic)
    keepActivationsFloat(**G);
  InterpreterOptions IO;
  IO.Threads = 1;
  auto Ref = Interpreter(**G, IO).run(Inputs);
  if (!Ref)
    return Name + ": interpreter: " + firstLine(Ref.takeError());
  double Worst = 200;
  for (Kernels K :
       {Kernels::Default, Kernels::XnnpackOnly, Kernels::ReferenceOnly}) {
    std::vector<Tensor> Got;
    std::string Engine = Name + ", " + kernelsName(K);
    std::string Why = runCompiled(*Bytes, Inputs, sessionOptions(K), Got);
    if (!Why.empty())
      return Engine + ": " + Why;
    if (Got.size() != Ref->size())
      return Engine + ": output count";
    for (size_t I = 0; I < Got.size(); ++I) {
      std::string Diff = Mode == QuantizeMode::Int8
                             ? compareInt8(Got[I], (*Ref)[I], Worst)
                             : compare(Got[I], (*Ref)[I]);
      if (!Diff.empty())
        return llvm::formatv("{0}: output {1}: {2}", Engine, I, Diff).str();
    }
  }
  if (Mode == QuantizeMode::Int8)
    Detail += llvm::formatv(", int8 SQNR >= {0:f1} dB", Worst).str();
  return "";
}

Verdict checkNodeTest(const std::string &Folder) {
  std::vector<Tensor> Inputs;
  for (unsigned I = 0;; ++I) {
    std::string P =
        Folder + "/test_data_set_0/input_" + std::to_string(I) + ".pb";
    if (!llvm::sys::fs::exists(P))
      break;
    auto T = readTensorProtoFile(P);
    if (!T)
      return {"SKIP", "reading inputs: " + firstLine(T.takeError())};
    Inputs.push_back(std::move(*T));
  }
  return checkModel(Folder + "/model.onnx", std::move(Inputs), false);
}

Verdict checkExample(const std::string &Model) {
  std::string NpzPath = inputsFileFor(Model);
  auto Npz = readNpzFile(NpzPath);
  if (!Npz)
    return {"FAIL", "reading " + NpzPath + ": " + firstLine(Npz.takeError())};
  auto G = importModel(Model);
  if (!G)
    return {"FAIL", "import: " + firstLine(G.takeError())};
  std::vector<Tensor> Inputs;
  for (const Value *In : (*G)->inputs()) {
    auto It = std::find_if(Npz->begin(), Npz->end(),
                           [&](const auto &E) { return E.first == In->name(); });
    if (It == Npz->end())
      return {"FAIL", "no array '" + In->name() + "' in " + NpzPath};
    Inputs.push_back(tensorFromNpy(It->second));
  }
  Verdict V = checkModel(Model, Inputs, true);
  if (!passed(V)) // the examples are what the CPU target is for
    return {"FAIL", V.Kind + ": " + V.Detail};
  for (QuantizeMode Mode : {QuantizeMode::Fp16, QuantizeMode::Int8Dynamic,
                            QuantizeMode::Int8}) {
    std::string Why = checkQuantized(Model, Inputs, NpzPath, Mode, V.Detail);
    if (!Why.empty())
      return {"FAIL", Why};
  }
  return V;
}

template <typename Fn> Verdict isolated(Fn Check) {
  kiln::testing::ChildResult R =
      kiln::testing::runInChild(120, [&]() -> std::string {
        Verdict V = Check();
        return V.Kind + " " + V.Detail;
      });
  if (!R.Failure.empty())
    return {"FAIL", R.Failure};
  size_t Space = R.Output.find(' ');
  if (Space == std::string::npos)
    return {"FAIL", "the check exited without a verdict"};
  return {R.Output.substr(0, Space), R.Output.substr(Space + 1)};
}

} // namespace

int main(int Argc, char **Argv) {
  std::string Suite, Filter;
  std::vector<std::string> Examples;
  bool Verbose = false;
  for (int I = 1; I < Argc; ++I) {
    std::string S = Argv[I], Next = I + 1 < Argc ? Argv[I + 1] : "";
    if (S == "--verbose") {
      Verbose = true;
      continue;
    }
    if (S == "--suite")
      Suite = Next;
    else if (S == "--examples")
      Examples.push_back(Next);
    else if (S == "--filter")
      Filter = Next;
    else {
      llvm::errs() << "usage: kiln-cpu-e2e [--suite DIR] [--examples DIR]... "
                      "[--filter S] [--verbose]\n";
      return 2;
    }
    ++I;
  }
  std::vector<std::pair<std::string, std::string>> Models;
  for (const std::string &Dir : Examples)
    for (const std::string &P : listDir(Dir, false))
      if (llvm::StringRef(P).endswith(".onnx") ||
          llvm::StringRef(P).endswith(".pt"))
        Models.push_back({"example/" + llvm::sys::path::filename(P).str(), P});
  size_t NumExamples = Models.size();
  if (!Suite.empty())
    for (const char *Sub : {"node", "simple"})
      for (const std::string &P : listDir(Suite + "/" + Sub, true))
        Models.push_back(
            {std::string(Sub) + "/" + llvm::sys::path::filename(P).str(), P});
  if (Models.empty()) {
    llvm::errs() << "kiln-cpu-e2e: no models found; skipping\n";
    return 77;
  }
  std::map<std::string, unsigned> Counts;
  std::map<std::string, unsigned> Reasons;
  for (size_t I = 0; I < Models.size(); ++I) {
    const std::string &Name = Models[I].first, &Path = Models[I].second;
    if (!Filter.empty() && Name.find(Filter) == std::string::npos)
      continue;
    bool Example = I < NumExamples;
    Verdict V = isolated(
        [&] { return Example ? checkExample(Path) : checkNodeTest(Path); });
    ++Counts[V.Kind];
    if (V.Kind == "UNSUPPORTED") {
      std::string Reason = V.Detail.substr(V.Detail.find("): ") + 3);
      ++Reasons[Reason.substr(0, 60)];
    }
    if (V.Kind == "FAIL" || Example || Verbose)
      llvm::outs() << V.Kind << ' ' << Name << ": " << V.Detail << '\n';
  }
  if (Verbose)
    for (const auto &[Reason, N] : Reasons)
      llvm::outs() << llvm::formatv("{0,4} unsupported: {1}\n", N, Reason);
  llvm::outs() << Counts["PASS"] + Counts["PASS-NATIVE"]
               << " models match the interpreter on the CPU target (default, "
                  "XNNPACK-only and reference kernels; the "
               << NumExamples
               << " examples also in fp16, int8-dynamic and int8; "
               << Counts["PASS-NATIVE"]
               << " of them also as --prepack native files, on the default "
                  "kernels and XNNPACK), "
               << Counts["FAIL"] << " failed, " << Counts["UNSUPPORTED"]
               << " use ops the CPU target does not support, " << Counts["SKIP"]
               << " skipped (do not import or run in the interpreter)\n";
  return Counts["FAIL"] == 0 ? 0 : 1;
}

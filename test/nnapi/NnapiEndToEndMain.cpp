// kiln-nnapi-e2e: the NNAPI target end to end through the host NNAPI
// device (test/nnapi/host_device/, loaded by the runtime's NNAPI executor
// with dlopen exactly as libneuralnetworks.so is on Android; the test's
// environment names it in KILN_NNAPI_LIBRARY).
//
// Every ONNX conformance model, example, TorchScript fixture and kernel
// edge case is imported, run unoptimized in the reference interpreter,
// optimized at -O2, lowered for NNAPI at the lowest feature level that
// can express it, and run; every output must match the interpreter within
// 1e-4 relative (plus 1e-6 absolute). Models with an operator NNAPI cannot
// express count as UNSUPPORTED. Examples and edge cases must pass and
// convert byte-identically twice, and are also lowered at each feature
// level 27, 29 and 30: each either runs and matches, or is refused with
// the level it needs.
//
// Examples and edge cases are also converted with --quantize fp16 (relaxed
// computation), run twice: as AOSP's reference (fp32) and as a strict fp16
// driver (KILN_NNAPI_HOST_RELAXED=fp16: weights, values and sums in fp16);
// both must keep an SQNR of 40 dB against the fp32 reference.
//
// Examples are also quantized to int8 (calibrated on their own inputs) and
// run at levels 29 (uint8 with shifted zero points) and 30 (int8), checked
// two ways:
//  - per layer, teacher-forced, the strict bar: every int8 layer of kiln's
//    CPU int8 file (convolutions, fully connected, binary, pools, concat,
//    reshape, transpose) is lowered for NNAPI alone and run on the CPU
//    file's own int8 inputs of that layer; every element of its output must
//    be within one quantum (1 in int8 units) of the CPU file's, which
//    matches the QDQ graph exactly (PerLayerInt8.h). A reshape or
//    transpose that the lowering leaves to the host when alone is skipped.
//  - at the outputs: each output's SQNR against the interpreter's run of
//    the QDQ graph must be at least 30 dB. The worst difference in quanta
//    (its DEQUANTIZE's scale) against the QDQ graph and the CPU file is
//    reported, not bounded: NNAPI's integer requantization differs from
//    kiln's float requantization by up to one quantum per layer, and a
//    network can amplify that (4 quanta at MobileNetV3-small's output).
//
//   kiln-nnapi-e2e [--suite DIR] [--examples DIR]... [--kir DIR]...
//                  [--filter S] [--verbose]
#include "Interpreter/Interpreter.h"
#include "EndToEndDriver.h"
#include "ModelChecks.h"
#include "PerLayerInt8.h"
#include "backends/common/KilnWriter.h"
#include "backends/kilnops/KilnOps.h"
#include "backends/nnapi/NnapiTarget.h"
#include "passes/quant/QuantizeGraph.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdlib>
#include <map>

using namespace kiln;
using namespace kiln::testing;

namespace {

kiln_session_options sessionOptions() {
  kiln_session_options O;
  kiln_session_options_init(&O);
  O.num_threads = 1;
  return O;
}

llvm::Expected<std::string> nnapiBytes(Graph &G, int32_t Level,
                                       int32_t *Needed = nullptr) {
  auto C = compileForNnapi(G, Level, false);
  if (!C)
    return C.takeError();
  if (Needed)
    *Needed = C->FeatureLevel;
  return serializeKilnModule(C->Module);
}

using GraphSource = std::function<llvm::Expected<std::unique_ptr<Graph>>()>;

std::string compareAll(const std::vector<Tensor> &Got,
                       const std::vector<Tensor> &Ref) {
  if (Got.size() != Ref.size())
    return "output count";
  for (size_t I = 0; I < Got.size(); ++I) {
    std::string Diff = compare(Got[I], Ref[I]);
    if (!Diff.empty())
      return llvm::formatv("output {0}: {1}", I, Diff).str();
  }
  return "";
}

/// Lowers a fresh -O2 graph at each fixed level; "" or what failed. A
/// level may refuse the model only by naming the level it needs.
std::string checkLevels(const GraphSource &Fresh,
                        const std::vector<Tensor> &Inputs,
                        const std::vector<Tensor> &Ref, std::string &Detail) {
  for (int32_t Level : {27, 29, 30}) {
    auto G = Fresh();
    if (!G)
      return "import: " + firstLine(G.takeError());
    if (llvm::Error E = optimize(**G))
      return "-O2: " + firstLine(std::move(E));
    auto Bytes = nnapiBytes(**G, Level);
    if (!Bytes) {
      std::string Why = llvm::toString(Bytes.takeError());
      if (Why.find("needs NNAPI feature level") == std::string::npos &&
          Why.find("needs feature level") == std::string::npos)
        return llvm::formatv("level {0}: refused without naming a level: {1}",
                             Level, Why.substr(0, Why.find('\n')))
            .str();
      Detail += llvm::formatv("; {0} refused", Level).str();
      continue;
    }
    std::vector<Tensor> Got;
    std::string Why = runCompiled(*Bytes, Inputs, sessionOptions(), Got);
    if (Why.empty())
      Why = compareAll(Got, Ref);
    if (!Why.empty())
      return llvm::formatv("level {0}: {1}", Level, Why).str();
    Detail += llvm::formatv("; {0} ok", Level).str();
  }
  return "";
}

/// --quantize fp16 (the IR quantizer's f16 weights, widened in the file,
/// computation relaxed to fp16 where the device wants), run as the
/// reference and as a strict fp16 driver: every output must keep an SQNR
/// of at least 40 dB against the fp32 reference in both.
constexpr double MinFp16Sqnr = 40;

std::string checkFp16(const GraphSource &Fresh,
                      const std::vector<Tensor> &Inputs,
                      const std::vector<Tensor> &Ref, std::string &Detail) {
  auto G = Fresh();
  if (!G)
    return "fp16: import: " + firstLine(G.takeError());
  if (llvm::Error E = optimize(**G))
    return "fp16: -O2: " + firstLine(std::move(E));
  QuantizeOptions QO;
  QO.Mode = QuantizeMode::Fp16;
  QO.Threads = 1;
  QuantizeReport Report;
  if (llvm::Error E = quantizeGraph(**G, QO, Report))
    return "fp16: quantize: " + firstLine(std::move(E));
  auto C = compileForNnapi(**G, 0, true);
  if (!C)
    return "fp16: compile: " + firstLine(C.takeError());
  auto Bytes = serializeKilnModule(C->Module);
  if (!Bytes)
    return "fp16: write: " + firstLine(Bytes.takeError());
  // Both ends of what a phone may do with the relaxed flag: the reference
  // (fp32, fp16 weights) and a strict fp16 driver (the host device's
  // KILN_NNAPI_HOST_RELAXED=fp16: values and sums in fp16).
  double Worst[2] = {200, 200};
  const char *Env = std::getenv("KILN_NNAPI_HOST_RELAXED");
  const std::string Saved = Env ? Env : "";
  for (int Strict = 0; Strict < 2; ++Strict) {
    const char *Mode = Strict ? "strict fp16" : "reference";
    setenv("KILN_NNAPI_HOST_RELAXED", Strict ? "fp16" : "reference", 1);
    std::vector<Tensor> Got;
    std::string Why = runCompiled(*Bytes, Inputs, sessionOptions(), Got);
    if (Env)
      setenv("KILN_NNAPI_HOST_RELAXED", Saved.c_str(), 1);
    else
      unsetenv("KILN_NNAPI_HOST_RELAXED");
    if (!Why.empty())
      return std::string("fp16 (") + Mode + "): " + Why;
    if (Got.size() != Ref.size())
      return "fp16: output count";
    for (size_t I = 0; I < Got.size(); ++I) {
      if (Got[I].type() != Ref[I].type())
        return llvm::formatv("fp16: output {0}: type differs", I).str();
      double Db = sqnrDb(Got[I], Ref[I]);
      Worst[Strict] = std::min(Worst[Strict], Db);
      if (!(Db >= MinFp16Sqnr))
        return llvm::formatv("fp16 ({0}): output {1}: SQNR {2:f1} dB < {3} dB",
                             Mode, I, Db, MinFp16Sqnr)
            .str();
    }
  }
  Detail += llvm::formatv("; fp16 (relaxed, level {0}) SQNR {1:f1} dB "
                          "reference, {2:f1} dB strict fp16",
                          C->FeatureLevel, Worst[0], Worst[1])
                .str();
  return "";
}

/// The scale of each graph output that a DEQUANTIZE writes (0: a float
/// output), from a compiled module.
std::vector<float> outputQuanta(const KilnModule &M) {
  std::vector<float> Q;
  for (int32_t Out : M.Model.outputs) {
    float Scale = 0;
    for (const auto &Op : M.Model.operators)
      if (Op->kind == fb::OpKind::DEQUANTIZE && Op->outputs[0] == Out) {
        const auto &In = *M.Model.tensors[size_t(Op->inputs[0])];
        if (In.quant && !In.quant->scale.empty())
          Scale = In.quant->scale[0];
      }
    Q.push_back(Scale);
  }
  return Q;
}

/// The least SQNR of an int8 model's outputs against its QDQ graph's.
constexpr double MinInt8SqnrDb = 30;

/// The worst difference of Got from Ref in quanta (Quanta[i]: one quantum
/// of output i; float outputs, 0, are left out).
double worstQuanta(const std::vector<Tensor> &Got,
                   const std::vector<Tensor> &Ref,
                   const std::vector<float> &Quanta) {
  double Worst = 0;
  for (size_t I = 0; I < Got.size() && I < Ref.size() && I < Quanta.size();
       ++I)
    for (int64_t K = 0; Quanta[I] > 0 && K < Got[I].numElements(); ++K)
      Worst = std::max(
          Worst, std::abs(Got[I].asDouble(K) - Ref[I].asDouble(K)) / Quanta[I]);
  return Worst;
}

/// The least SQNR of Got's outputs against Ref's; "" or what differs.
std::string leastSqnr(const std::vector<Tensor> &Got,
                      const std::vector<Tensor> &Ref, double &Least) {
  if (Got.size() != Ref.size())
    return "output count";
  for (size_t I = 0; I < Got.size(); ++I) {
    if (Got[I].type() != Ref[I].type())
      return llvm::formatv("output {0}: type differs", I).str();
    Least = std::min(Least, sqnrDb(Got[I], Ref[I]));
  }
  return "";
}

std::string checkInt8(const std::string &Path,
                      const std::vector<Tensor> &Inputs, std::string &Detail) {
  for (int32_t Level : {29, 30}) {
    auto G = importModel(Path);
    if (!G)
      return "int8: import: " + firstLine(G.takeError());
    if (llvm::Error E = optimize(**G))
      return "int8: -O2: " + firstLine(std::move(E));
    QuantizeOptions QO;
    QO.Mode = QuantizeMode::Int8;
    QO.Threads = 1;
    QO.Data.Path = inputsFileFor(Path);
    QuantizeReport Report;
    if (llvm::Error E = quantizeGraph(**G, QO, Report))
      return "int8: quantize: " + firstLine(std::move(E));
    auto Cpu = lowerToKilnOps(**G);
    if (!Cpu)
      return "int8: CPU compile: " + firstLine(Cpu.takeError());
    std::vector<float> Quanta = outputQuanta(Cpu->Module);
    auto CpuBytes = serializeKilnModule(Cpu->Module);
    if (!CpuBytes)
      return "int8: CPU write: " + firstLine(CpuBytes.takeError());
    auto Bytes = nnapiBytes(**G, Level);
    if (!Bytes) {
      std::string Why = llvm::toString(Bytes.takeError());
      if (Why.find("needs NNAPI feature level") == std::string::npos &&
          Why.find("needs feature level") == std::string::npos)
        return llvm::formatv("int8 level {0}: compile: {1}", Level,
                             Why.substr(0, Why.find('\n')))
            .str();
      Detail += llvm::formatv("; int8@{0} refused", Level).str();
      continue;
    }
    InterpreterOptions IO;
    IO.Threads = 1;
    auto Qdq = Interpreter(**G, IO).run(Inputs);
    if (!Qdq)
      return "int8: interpreter: " + firstLine(Qdq.takeError());
    std::vector<Tensor> Got, CpuGot;
    std::vector<std::vector<uint8_t>> CpuTensors;
    std::string Why = runCompiled(*Bytes, Inputs, sessionOptions(), Got);
    if (Why.empty())
      Why = runCompiled(*CpuBytes, Inputs, sessionOptions(), CpuGot);
    if (Why.empty())
      Why = runKeepingTensors(*CpuBytes, Inputs, CpuTensors);
    if (!Why.empty())
      return llvm::formatv("int8 level {0}: {1}", Level, Why).str();
    // The strict bar: each layer alone within a quantum of the CPU file.
    PerLayerFigures Layers;
    std::string LayerWhy =
        checkInt8PerLayer(Cpu->Module, CpuTensors, Level, Layers);
    std::string Figures =
        llvm::formatv("int8@{0} {1} layers (+{2} host-only) worst {3} "
                      "quanta ({4} one off; by kind, worst/layers: {5})",
                      Level, Layers.Checked, Layers.Skipped, Layers.Worst,
                      Layers.OffByOne, Layers.byKind())
            .str();
    if (!LayerWhy.empty())
      return Figures + ": " + LayerWhy;
    // At the outputs: SQNR against the QDQ graph, and (for the record) the
    // worst differences in quanta against the QDQ graph and the CPU file,
    // and of the CPU file against the QDQ graph.
    double Sqnr = 200;
    std::string SqnrWhy = leastSqnr(Got, *Qdq, Sqnr);
    if (SqnrWhy.empty() && CpuGot.size() != Got.size())
      SqnrWhy = "the CPU file's output count differs";
    Figures += llvm::formatv(", outputs {0:f2}/{1:f2} quanta (QDQ/CPU; CPU "
                             "against QDQ {2:f2}), SQNR {3:f1} dB",
                             worstQuanta(Got, *Qdq, Quanta),
                             worstQuanta(Got, CpuGot, Quanta),
                             worstQuanta(CpuGot, *Qdq, Quanta), Sqnr)
                   .str();
    if (!SqnrWhy.empty())
      return Figures + ": " + SqnrWhy;
    if (Sqnr < MinInt8SqnrDb)
      return llvm::formatv("{0}: SQNR against the QDQ graph below {1} dB",
                           Figures, MinInt8SqnrDb)
          .str();
    Detail += "; " + Figures;
  }
  return "";
}

Verdict checkModel(Graph &G, const std::vector<Tensor> &Inputs, bool MustPass,
                   const GraphSource &Fresh, const std::string &Int8Path) {
  InterpreterOptions IO;
  IO.Threads = 1;
  auto Ref = Interpreter(G, IO).run(Inputs);
  if (!Ref)
    return {"SKIP", "interpreter: " + firstLine(Ref.takeError())};
  if (llvm::Error E = optimize(G))
    return {"FAIL", "-O2: " + firstLine(std::move(E))};
  int32_t Level = 0;
  auto Bytes = nnapiBytes(G, 0, &Level);
  if (!Bytes) {
    std::string Why = llvm::toString(Bytes.takeError());
    if (Why.find("cannot run") != std::string::npos && !MustPass) {
      std::string First = Why.substr(Why.find('\n') + 1);
      First = First.substr(First.find_first_not_of(' '));
      return {"UNSUPPORTED", First.substr(0, First.find('\n'))};
    }
    return {"FAIL", "compile: " + Why.substr(0, Why.find('\n'))};
  }
  std::vector<Tensor> Got;
  std::string Why = runCompiled(*Bytes, Inputs, sessionOptions(), Got);
  if (Why.empty())
    Why = compareAll(Got, *Ref);
  if (!Why.empty())
    return {"FAIL", Why};
  std::string Detail =
      llvm::formatv("{0} bytes, level {1}", Bytes->size(), Level).str();
  if (Fresh) {
    auto G2 = Fresh();
    if (!G2)
      return {"FAIL", "re-import: " + firstLine(G2.takeError())};
    if (llvm::Error E = optimize(**G2))
      return {"FAIL", "-O2 again: " + firstLine(std::move(E))};
    auto Bytes2 = nnapiBytes(**G2, 0);
    if (!Bytes2)
      return {"FAIL", "compile again: " + firstLine(Bytes2.takeError())};
    if (*Bytes2 != *Bytes)
      return {"FAIL", "two conversions differ"};
    if (std::string W = checkLevels(Fresh, Inputs, *Ref, Detail); !W.empty())
      return {"FAIL", W};
    if (std::string W = checkFp16(Fresh, Inputs, *Ref, Detail); !W.empty())
      return {"FAIL", W};
  }
  if (!Int8Path.empty())
    if (std::string W = checkInt8(Int8Path, Inputs, Detail); !W.empty())
      return {"FAIL", W};
  return {"PASS", Detail};
}

Verdict checkNodeTest(const std::string &Folder) {
  std::unique_ptr<Graph> G;
  std::vector<Tensor> Inputs;
  if (Verdict V = loadNodeTest(Folder, G, Inputs); !V.Kind.empty())
    return V;
  return checkModel(*G, Inputs, false, nullptr, "");
}

Verdict checkExample(const std::string &Path) {
  auto G = importModel(Path);
  if (!G)
    return {"FAIL", "import: " + firstLine(G.takeError())};
  auto Inputs = exampleInputs(Path, **G);
  if (!Inputs)
    return {"FAIL", firstLine(Inputs.takeError())};
  GraphSource Fresh = [&] { return importModel(Path); };
  return checkModel(**G, *Inputs, true, Fresh, Path);
}

/// A .kir edge case on seeded uniform inputs in [-2, 2].
Verdict checkKir(const std::string &Path) {
  auto G = parseKirFile(Path);
  if (!G)
    return {"FAIL", "parse: " + firstLine(G.takeError())};
  return checkModel(**G, seededInputs(**G), false,
                    [&] { return parseKirFile(Path); }, "");
}

} // namespace

int main(int Argc, char **Argv) {
  DriverArgs A;
  if (!parseDriverArgs(Argc, Argv, "kiln-nnapi-e2e", A))
    return 2;
  if (!std::getenv("KILN_NNAPI_LIBRARY")) {
    llvm::errs() << "kiln-nnapi-e2e: set KILN_NNAPI_LIBRARY to the host NNAPI "
                    "device (libkiln_nnapi_host.so)\n";
    return 1;
  }
  std::vector<ModelEntry> Models = collectModels(A);
  if (Models.empty()) {
    llvm::errs() << "kiln-nnapi-e2e: no models found\n";
    return 1;
  }
  RunCounts C = runModels(Models, A, 600,
                          {checkExample, checkKir, checkNodeTest});
  auto &Counts = C.Kinds;
  llvm::outs() << Counts["PASS"]
               << " models match the interpreter through NNAPI ("
               << C.Examples << " examples, " << C.Kirs
               << " kernel edge cases), " << Counts["FAIL"] << " failed, "
               << Counts["UNSUPPORTED"] << " use ops NNAPI cannot express, "
               << Counts["SKIP"] << " skipped\n";
  return Counts["FAIL"] == 0 ? 0 : 1;
}

// kiln-vulkan-e2e: the Vulkan target end to end on whatever Vulkan device
// the machine has (Mesa lavapipe in CI), with the Khronos validation layer
// on. Every ONNX conformance model (SUITE/node/*, SUITE/simple/*), every
// example and TorchScript fixture (EXAMPLES/*.onnx, *.pt with NAME.input.npz)
// and every kernel edge case (KIR/*.kir, run on seeded random inputs) is
// imported, run unoptimized in the reference interpreter, optimized at -O2,
// compiled for the Vulkan target, written to .kiln bytes, loaded by the
// runtime and run on the device. Every output must match the reference
// within 1e-4 relative (plus 1e-6 absolute). Models with an operator the
// Vulkan target has no kernel for count as UNSUPPORTED, with the reason;
// models that do not import or run in the interpreter as SKIP. Examples and
// edge cases must pass, and examples must convert byte-identically twice.
// Examples and edge cases are also converted with --quantize fp16 (the IR
// quantizer's f16 weights, fp16 storage on the device) and run twice: with
// the fp16-arithmetic kernels where the device has shaderFloat16 (lavapipe
// does), and with fp16_arithmetic off (fp32 arithmetic, what a device
// without it runs). Both must keep an SQNR of at least 40 dB against the
// fp32 reference on every output; the worst of each is printed per model.
// Every model that matches is also converted with its bindings halved (its
// shape constants then lie about them) and run with robustBufferAccess on
// and off: the outputs must be byte-identical, which holds only if every
// kernel stays inside its bindings (docs/security.md; lavapipe bounds every
// access whatever the setting, so there it cannot fail, but every kernel
// runs on lying bindings). Before the models, one lie with a hand-computed
// answer (checkClampedRead) tells checked kernels from trusting ones on
// lavapipe too.
//
// With no Vulkan device the test fails when the environment has CI set
// (a CI machine must have lavapipe), and exits 77 (skipped) otherwise.
//
//   kiln-vulkan-e2e [--suite DIR] [--examples DIR]... [--kir DIR]
//                   [--filter S] [--verbose]
#include "IR/Parser.h"
#include "Interpreter/Interpreter.h"
#include "EndToEndDriver.h"
#include "ModelChecks.h"
#include "backends/common/KilnWriter.h"
#include "backends/gpu/GpuDispatchLowering.h"
#include "passes/quant/QuantizeGraph.h"
#include "vulkan/VulkanDevice.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>
#include <map>

using namespace kiln;
using namespace kiln::testing;

namespace {

kiln_session_options vulkanOptions() {
  kiln_session_options O;
  kiln_session_options_init(&O);
  O.num_threads = 1;
  return O;
}

/// The session options of one run with these Vulkan options (fp16
/// arithmetic, robustBufferAccess): Session points at Vulkan.
struct VulkanRun {
  kiln_vulkan_options Vulkan;
  kiln_session_options Session;
  VulkanRun(uint32_t Fp16Arithmetic, uint32_t RobustBufferAccess)
      : Session(vulkanOptions()) {
    kiln_vulkan_options_init(&Vulkan);
    Vulkan.fp16_arithmetic = Fp16Arithmetic;
    Vulkan.robust_buffer_access = RobustBufferAccess;
    Session.vulkan = &Vulkan;
  }
  VulkanRun(const VulkanRun &) = delete;
  VulkanRun &operator=(const VulkanRun &) = delete;
};

llvm::Expected<std::string> compileToBytes(Graph &G, bool Fp16 = false) {
  auto C = lowerToGpuDispatches(G, Fp16);
  if (!C)
    return C.takeError();
  return serializeKilnModule(C->Module);
}

using GraphSource = std::function<llvm::Expected<std::unique_ptr<Graph>>()>;

/// The least SQNR of fp16 storage (--quantize fp16: the IR quantizer, as
/// kiln convert runs it, then the Vulkan target's fp16 lowering) over
/// every output against the fp32 reference, with fp16 arithmetic where the
/// device has it (Worst) and with fp32 arithmetic (WorstF32); "" or why it
/// failed.
constexpr double MinFp16Sqnr = 40;

/// Runs fp16 file Bytes and the least SQNR of its outputs in Worst; "" or
/// why it failed. With Fp16Math the session must compute in fp16 where the
/// device can, else in fp32.
std::string runFp16(const std::string &Bytes, const std::vector<Tensor> &Inputs,
                    const std::vector<Tensor> &Ref, bool Fp16Math,
                    double &Worst) {
  VulkanRun Run(Fp16Math ? KILN_VULKAN_FP16_ARITHMETIC_AUTO
                         : KILN_VULKAN_FP16_ARITHMETIC_OFF,
                KILN_VULKAN_ROBUST_BUFFER_ACCESS_AUTO);
  std::vector<Tensor> Got;
  std::string Precision;
  std::string Mode = Fp16Math ? "fp16 (fp16 arithmetic): " : "fp16 (fp32 arithmetic): ";
  std::string Why = runCompiled(Bytes, Inputs, Run.Session, Got, &Precision);
  if (!Why.empty())
    return Mode + Why;
  // A file without twins (only kernels that keep fp32 arithmetic) says so
  // without a reason.
  bool Ok = Fp16Math ? Precision == "fp16 storage, fp16 arithmetic" ||
                           Precision == "fp16 storage, fp32 arithmetic" ||
                           Precision == "fp16 storage, fp32 arithmetic "
                                        "(device lacks shaderFloat16)"
                     : Precision == "fp16 storage, fp32 arithmetic" ||
                           Precision == "fp16 storage, fp32 arithmetic "
                                        "(fp16_arithmetic off)";
  if (!Ok)
    return Mode + "the session says '" + Precision + "'";
  if (Got.size() != Ref.size())
    return Mode + "output count";
  Worst = 200;
  for (size_t I = 0; I < Got.size(); ++I) {
    if (Got[I].type() != Ref[I].type())
      return Mode + llvm::formatv("output {0}: type differs", I).str();
    double Db = sqnrDb(Got[I], Ref[I]);
    Worst = std::min(Worst, Db);
    if (!(Db >= MinFp16Sqnr))
      return Mode + llvm::formatv("output {0}: SQNR {1:f1} dB < {2} dB", I,
                                  Db, MinFp16Sqnr)
                        .str();
  }
  return "";
}

std::string checkFp16(const GraphSource &Fresh,
                      const std::vector<Tensor> &Inputs,
                      const std::vector<Tensor> &Ref, double &Worst,
                      double &WorstF32, size_t &Bytes) {
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
  auto Compiled = compileToBytes(**G, true);
  if (!Compiled)
    return "fp16: compile: " + firstLine(Compiled.takeError());
  Bytes = Compiled->size();
  std::string Why = runFp16(*Compiled, Inputs, Ref, true, Worst);
  if (Why.empty())
    Why = runFp16(*Compiled, Inputs, Ref, false, WorstF32);
  return Why;
}

/// The file of G with every dispatch's bindings halved (in 16-byte steps;
/// bindings under 32 bytes kept), so that its shape constants claim up to
/// twice what each binding holds, as a file whose constants lie about its
/// bindings would. The kernels check their indices against the bindings'
/// real lengths (docs/security.md), so they stay inside them: then
/// robustBufferAccess, which discards what strays, changes nothing, and
/// the outputs with it off equal those with it on, byte for byte. A kernel
/// that trusted its constants would write past the bindings into the
/// arena's other tensors with it off, on a device that honours the
/// setting (lavapipe does not: it is always robust). "" or why not; Shrunk
/// counts the bindings halved.
std::string checkLyingBindings(Graph &G, const std::vector<Tensor> &Inputs,
                               unsigned &Shrunk) {
  auto C = lowerToGpuDispatches(G, false);
  if (!C)
    return "lying bindings: compile: " + firstLine(C.takeError());
  for (auto &D : C->Module.Model.payload.AsVulkanPayload()->dispatches)
    for (fb::VulkanBinding &B : D->bindings)
      if (B.size() >= 32) {
        B.mutate_size(B.size() / 32 * 16);
        ++Shrunk;
      }
  auto Bytes = serializeKilnModule(C->Module);
  if (!Bytes)
    return "lying bindings: write: " + firstLine(Bytes.takeError());
  std::vector<Tensor> Got[2];
  for (bool Robust : {true, false}) {
    VulkanRun Run(KILN_VULKAN_FP16_ARITHMETIC_AUTO,
                  Robust ? KILN_VULKAN_ROBUST_BUFFER_ACCESS_AUTO
                         : KILN_VULKAN_ROBUST_BUFFER_ACCESS_OFF);
    if (std::string Why = runCompiled(*Bytes, Inputs, Run.Session, Got[Robust]);
        !Why.empty())
      return llvm::formatv("lying bindings (robustBufferAccess {0}): {1}",
                           Robust ? "on" : "off", Why)
          .str();
  }
  for (size_t I = 0; I < Got[0].size(); ++I)
    if (Got[0][I].buffer().str() != Got[1][I].buffer().str())
      return llvm::formatv("lying bindings: output {0} differs with "
                           "robustBufferAccess off: a kernel left a binding",
                           I)
          .str();
  return "";
}

/// A lie with a hand-computed answer: relu over x = 1, 2, ..., 64 (f32
/// [2, 32]) with the first dispatch's first binding, which reads x, cut to
/// 32 floats while its constants still say 64. The bounds checks read
/// element 31 for every index past it, so y = 1, ..., 32, then 32 repeated;
/// a kernel that trusted its constants reads past the binding, which
/// lavapipe (always robust, whatever the feature says) answers with zeros
/// and other drivers with whatever lies there. Run with
/// robustBufferAccess off. "" or what differs.
std::string checkClampedRead() {
  auto G = parseGraph("graph @lie(%x: f32[2,32]) -> (%y: f32[2,32]) {\n"
                      "  %y = relu(%x) : f32[2,32]\n"
                      "  return %y\n"
                      "}\n",
                      "lie.kir");
  if (!G)
    return "clamped read: parse: " + firstLine(G.takeError());
  auto C = lowerToGpuDispatches(**G, false);
  if (!C)
    return "clamped read: compile: " + firstLine(C.takeError());
  auto &Dispatches = C->Module.Model.payload.AsVulkanPayload()->dispatches;
  if (Dispatches.empty() || Dispatches[0]->bindings.empty() ||
      Dispatches[0]->bindings[0].size() != 256)
    return "clamped read: the first dispatch does not read x's 256 bytes";
  Dispatches[0]->bindings[0].mutate_size(128);
  auto Bytes = serializeKilnModule(C->Module);
  if (!Bytes)
    return "clamped read: write: " + firstLine(Bytes.takeError());
  std::vector<float> X(64), Want(64);
  for (int I = 0; I < 64; ++I) {
    X[size_t(I)] = float(I + 1);
    Want[size_t(I)] = float(std::min(I, 31) + 1);
  }
  VulkanRun Run(KILN_VULKAN_FP16_ARITHMETIC_AUTO,
                KILN_VULKAN_ROBUST_BUFFER_ACCESS_OFF);
  std::vector<Tensor> Got;
  std::vector<Tensor> In{Tensor::fromValues<float>(ElementType::F32, {2, 32}, X)};
  if (std::string Why = runCompiled(*Bytes, In, Run.Session, Got); !Why.empty())
    return "clamped read: " + Why;
  if (Got.size() != 1 || Got[0].numElements() != 64)
    return "clamped read: not one output of 64 elements";
  for (int I = 0; I < 64; ++I)
    if (Got[0].at<float>(I) != Want[size_t(I)])
      return llvm::formatv("clamped read: y[{0}] = {1}, not {2}", I,
                           Got[0].at<float>(I), Want[size_t(I)])
          .str();
  return "";
}

Verdict checkModel(Graph &G, const std::vector<Tensor> &Inputs,
                   bool MustPass, const GraphSource &Again,
                   const GraphSource &Fresh) {
  InterpreterOptions IO;
  IO.Threads = 1;
  auto Ref = Interpreter(G, IO).run(Inputs);
  if (!Ref)
    return {"SKIP", "interpreter: " + firstLine(Ref.takeError())};
  if (llvm::Error E = optimize(G))
    return {"FAIL", "-O2: " + firstLine(std::move(E))};
  auto Bytes = compileToBytes(G);
  if (!Bytes) {
    std::string Why = llvm::toString(Bytes.takeError());
    if (Why.find("target cannot run") != std::string::npos && !MustPass)
      return {"UNSUPPORTED", firstReason(Why)};
    return {"FAIL", "compile: " + Why.substr(0, Why.find('\n'))};
  }
  std::vector<Tensor> Got;
  std::string Why = runCompiled(*Bytes, Inputs, vulkanOptions(), Got);
  if (!Why.empty())
    return {"FAIL", Why};
  if (Got.size() != Ref->size())
    return {"FAIL", "output count"};
  for (size_t I = 0; I < Got.size(); ++I) {
    std::string Diff = compare(Got[I], (*Ref)[I]);
    if (!Diff.empty())
      return {"FAIL", llvm::formatv("output {0}: {1}", I, Diff).str()};
  }
  unsigned Shrunk = 0;
  if (std::string Lie = checkLyingBindings(G, Inputs, Shrunk); !Lie.empty())
    return {"FAIL", Lie};
  if (Again) {
    auto G2 = Again();
    if (!G2)
      return {"FAIL", "re-import: " + firstLine(G2.takeError())};
    if (llvm::Error E = optimize(**G2))
      return {"FAIL", "-O2 again: " + firstLine(std::move(E))};
    auto Bytes2 = compileToBytes(**G2);
    if (!Bytes2)
      return {"FAIL", "compile again: " + firstLine(Bytes2.takeError())};
    if (*Bytes2 != *Bytes)
      return {"FAIL", "two conversions differ"};
  }
  std::string Detail =
      llvm::formatv("{0} bytes, {1} bindings halved", Bytes->size(), Shrunk)
          .str();
  if (Fresh) {
    double Worst = 0, WorstF32 = 0;
    size_t Fp16Bytes = 0;
    std::string Fp16Why =
        checkFp16(Fresh, Inputs, *Ref, Worst, WorstF32, Fp16Bytes);
    if (!Fp16Why.empty())
      return {"FAIL", Fp16Why};
    Detail += llvm::formatv("; fp16 {0} bytes, worst SQNR {1:f1} dB "
                            "(fp32 arithmetic: {2:f1} dB)",
                            Fp16Bytes, Worst, WorstF32)
                  .str();
  }
  return {"PASS", Detail};
}

Verdict checkNodeTest(const std::string &Folder) {
  std::unique_ptr<Graph> G;
  std::vector<Tensor> Inputs;
  if (Verdict V = loadNodeTest(Folder, G, Inputs); !V.Kind.empty())
    return V;
  return checkModel(*G, Inputs, false, nullptr, nullptr);
}

Verdict checkExample(const std::string &Path) {
  auto G = importModel(Path);
  if (!G)
    return {"FAIL", "import: " + firstLine(G.takeError())};
  auto Inputs = exampleInputs(Path, **G);
  if (!Inputs)
    return {"FAIL", firstLine(Inputs.takeError())};
  GraphSource Fresh = [&] { return importModel(Path); };
  return checkModel(**G, *Inputs, true, Fresh, Fresh);
}

/// A .kir edge case on seeded uniform inputs in [-2, 2].
Verdict checkKir(const std::string &Path) {
  auto G = parseKirFile(Path);
  if (!G)
    return {"FAIL", "parse: " + firstLine(G.takeError())};
  return checkModel(**G, seededInputs(**G), true, nullptr,
                    [&] { return parseKirFile(Path); });
}

/// Whether this machine has a Vulkan device: "" or why not.
std::string deviceProblem() {
  std::unique_ptr<rt::vk::Device> Device;
  rt::Status S = rt::vk::Device::create(rt::vk::DeviceOptions(), Device);
  return S ? S.message() : "";
}

} // namespace

int main(int Argc, char **Argv) {
  DriverArgs A;
  if (!parseDriverArgs(Argc, Argv, "kiln-vulkan-e2e", A))
    return 2;
  if (std::string Why = deviceProblem(); !Why.empty()) {
    bool InCi = std::getenv("CI") != nullptr;
    llvm::errs() << "kiln-vulkan-e2e: " << Why
                 << (InCi ? " (CI is set: this is a failure)\n"
                          : "; skipped\n");
    return InCi ? 1 : 77;
  }
  std::vector<ModelEntry> Models = collectModels(A);
  if (Models.empty()) {
    llvm::errs() << "kiln-vulkan-e2e: no models found\n";
    return 1;
  }
  if (std::string Why = checkClampedRead(); !Why.empty()) {
    llvm::outs() << "FAIL " << Why << '\n';
    return 1;
  }
  llvm::outs() << "PASS clamped read: a binding cut to half reads its last "
                  "element past the end\n";
  RunCounts C = runModels(Models, A, 300,
                          {checkExample, checkKir, checkNodeTest});
  auto &Counts = C.Kinds;
  llvm::outs() << Counts["PASS"]
               << " models match the interpreter on the Vulkan target ("
               << C.Examples << " examples, " << C.Kirs << " kernel edge cases), "
               << Counts["FAIL"] << " failed, " << Counts["UNSUPPORTED"]
               << " use ops the Vulkan target does not support, "
               << Counts["SKIP"] << " skipped\n";
  return Counts["FAIL"] == 0 ? 0 : 1;
}

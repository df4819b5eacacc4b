#include "Driver/ConvertModel.h"

#include "Driver/PartitionedFile.h"
#include "Driver/Placement.h"

#include "IR/SymbolBinding.h"
#include "Support/Error.h"
#include "Support/FileSystem.h"
#include "Support/Hash.h"
#include "Support/Scratch.h"
#include "backends/TargetMetadata.h"

#include "kiln/kiln.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

#include <cctype>
#include <future>

namespace kiln {

namespace {

/// The source model's hash (xxHash64 of its bytes), computed on another
/// thread while the model is imported, optimized and written: for a large
/// model it is a noticeable part of the conversion. value() may be called
/// from any thread; error() tells whether the file could be read.
class SourceHash {
public:
  explicit SourceHash(std::string Path)
      : Result(std::async(std::launch::async, [Path = std::move(Path)] {
                 auto Bytes = mapFile(Path);
                 if (!Bytes)
                   return Outcome{0, llvm::toString(Bytes.takeError())};
                 return Outcome{contentHash((*Bytes)->getBuffer()), ""};
               }).share()) {}
  uint64_t value() const { return Result.get().Hash; }
  llvm::Error error() const {
    if (Result.get().Error.empty())
      return llvm::Error::success();
    return inputError("{0}", Result.get().Error);
  }

private:
  struct Outcome {
    uint64_t Hash;
    std::string Error;
  };
  std::shared_future<Outcome> Result;
};

/// The runtime must accept what the writer produced; if not, it is a bug.
llvm::Error verifyWithRuntime(llvm::StringRef Bytes, llvm::StringRef Out) {
  if (kiln_verify_buffer(Bytes.data(), Bytes.size()) != KILN_OK)
    return internalError("{0}: the compiled model does not pass the runtime's "
                         "verifier ({1}); nothing was written",
                         Out, kiln_last_error());
  return llvm::Error::success();
}

/// A CPU file's self-test must pass on the machine that wrote it, or its
/// tolerance is wrong for the file, not the device: it runs here before
/// the file replaces the output.
llvm::Error runSelfTestHere(llvm::StringRef Bytes, llvm::StringRef Out) {
  kiln_model *Model = nullptr;
  kiln_session *Session = nullptr;
  kiln_self_test_result R;
  R.struct_size = sizeof R;
  // The verifier loaded the same bytes: a load failure here is kiln's bug;
  // a session or run that fails is the model's (its sample, say).
  bool Loaded =
      kiln_model_load_buffer(Bytes.data(), Bytes.size(), &Model) == KILN_OK;
  bool Ran = Loaded &&
             kiln_session_create(Model, nullptr, &Session) == KILN_OK &&
             kiln_session_self_test(Session, &R) == KILN_OK;
  std::string Error = Ran ? "" : kiln_last_error();
  kiln_tensor_info Worst;
  std::string WorstName =
      Ran && kiln_model_output_info(Model, R.worst_output, &Worst) == KILN_OK
          ? Worst.name
          : "?";
  kiln_session_destroy(Session);
  kiln_model_destroy(Model);
  if (!Loaded)
    return internalError("{0}: the file does not load for its self-test "
                         "({1}); nothing was written",
                         Out, Error);
  if (!Ran)
    return inputError("{0}: the self-test does not run on this machine "
                      "({1}); nothing was written",
                      Out, Error);
  if (!R.passed)
    return inputError("{0}: the self-test fails on this machine's CPU "
                      "(output '{1}': error {2} against tolerance {3}{4}); "
                      "raise --self-test-tolerance; nothing was written",
                      Out, WorstName, llvm::format("%.3g", R.max_error),
                      llvm::format("%.3g", R.tolerance),
                      R.deterministic ? "" : ", and two runs differ");
  return llvm::Error::success();
}

/// The precision the file computes in, for the self-test's tolerance: a
/// model that arrived quantized is int8 without --quantize.
QuantizeMode filePrecision(const CompiledGraph &C) {
  QuantizeMode Mode = C.QuantizeResult.Mode;
  if (auto A = arrivedQuantized(C.PipelineRun, Mode != QuantizeMode::None))
    if (A->KeptScales || A->Dynamic)
      return QuantizeMode::Int8;
  return Mode;
}

/// A target whose files are compiled for one size needs every dim fixed.
llvm::Error checkStaticForTarget(const Graph &G, const Target &T,
                                 llvm::StringRef Input) {
  std::vector<std::string> Symbols = graphSymbols(G);
  if (Symbols.empty() || T.PolymorphicFiles)
    return llvm::Error::success();
  std::string Inputs, Example;
  for (const Value *In : G.inputs()) {
    if (In->type().isStatic())
      continue;
    Inputs += llvm::formatv("{0} '{1}' {2}", Inputs.empty() ? "" : ",",
                            In->name(), toString(In->type()));
    std::vector<std::string> Dims;
    for (const Dim &D : In->type().Dims)
      Dims.push_back(D.isStatic() ? std::to_string(D.size()) : "1");
    Example += " --input-shape " + In->name() + "=" + llvm::join(Dims, "x");
  }
  return inputError("{0}: the {1} target writes files for one input size "
                    "(only cpu files are batch-polymorphic), and input(s){2} "
                    "have the symbolic dim(s) {3}; fix them with "
                    "--input-shape, e.g.{4}",
                    Input, T.Name, Inputs, llvm::join(Symbols, ", "), Example);
}

/// --fallback cpu partitions a device target's files; --on-cpu and
/// --max-partitions only mean something then.
llvm::Error checkFallbackFlags(const ConvertModelOptions &O, const Target &T) {
  if (O.Fallback != "none" && O.Fallback != "cpu")
    return usageError("--fallback {0}: expected none or cpu", O.Fallback);
  if (O.Fallback == "none") {
    if (!O.OnCpu.empty() || O.MaxPartitions || O.Placement != "costed")
      return usageError("--on-cpu, --max-partitions and --placement place "
                        "nodes across partitions: add --fallback cpu");
    return llvm::Error::success();
  }
  if (T.FileTarget == 0 || llvm::StringRef(T.Name) == "cpu")
    return usageError("--fallback cpu partitions the files of a device "
                      "target (vulkan, nnapi, metal); --target {0} runs "
                      "everything itself",
                      T.Name);
  return llvm::Error::success();
}

} // namespace

llvm::Expected<std::unique_ptr<TargetReport>>
convertModel(const ConvertModelOptions &O) {
  const Target *T = findTarget(O.TargetName);
  if (!T)
    return unknownTargetError(O.TargetName);
  if (llvm::Error E = checkFallbackFlags(O, *T))
    return E;
  CompileGraphOptions CO = O.Compile;
  CO.ForTarget = T;
  CO.TargetOptions = O.TargetOptions;
  if (llvm::Error E = checkCompileFlags(CO))
    return E;
  if (llvm::Error E = checkSelfTestFlags(O.SelfTest))
    return E;
  if (O.SelfTest.Enabled && T->FileTarget == 0)
    return usageError("--self-test is stored in .kiln files; the {0} target "
                      "writes none",
                      T->Name);
  // A FIFO, device, symlink or the model itself as -o is refused now, not
  // after the whole conversion (the writer checks again before it renames).
  noteInputFile(CO.Input);
  if (llvm::Error E = checkOutputPath(O.Output))
    return E;
  // Weights a pass makes, and the float model calibration runs, go to disk
  // beside the output rather than the heap (Support/Scratch.h).
  WeightSpillScope Spill(O.Output);
  auto Hash =
      std::make_shared<SourceHash>(O.SourceOf.empty() ? CO.Input : O.SourceOf);
  auto C = compileGraph(CO);
  if (!C)
    return C.takeError();
  if (llvm::Error E = checkStaticForTarget(*C->G, *T, CO.Input))
    return E;

  EmitRequest R;
  R.Input = CO.Input;
  R.Output = O.Output;
  R.SourceModel = O.SourceOf;
  R.ProducerVersion = O.ProducerVersion;
  R.Pipeline = C->PipelineLabel;
  R.Passes = C->PipelineRun;
  R.QuantizePasses = passSummaries(*C->QuantizePasses);
  R.OpsBefore = C->OpsBefore;
  R.OpsAfter = C->OpsAfter;
  R.Quantize = &C->QuantizeResult;
  R.Options = O.TargetOptions;
  R.SourceHash = [Hash] { return Hash->value(); };
  R.SourceHashError = [Hash] { return Hash->error(); };
  llvm::Optional<SelfTestRecord> SelfTest;
  if (O.SelfTest.Enabled) {
    auto Record = buildSelfTest(*C->G, O.SelfTest, filePrecision(*C), CO.Input);
    if (!Record)
      return Record.takeError();
    SelfTest = std::move(*Record);
    R.SelfTest = &*SelfTest;
  }
  std::string Out = O.Output;
  bool RunHere = SelfTest && llvm::StringRef(T->Name) == "cpu";
  R.VerifyFile = [Out, RunHere](llvm::StringRef Bytes) {
    if (llvm::Error E = verifyWithRuntime(Bytes, Out))
      return E;
    return RunHere ? runSelfTestHere(Bytes, Out) : llvm::Error::success();
  };
  if (O.Fallback != "cpu")
    return T->Emit(*C->G, R);
  if (!T->TakesInt8) {
    std::string Display = T->Name;
    Display[0] = char(std::toupper(Display[0]));
    if (llvm::Error E =
            refuseGpuInt8(CO.Input, C->QuantizeResult.Mode, Display))
      return E;
  }
  PlacementOptions PO;
  PO.Device = T;
  PO.OnCpu = O.OnCpu;
  PO.Costed = O.Placement != "greedy";
  auto P = planPlacement(*C->G, PO);
  if (P && splitSharedDequantizes(*C->G, *P))
    P = planPlacement(*C->G, PO);
  if (!P)
    return addContext(P.takeError(), CO.Input);
  PartitionedEmit PE;
  PE.MaxPartitions = O.MaxPartitions;
  PE.Mode = C->QuantizeResult.Mode;
  return emitPlacement(*C->G, *P, R, PE);
}

} // namespace kiln

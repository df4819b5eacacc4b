// kiln-partition-e2e: `kiln convert --fallback cpu` end to end for the
// Vulkan and NNAPI targets. Every model the CPU target runs (the ONNX
// conformance models, the examples and TorchScript fixtures, the kernel edge
// cases) is run unoptimized in the reference interpreter, optimized at -O2,
// placed for each device with CPU fallback (Placement.h) and written as the
// driver writes it (PartitionedFile.h: the device's or the CPU's plain file
// for one partition, a partitioned file for several), loaded by the runtime
// and run: on lavapipe (with the Vulkan validation layer fatal) and the
// host NNAPI device. Every output must match the reference within 1e-4
// relative (plus 1e-6 absolute).
//
// Placement runs greedy (every node the device runs stays there): the
// costed default puts most conformance models, each a node or two,
// entirely on the CPU. The examples and edge cases (and test/partition/
// models, made to need several partitions) are also placed costed, and
// striped: every third node pinned to the CPU by name (--on-cpu), so that
// boundaries cross every kind of layer, in and out of the GPU's C4 and
// NNAPI's NHWC. The summary counts the models that needed more than one
// partition in any mode.
//
//   kiln-partition-e2e [--suite DIR] [--examples DIR]... [--kir DIR]
//                      [--filter S] [--verbose]
#include "Driver/PartitionedFile.h"
#include "Driver/Placement.h"
#include "EndToEndDriver.h"
#include "Interpreter/Interpreter.h"
#include "ModelChecks.h"
#include "backends/kilnops/KilnOps.h"

#include "kiln/kiln.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <map>

using namespace kiln;
using namespace kiln::testing;

namespace {

struct Outcome {
  std::string Problem; // "" when it matched
  size_t Parts = 0;
  std::string Targets; // "vulkan cpu vulkan"
};

/// Places G for Device, writes the file in memory, runs it on Inputs and
/// compares with Ref.
Outcome placeAndRun(const Graph &G, const char *Device, bool Costed,
                    const std::vector<std::string> &OnCpu,
                    const std::vector<Tensor> &Inputs,
                    const std::vector<Tensor> &Ref) {
  Outcome Out;
  PlacementOptions PO;
  PO.Device = findTarget(Device);
  PO.Costed = Costed;
  PO.OnCpu = OnCpu;
  auto P = planPlacement(G, PO);
  if (!P)
    return {std::string(Device) + ": placement: " + firstLine(P.takeError()),
            0, ""};
  Out.Parts = P->Parts.size();
  for (const PlacedPart &Part : P->Parts)
    Out.Targets += (Out.Targets.empty() ? "" : " ") + std::string(Part.On->Name);
  std::string Bytes;
  EmitRequest R;
  R.Input = "model";
  R.Output = "model.kiln";
  R.Bytes = &Bytes;
  R.VerifyFile = [](llvm::StringRef B) -> llvm::Error {
    if (kiln_verify_buffer(B.data(), B.size()) != KILN_OK)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     kiln_last_error());
    return llvm::Error::success();
  };
  auto Report = emitPlacement(G, *P, R, PartitionedEmit());
  if (!Report)
    return {std::string(Device) + ": write: " + firstLine(Report.takeError()),
            Out.Parts, Out.Targets};
  kiln_session_options Options;
  kiln_session_options_init(&Options);
  Options.num_threads = 1;
  std::vector<Tensor> Got;
  if (std::string Why = runCompiled(Bytes, Inputs, Options, Got); !Why.empty())
    return {std::string(Device) + ": " + Why, Out.Parts, Out.Targets};
  if (Got.size() != Ref.size())
    return {std::string(Device) + ": output count", Out.Parts, Out.Targets};
  for (size_t I = 0; I < Got.size(); ++I)
    if (std::string Diff = compare(Got[I], Ref[I]); !Diff.empty())
      return {llvm::formatv("{0} ({1} partitions): output {2}: {3}", Device,
                            Out.Parts, I, Diff),
              Out.Parts, Out.Targets};
  return Out;
}

/// Whether a verdict's detail lists a placement of several partitions
/// (checks run in a child process, so the parent reads it there).
bool severalPartitions(const std::string &Detail) {
  for (const char *Cut : {"vulkan cpu", "cpu vulkan", "nnapi cpu", "cpu nnapi"})
    if (Detail.find(Cut) != std::string::npos)
      return true;
  return false;
}

Verdict checkModel(Graph &G, const std::vector<Tensor> &Inputs, bool Costed) {
  InterpreterOptions IO;
  IO.Threads = 1;
  auto Ref = Interpreter(G, IO).run(Inputs);
  if (!Ref)
    return {"SKIP", "interpreter: " + firstLine(Ref.takeError())};
  if (llvm::Error E = optimize(G))
    return {"FAIL", "-O2: " + firstLine(std::move(E))};
  if (llvm::Error E = checkKilnOpsGraph(G))
    return {"SKIP", "the cpu target: " + firstLine(std::move(E))};
  // Striped: every third node pinned to the CPU, so that boundaries cross
  // every kind of layer (examples and edge cases).
  std::vector<std::string> Stripes;
  size_t Index = 0;
  for (const Node &N : G.nodes())
    if (!(N.numResults() == 1 && isPartOfNoPart(N.result())) &&
        Index++ % 3 == 1)
      Stripes.push_back(N.displayName());
  enum Mode { Greedy, Costed_, Striped };
  std::string Detail;
  for (Mode M : {Greedy, Costed_, Striped}) {
    if (M != Greedy && !Costed)
      continue;
    const char *Name = M == Greedy ? "greedy" : M == Costed_ ? "costed" : "striped";
    for (const char *Device : {"vulkan", "nnapi"}) {
      Outcome O = placeAndRun(G, Device, M == Costed_,
                              M == Striped ? Stripes : std::vector<std::string>(),
                              Inputs, *Ref);
      if (!O.Problem.empty())
        return {"FAIL", std::string(Name) + " " + O.Problem};
      Detail += llvm::formatv("{0}{1} {2}: {3}", Detail.empty() ? "" : "; ",
                              Name, Device, O.Targets);
    }
  }
  return {"PASS", Detail};
}

Verdict checkNodeTest(const std::string &Folder) {
  std::unique_ptr<Graph> G;
  std::vector<Tensor> Inputs;
  if (Verdict V = loadNodeTest(Folder, G, Inputs); !V.Kind.empty())
    return V;
  return checkModel(*G, Inputs, false);
}

Verdict checkExample(const std::string &Path) {
  auto G = importModel(Path);
  if (!G)
    return {"FAIL", "import: " + firstLine(G.takeError())};
  auto Inputs = exampleInputs(Path, **G);
  if (!Inputs)
    return {"FAIL", firstLine(Inputs.takeError())};
  return checkModel(**G, *Inputs, true);
}

Verdict checkKir(const std::string &Path) {
  auto G = parseKirFile(Path);
  if (!G)
    return {"FAIL", "parse: " + firstLine(G.takeError())};
  return checkModel(**G, seededInputs(**G), true);
}

} // namespace

int main(int Argc, char **Argv) {
  DriverArgs A;
  if (!parseDriverArgs(Argc, Argv, "kiln-partition-e2e", A))
    return 2;
  if (!std::getenv("KILN_NNAPI_LIBRARY")) {
    llvm::errs() << "kiln-partition-e2e: set KILN_NNAPI_LIBRARY to the host "
                    "NNAPI device (ctest does)\n";
    return 2;
  }
  std::vector<ModelEntry> Models = collectModels(A);
  if (Models.empty()) {
    llvm::errs() << "kiln-partition-e2e: no models found\n";
    return 1;
  }
  unsigned MultiPart = 0;
  RunCounts C = runModels(Models, A, 300,
                          {checkExample, checkKir, checkNodeTest},
                          [&](const ModelEntry &, const Verdict &V) {
                            MultiPart += V.Kind == "PASS" &&
                                         severalPartitions(V.Detail);
                          });
  auto &Counts = C.Kinds;
  llvm::outs() << Counts["PASS"]
               << " models match the interpreter with --fallback cpu on both "
                  "vulkan and nnapi ("
               << MultiPart << " needed more than one partition), "
               << Counts["FAIL"] << " failed, " << Counts["SKIP"]
               << " skipped (the interpreter or the cpu target cannot run "
                  "them)\n";
  return Counts["FAIL"] == 0 ? 0 : 1;
}

// kiln-wholemodel: the -O2 pipeline over whole models. Every ONNX conformance
// model that imports and runs (SUITE/node/*, SUITE/simple/*, on
// test_data_set_0) and every example model (EXAMPLES/*.onnx with its
// .input.npz) is run in the reference interpreter before and after -O2; the
// outputs must agree within 1e-4 relative (plus a tiny absolute slack). The
// example CNNs must also lose every batch_norm and dropout, and every
// relu/clip that follows a single-use conv/linear/add once the fusion passes
// that remove them are registered; and -O2 must print the same text twice.
//
//   kiln-wholemodel [--suite DIR] [--examples DIR]... [--filter S]
//                   [--timeout SECONDS]
// An examples folder holds NAME.onnx with NAME.input.npz, TorchScript
// NAME.VARIANT.pt with NAME.input.npz (when built with the TorchScript
// frontend; the input shapes come from the arrays), or .kir models (run on
// seeded inputs, symbolic dims set to 2).
#include "IR/NpyTensor.h"
#include "IR/Parser.h"
#include "IR/Printer.h"
#include "Interpreter/Interpreter.h"
#include "Support/Error.h"
#include "frontends/onnx/OnnxImporter.h"
#ifdef KILN_WITH_TORCHSCRIPT
#include "frontends/torchscript/TorchScriptImporter.h"
#endif
#include "passes/PassManager.h"
#include "passes/Pipelines.h"
#include "ModelChecks.h"
#include "RunInChild.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace kiln;
using namespace kiln::testing;

namespace {

struct Verdict {
  std::string Kind, Detail;
  double Worst = 0; // max |opt-ref| / (AbsTol + RelTol*|ref|); <= 1 passes
};

llvm::Expected<std::vector<Tensor>> runGraph(const Graph &G,
                                             llvm::ArrayRef<Tensor> In) {
  InterpreterOptions O;
  O.Threads = 1;
  Interpreter I(G, O);
  return I.run(In);
}


/// A relu/clip whose operand is a single-use conv/linear/add result.
std::string unfusedActivation(const Graph &G, bool Conv, bool Add) {
  for (const Node &N : G.nodes()) {
    if (!N.isOp("relu") && !N.isOp("clip"))
      continue;
    const Value *X = N.operand(0);
    const Node *P = X->producer();
    if (!P || X->numUses() != 1 || G.isOutput(X))
      continue;
    if ((Conv && (P->isOp("conv") || P->isOp("linear"))) ||
        (Add && P->isOp("add")))
      return N.opName().str() + " after " + P->opName().str() + " '" +
             P->displayName() + "'";
  }
  return "";
}

Verdict checkModel(const std::string &ModelPath, std::vector<Tensor> Inputs,
                   bool IsExample) {
  auto G = importModel(ModelPath);
  if (!G)
    return {"SKIP", "import: " + firstLine(G.takeError())};
  if (Inputs.size() != (*G)->numInputs())
    return {"SKIP", llvm::formatv("{0} inputs for {1} graph inputs",
                                  Inputs.size(), (*G)->numInputs())};
  for (unsigned I = 0; I < Inputs.size(); ++I)
    Inputs[I] = asDeclared(std::move(Inputs[I]), (*G)->input(I)->type().Elem);
  auto Ref = runGraph(**G, Inputs);
  if (!Ref)
    return {"SKIP", "unoptimized run: " + firstLine(Ref.takeError())};

  PassManagerOptions PMO;
  PMO.VerifyEach = true;
  PassManager PM(PMO);
  for (const std::string &P : pipelineForLevel(2))
    if (llvm::Error E = PM.add(P))
      return {"FAIL", firstLine(std::move(E))};
  if (llvm::Error E = PM.run(**G))
    return {"FAIL", "-O2: " + firstLine(std::move(E))};
  auto Opt = runGraph(**G, Inputs);
  if (!Opt)
    return {"FAIL", "optimized run: " + firstLine(Opt.takeError())};
  bool Changed = false;
  for (const PassRunRecord &R : PM.records())
    Changed |= R.Changed;
  // "changed" or not: a model -O2 leaves alone checks nothing.
  Verdict V{"PASS", Changed ? "changed" : "unchanged", 0};
  for (size_t I = 0; I < Ref->size(); ++I) {
    std::string Why = compare((*Opt)[I], (*Ref)[I], &V.Worst);
    if (!Why.empty())
      return {"FAIL", llvm::formatv("output {0}: {1}", I, Why), V.Worst};
  }
  if (!IsExample)
    return V;

  for (const Node &N : (*G)->nodes())
    if (N.isOp("batch_norm") || N.isOp("dropout"))
      return {"FAIL", N.opName().str() + " '" + N.displayName() +
                          "' remains after -O2"};
  std::string Unfused = unfusedActivation(**G, findPass("fuse-activation"),
                                          findPass("fuse-add-activation"));
  if (!Unfused.empty())
    return {"FAIL", Unfused + " remains after -O2"};
  // Determinism: a fresh import optimized again prints the same text.
  auto G2 = importModel(ModelPath);
  if (!G2)
    return {"FAIL", "re-import: " + firstLine(G2.takeError())};
  PassManager PM2(PMO);
  for (const std::string &P : pipelineForLevel(2))
    llvm::cantFail(PM2.add(P));
  if (llvm::Error E = PM2.run(**G2))
    return {"FAIL", "-O2 again: " + firstLine(std::move(E))};
  if (printGraphToString(**G) != printGraphToString(**G2))
    return {"FAIL", "-O2 is not deterministic: two runs print differently"};
  V.Detail += llvm::formatv(", {0} nodes after -O2", (*G)->numNodes());
  return V;
}

Verdict checkNodeTest(const std::string &Folder) {
  std::vector<Tensor> Inputs;
  for (unsigned I = 0;; ++I) {
    std::string P = Folder + "/test_data_set_0/input_" + std::to_string(I) + ".pb";
    if (!llvm::sys::fs::exists(P))
      break;
    auto T = readTensorProtoFile(P);
    if (!T)
      return {"SKIP", "reading inputs: " + firstLine(T.takeError())};
    Inputs.push_back(std::move(*T));
  }
  return checkModel(Folder + "/model.onnx", std::move(Inputs), false);
}

/// A .kir example has no input file: seeded inputs in [-2, 2], with every
/// symbolic dim set to 2.
Verdict checkKirExample(const std::string &Model) {
  auto G = parseGraphFile(Model);
  if (!G)
    return {"FAIL", "parse: " + firstLine(G.takeError())};
  std::mt19937 Rng(42);
  std::uniform_real_distribution<float> D(-2.f, 2.f);
  std::vector<Tensor> Inputs;
  for (const Value *In : (*G)->inputs()) {
    if (In->type().Elem != ElementType::F32)
      return {"FAIL", "input '" + In->name() + "' is not f32"};
    std::vector<int64_t> Sizes;
    for (const Dim &Dm : In->type().Dims)
      Sizes.push_back(Dm.isStatic() ? Dm.size() : 2);
    std::vector<float> Vals(static_cast<size_t>(*numElements(makeShape(Sizes))));
    for (float &X : Vals)
      X = D(Rng);
    Inputs.push_back(
        Tensor::fromValues<float>(ElementType::F32, makeShape(Sizes), Vals));
  }
  Verdict V = checkModel(Model, std::move(Inputs), true);
  if (V.Kind == "SKIP")
    V.Kind = "FAIL";
  return V;
}

Verdict checkExample(const std::string &Model) {
  if (llvm::StringRef(Model).endswith(".kir"))
    return checkKirExample(Model);
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
  Verdict V = checkModel(Model, std::move(Inputs), true);
  if (V.Kind == "SKIP") // an example must import and run
    V.Kind = "FAIL";
  return V;
}

/// Runs Check in a child process (a crash or hang is one failed model).
template <typename Fn>
Verdict isolated(Fn Check, unsigned Timeout) {
  kiln::testing::ChildResult R = kiln::testing::runInChild(Timeout, [&]() -> std::string {
    Verdict V = Check();
    return llvm::formatv("{0} {1:e} {2}", V.Kind, V.Worst, V.Detail).str();
  });
  if (!R.Failure.empty())
    return {"FAIL", R.Failure};
  const std::string &Out = R.Output;
  size_t S1 = Out.find(' '), S2 = Out.find(' ', S1 + 1);
  if (S1 == std::string::npos || S2 == std::string::npos)
    return {"FAIL", "the check exited without a verdict"};
  return {Out.substr(0, S1), Out.substr(S2 + 1),
          std::strtod(Out.substr(S1 + 1, S2 - S1 - 1).c_str(), nullptr)};
}

} // namespace

int main(int Argc, char **Argv) {
  std::string Suite, Filter;
  std::vector<std::string> Examples;
  unsigned Timeout = 120;
  for (int I = 1; I < Argc; I += 2) { // every option takes a value
    std::string S = Argv[I];
    std::string Next = I + 1 < Argc ? Argv[I + 1] : "";
    if (S == "--suite")
      Suite = Next;
    else if (S == "--examples")
      Examples.push_back(Next);
    else if (S == "--filter")
      Filter = Next;
    else if (S == "--timeout")
      Timeout = unsigned(std::max(1, std::atoi(Next.c_str())));
    else {
      llvm::errs() << "usage: kiln-wholemodel [--suite DIR] [--examples DIR]... "
                      "[--filter S] [--timeout SECONDS]\n";
      return 2;
    }
  }
  std::vector<std::pair<std::string, std::string>> Models; // (name, path)
  for (const std::string &Dir : Examples)
    for (const std::string &P : listDir(Dir, false))
      if (llvm::StringRef(P).endswith(".onnx") ||
          llvm::StringRef(P).endswith(".kir") ||
          llvm::StringRef(P).endswith(".pt"))
        Models.push_back({"example/" + llvm::sys::path::filename(P).str(), P});
  size_t NumExamples = Models.size();
  if (!Suite.empty())
    for (const char *Sub : {"node", "simple"})
      for (const std::string &P : listDir(Suite + "/" + Sub, true))
        Models.push_back(
            {std::string(Sub) + "/" + llvm::sys::path::filename(P).str(), P});
  if (NumExamples == 0 && Models.empty()) {
    llvm::errs() << "kiln-wholemodel: no models found; skipping\n";
    return 77;
  }

  unsigned Passed = 0, Failed = 0, Skipped = 0, Changed = 0;
  double Worst = 0;
  std::string WorstName;
  for (size_t I = 0; I < Models.size(); ++I) {
    const std::string &Name = Models[I].first, &Path = Models[I].second;
    if (!Filter.empty() && Name.find(Filter) == std::string::npos)
      continue;
    bool Example = I < NumExamples;
    Verdict V = isolated(
        [&] { return Example ? checkExample(Path) : checkNodeTest(Path); },
        Timeout);
    if (V.Kind == "PASS") {
      ++Passed;
      Changed += llvm::StringRef(V.Detail).startswith("changed");
      if (V.Worst > Worst) {
        Worst = V.Worst;
        WorstName = Name;
      }
      if (Example)
        llvm::outs() << "PASS " << Name << ": " << V.Detail << '\n';
    } else if (V.Kind == "SKIP") {
      ++Skipped;
    } else {
      ++Failed;
      llvm::outs() << "FAIL " << Name << ": " << V.Detail << '\n';
    }
  }
  llvm::outs() << Passed << " models match after -O2 (" << Changed
               << " of them changed by it), " << Failed
               << " failed, " << Skipped
               << " skipped (do not import or run unoptimized)\n"
               << llvm::formatv("largest error: {0:e} of the tolerance "
                                "(1e-4 rel + 1e-6 abs) in {1}\n",
                                Worst, WorstName.empty() ? "-" : WorstName);
  return Failed == 0 ? 0 : 1;
}

#include "EndToEndDriver.h"

#include "IR/Parser.h"
#include "ModelChecks.h"
#include "RunInChild.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <random>

namespace kiln::testing {

bool parseDriverArgs(int Argc, char **Argv, const char *Tool, DriverArgs &A) {
  for (int I = 1; I < Argc; ++I) {
    std::string S = Argv[I], Next = I + 1 < Argc ? Argv[I + 1] : "";
    if (S == "--verbose") {
      A.Verbose = true;
      continue;
    }
    if (S == "--suite")
      A.Suite = Next;
    else if (S == "--examples")
      A.Examples.push_back(Next);
    else if (S == "--kir")
      A.KirDirs.push_back(Next);
    else if (S == "--filter")
      A.Filter = Next;
    else {
      llvm::errs() << "usage: " << Tool
                   << " [--suite DIR] [--examples DIR]... [--kir DIR]... "
                      "[--filter S] [--verbose]\n";
      return false;
    }
    ++I;
  }
  return true;
}

std::vector<ModelEntry> collectModels(const DriverArgs &A) {
  std::vector<ModelEntry> Models;
  auto Name = [](const std::string &P) {
    return llvm::sys::path::filename(P).str();
  };
  for (const std::string &Dir : A.Examples)
    for (const std::string &P : listDir(Dir, false))
      if (llvm::StringRef(P).endswith(".onnx") ||
          llvm::StringRef(P).endswith(".pt"))
        Models.push_back({"example/" + Name(P), P, ModelKind::Example});
  for (const std::string &Dir : A.KirDirs)
    for (const std::string &P : listDir(Dir, false))
      if (llvm::StringRef(P).endswith(".kir"))
        Models.push_back({"kernel/" + Name(P), P, ModelKind::Kir});
  if (!A.Suite.empty())
    for (const char *Sub : {"node", "simple"})
      for (const std::string &P : listDir(A.Suite + "/" + Sub, true))
        Models.push_back({std::string(Sub) + "/" + Name(P), P, ModelKind::Node});
  return Models;
}

llvm::Expected<std::unique_ptr<Graph>> parseKirFile(const std::string &Path) {
  auto Text = llvm::MemoryBuffer::getFile(Path);
  if (!Text)
    return llvm::createStringError(Text.getError(), "cannot read %s",
                                   Path.c_str());
  return parseGraph((*Text)->getBuffer(), Path);
}

std::vector<Tensor> seededInputs(const Graph &G) {
  std::mt19937 Rng(1234);
  std::uniform_real_distribution<float> Dist(-2.0f, 2.0f);
  std::vector<Tensor> Inputs;
  for (const Value *In : G.inputs()) {
    std::vector<int64_t> Dims;
    for (const Dim &D : In->type().Dims)
      Dims.push_back(D.size());
    TensorType T(ElementType::F32, makeShape(Dims));
    size_t Count = 1;
    for (int64_t D : Dims)
      Count *= size_t(D);
    std::vector<float> V(Count);
    for (float &X : V)
      X = Dist(Rng);
    Inputs.emplace_back(
        T, Buffer::copy({reinterpret_cast<const uint8_t *>(V.data()),
                         V.size() * 4}));
  }
  return Inputs;
}

Verdict loadNodeTest(const std::string &Folder, std::unique_ptr<Graph> &G,
                     std::vector<Tensor> &Inputs) {
  auto Imported = importModel(Folder + "/model.onnx");
  if (!Imported)
    return {"SKIP", "import: " + firstLine(Imported.takeError())};
  auto Read = nodeTestInputs(Folder);
  if (!Read)
    return {"SKIP", "reading inputs: " + firstLine(Read.takeError())};
  if (Read->size() != (*Imported)->numInputs())
    return {"SKIP", "input count"};
  for (unsigned I = 0; I < Read->size(); ++I) {
    (*Read)[I] = asDeclared(std::move((*Read)[I]),
                            (*Imported)->input(I)->type().Elem);
    if (!isCompatible((*Imported)->input(I)->type(), (*Read)[I].type()))
      return {"SKIP", "input " + std::to_string(I) +
                          " does not match its declared type"};
  }
  G = std::move(*Imported);
  Inputs = std::move(*Read);
  return {"", ""};
}

Verdict isolatedVerdict(unsigned TimeoutS,
                        const std::function<Verdict()> &Check) {
  ChildResult R = runInChild(TimeoutS, [&]() -> std::string {
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

RunCounts runModels(
    const std::vector<ModelEntry> &Models, const DriverArgs &A,
    unsigned TimeoutS, const ModelCheckers &Check,
    const std::function<void(const ModelEntry &, const Verdict &)> &OnVerdict) {
  RunCounts C;
  for (const ModelEntry &M : Models) {
    if (!A.Filter.empty() && M.Name.find(A.Filter) == std::string::npos)
      continue;
    C.Examples += M.Kind == ModelKind::Example;
    C.Kirs += M.Kind == ModelKind::Kir;
    Verdict V = isolatedVerdict(TimeoutS, [&] {
      return M.Kind == ModelKind::Example ? Check.Example(M.Path)
             : M.Kind == ModelKind::Kir   ? Check.Kir(M.Path)
                                          : Check.Node(M.Path);
    });
    ++C.Kinds[V.Kind];
    if (V.Kind == "UNSUPPORTED")
      ++C.Reasons[V.Detail.substr(V.Detail.find("): ") + 3, 60)];
    if (OnVerdict)
      OnVerdict(M, V);
    if (V.Kind == "FAIL" || M.Kind != ModelKind::Node || A.Verbose)
      llvm::outs() << V.Kind << ' ' << M.Name << ": " << V.Detail << '\n';
  }
  if (A.Verbose)
    for (const auto &[Reason, N] : C.Reasons)
      llvm::outs() << llvm::formatv("{0,4} unsupported: {1}\n", N, Reason);
  return C;
}

} // namespace kiln::testing

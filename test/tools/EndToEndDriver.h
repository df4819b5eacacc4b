// What the per-target end-to-end drivers (kiln-vulkan-e2e, kiln-nnapi-e2e)
// share: the model list (examples, kernel edge cases, conformance tests),
// the inputs of an edge case and of a conformance test, each check in a
// child process, and the command line.
#pragma once

#include "IR/Graph.h"
#include "IR/Tensor.h"

#include "llvm/Support/Error.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kiln::testing {

/// PASS, UNSUPPORTED, SKIP or FAIL, and the detail printed after it.
struct Verdict {
  std::string Kind, Detail;
};

enum class ModelKind { Example, Kir, Node };

struct ModelEntry {
  std::string Name, Path;
  ModelKind Kind;
};

struct DriverArgs {
  std::string Suite, Filter;
  std::vector<std::string> Examples, KirDirs;
  bool Verbose = false;
};

/// Parses the driver's flags: [--suite DIR] [--examples DIR]... [--kir DIR]...
/// [--filter S] [--verbose]; false (after printing the usage of Tool) on a
/// bad one.
bool parseDriverArgs(int Argc, char **Argv, const char *Tool, DriverArgs &A);

/// EXAMPLES/*.onnx and *.pt, KIR/*.kir, then SUITE/node/* and SUITE/simple/*.
std::vector<ModelEntry> collectModels(const DriverArgs &A);

/// A .kir file parsed.
llvm::Expected<std::unique_ptr<Graph>> parseKirFile(const std::string &Path);

/// Seeded uniform f32 inputs in [-2, 2] for every input of G (static dims).
std::vector<Tensor> seededInputs(const Graph &G);

/// A conformance test's model and test_data_set_0 inputs, converted to the
/// declared types; a SKIP verdict when they do not import or match.
Verdict loadNodeTest(const std::string &Folder, std::unique_ptr<Graph> &G,
                     std::vector<Tensor> &Inputs);

/// Check() run in a child process (a crash or a hang past TimeoutS is a
/// FAIL with the reason).
Verdict isolatedVerdict(unsigned TimeoutS, const std::function<Verdict()> &Check);

/// A driver's check of each kind of model.
struct ModelCheckers {
  std::function<Verdict(const std::string &Path)> Example, Kir, Node;
};

/// What runModels counted: verdicts by kind, the first 60 characters of
/// each UNSUPPORTED reason, and the examples and edge cases run.
struct RunCounts {
  std::map<std::string, unsigned> Kinds, Reasons;
  unsigned Examples = 0, Kirs = 0;
};

/// Every model that matches --filter, each checked in a child process
/// (isolatedVerdict); FAIL verdicts and those of examples and edge cases
/// are printed (every verdict with --verbose, then the UNSUPPORTED reasons).
/// OnVerdict, when given, sees each model's verdict.
RunCounts runModels(
    const std::vector<ModelEntry> &Models, const DriverArgs &A,
    unsigned TimeoutS, const ModelCheckers &Check,
    const std::function<void(const ModelEntry &, const Verdict &)> &OnVerdict =
        nullptr);

} // namespace kiln::testing

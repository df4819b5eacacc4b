// Runs an ordered list of passes over a graph, with the verifier after each
// (when asked) and IR printing hooks for --print-ir-after-all/-after=NAME.
#pragma once

#include "passes/Pass.h"

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace kiln {

struct PassManagerOptions {
  /// Run the verifier after every pass (tests, debug builds, --verify-each).
  bool VerifyEach = false;
  bool PrintAfterAll = false;
  std::vector<std::string> PrintAfter; // pass names
  llvm::raw_ostream *PrintStream = nullptr; // defaults to llvm::errs()
};

struct PassRunRecord {
  std::string Name;
  bool Changed = false;
  PassStats Stats;
};

class PassManager {
public:
  explicit PassManager(PassManagerOptions Opts = {}) : Opts(std::move(Opts)) {}

  /// Appends a pass by name; error (usage) for an unknown name.
  llvm::Error add(llvm::StringRef Name);
  const std::vector<std::string> &pipeline() const { return Names; }

  /// Runs the pipeline added so far.
  llvm::Error run(Graph &G);
  /// Runs one more pass now, with the same verification, printing and
  /// record as the pipeline's: for passes whose inputs are decided between
  /// passes (insert-qdq after the int8 plan). Usage error for an unknown
  /// name.
  llvm::Error runPass(llvm::StringRef Name, Graph &G);
  /// One record per pass run, in order.
  const std::vector<PassRunRecord> &records() const { return Records; }

private:
  llvm::Error runOne(const std::string &Name, Graph &G);

  PassManagerOptions Opts;
  std::vector<std::string> Names;
  std::vector<PassRunRecord> Records;
};

/// Default verification: on in debug builds, off in release (tests turn it on).
bool verifyEachByDefault();

} // namespace kiln

// A pipeline run recorded beside the .kir it wrote, so that a later
// conversion of that .kir records the passes the model really went
// through instead of running them again (kiln build optimizes each model
// once per pipeline and converts it for several targets and precisions).
//
//   kiln opt MODEL --target T -o OPT.kir --pass-record OPT.passes.json
//   kiln convert OPT.kir --target T --pass-record OPT.passes.json ...
//
// The record names the target and pipeline it ran, each pass with what it
// changed, the ops the model had as loaded, the kiln that ran it, and the
// hash of the .kir it wrote. A conversion that takes it checks all of that
// against its own flags and input, so a stale or mismatched record is an
// error, never a silently different file. A target whose pipeline extends
// the recorded one (NNAPI's extends the CPU's) runs only the rest.
#pragma once

#include "Driver/CompileGraph.h"

#include <CLI/CLI.hpp>

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <string>
#include <vector>

namespace kiln {

struct PassRecord {
  std::string Kiln;     // the version that ran the passes
  std::string Target;   // whose pipeline
  std::string Pipeline; // its label: -O2, -O1, -O0 or custom
  std::string IrHash;   // contentHash of the .kir written, in hex
  std::vector<PassSummary> Passes;
  OpHistogram OpsBefore;
};

llvm::json::Value passRecordJson(const PassRecord &R);

/// --pass-record FILE for the commands that read a record (convert,
/// calibrate).
void addPassRecordFlag(CLI::App &Sub, std::string &Path);

/// Reads and checks the shape of a record; errors name Path.
llvm::Expected<PassRecord> readPassRecord(llvm::StringRef Path);
/// The same for a record's text (Path for the errors).
llvm::Expected<PassRecord> parsePassRecord(llvm::StringRef Text,
                                           llvm::StringRef Path);

/// The hash a record keeps of the .kir at Path.
llvm::Expected<std::string> irFileHash(llvm::StringRef Path);

/// Whether Record (read from RecordPath) describes O.Input as this kiln,
/// with these pipeline flags for this target, would have begun to optimize
/// it: the same version, the very .kir the record was written with, the
/// same level, and the recorded passes the first ones of Pipeline, the
/// passes O's flags choose (all of them, or a prefix: NNAPI's pipeline is
/// the CPU's and more). Returns the passes still to run.
llvm::Expected<std::vector<std::string>>
checkPassRecord(const PassRecord &Record, llvm::StringRef RecordPath,
                const CompileGraphOptions &O,
                const std::vector<std::string> &Pipeline);

} // namespace kiln

// The command-line options that choose the pass pipeline, shared by `kiln
// convert`, `kiln opt` and `kiln calibrate`, and the pass manager they
// build:
//   -O0|-O1|-O2        the target's pipeline for that level (default 2)
//   --passes a,b       exactly these passes, in order (opt, calibrate)
//   --disable-pass N   skip one pass of the pipeline (convert, opt)
#pragma once

#include "backends/Target.h"
#include "passes/PassManager.h"

#include <CLI/CLI.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kiln {

struct PipelineFlags {
  int OptLevel = -1; // -1: not given (--passes, or the default level 2)
  std::vector<std::string> Passes;
  std::vector<std::string> Disabled;

  /// "-O2", or "custom" when a pass was disabled (the file's metadata).
  std::string label() const;
  int level() const { return OptLevel < 0 ? 2 : OptLevel; }
};

/// -O with Help (each command says what the level is for).
void addOptLevelFlag(CLI::App &Sub, PipelineFlags &F, const std::string &Help);
void addPassesFlag(CLI::App &Sub, PipelineFlags &F, const std::string &Help);
void addDisablePassFlag(CLI::App &Sub, PipelineFlags &F);

/// The pass manager for F: --passes as given, else T's pipeline for the
/// level without the disabled passes. Usage errors for -O with --passes and
/// for unknown pass names, before any model is read. The passes T's
/// options make unnecessary (Target::PassesNotNeeded) are left out of its
/// own pipeline.
llvm::Expected<std::unique_ptr<PassManager>>
buildPassManager(const PipelineFlags &F, const Target &T,
                 PassManagerOptions Opts,
                 const std::map<std::string, std::string> &TargetOptions = {});

/// Passes as target T, with TargetOptions (their "quantize" included),
/// would name them: a pass that T replaces by a variant there
/// (Target::PassVariants) and that changed nothing left the graph the
/// variant would have left, so the run is the variant's. A file records
/// the pass list, so this keeps it byte for byte what T's own conversion
/// writes (from a pass record, or a device pipeline that placed everything
/// on the CPU).
void nameAsVariants(std::vector<PassSummary> &Passes, const Target &T,
                    const std::map<std::string, std::string> &TargetOptions);

} // namespace kiln

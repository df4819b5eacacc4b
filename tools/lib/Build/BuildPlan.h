// The job graph of `kiln build`: per model, one import (`kiln opt -O0` to
// text IR with its input shapes bound), one optimization of that import
// (`kiln opt --pass-record`: the CPU pipeline, which every target's but
// --target onnx's begins with; the conversions and the calibration read it
// without running those passes again, recording the original as their
// source) and calibration (in
// shards, then merged, when the manifest asks) once for all its int8
// artifacts; per artifact, one conversion and one gate (`kiln diff`
// against the source model itself, and the graph drawn for the report).
// Every job is a kiln command
// line, so a job runs the same in this process's workers, under
// `kiln build --only JOB` on another machine, or in any scheduler that
// reads `kiln build --plan`.
#pragma once

#include "Build/Manifest.h"

#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln {

enum class JobKind { Import, Optimize, Calibrate, Merge, Convert, Gate };
llvm::StringRef jobKindName(JobKind K);

/// One kiln command: its arguments (after the executable) and the file its
/// standard output goes to ("" for the job's log).
struct JobCommand {
  std::vector<std::string> Args;
  std::string Stdout;
};

struct BuildJob {
  std::string Id; // "calibrate:resnet18", "convert:resnet18.cpu.int8", ...
  JobKind Kind;
  std::string Model, Artifact; // Artifact: "" for calibration jobs
  std::vector<std::string> Deps;
  std::vector<JobCommand> Commands;
  /// What keys the job besides its commands: the files and folders whose
  /// contents it reads (the source model, calibration data, a dependency's
  /// output).
  std::vector<std::string> Reads;
  /// The files (or folders) it writes.
  std::vector<std::string> Outputs;
  /// Folders emptied and made before its commands run (an import's, whose
  /// weight file is named by its hash).
  std::vector<std::string> Folders;
};

struct BuildArtifact {
  std::string Name; // "<model>.<target>.<precision>"
  std::string Model, Target, Precision;
  std::string File; // OUT/<name>.kiln
  unsigned Entry = 0; // its [[build]] #
  std::optional<double> MinSqnr;
  std::optional<uint64_t> MaxSize;
  std::string ConvertJob, GateJob;
  std::string ConvertReport, GateReport, GraphSvg; // the jobs' outputs
};

struct BuildPlan {
  std::string ManifestPath;                      // as given
  std::string ManifestDir, OutDir, StateDir;     // absolute
  std::vector<BuildJob> Jobs;                 // dependencies first
  std::vector<BuildArtifact> Artifacts;
  /// Combinations skipped by skip_unsupported, with why.
  std::vector<std::string> Skipped;

  const BuildJob *job(llvm::StringRef Id) const;
};

/// Every artifact and job of M written under OutDir; bad input (exit 1,
/// naming the manifest's line and the [[build]] entry) for a combination the
/// target cannot make (unless skip_unsupported), int8 without calibration,
/// or an artifact named twice.
llvm::Expected<BuildPlan> planBuild(const Manifest &M, const std::string &OutDir);

/// `kiln build --plan`: the jobs with their dependencies, what each runs,
/// and the `kiln build --only` line that runs it; then the final "report"
/// step. Kiln is the kiln executable's path.
llvm::json::Value planJson(const BuildPlan &P, const std::string &Kiln);

} // namespace kiln

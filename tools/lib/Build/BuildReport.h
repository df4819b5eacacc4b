// What a build produced: per artifact, its file, whether it was rebuilt,
// and its gates (kiln diff's per-output metrics against min_sqnr, its size
// against max_size), written as OUT/report.json and a self-contained
// OUT/report.html (ReportHtml.cpp).
#pragma once

#include "Build/BuildRunner.h"

#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln {

struct LayerError {
  std::string Name, Op;
  std::optional<double> SqnrDb; // none when the layer matched exactly
};

struct OutputError {
  std::string Name;
  std::optional<double> SqnrDb, Cosine, MaxAbs;
  // NaN or infinite values kiln diff found in the source (A) and in the
  // artifact (B); either fails min_sqnr.
  int64_t NonFiniteSource = 0, NonFiniteArtifact = 0;
};

struct ArtifactResult {
  const BuildArtifact *A = nullptr;
  bool Exists = false, Rebuilt = false;
  double BuildSeconds = 0;
  uint64_t Bytes = 0;
  std::string Hash, Lock;
  std::string Error; // the conversion's failure
  bool GateRan = false;
  std::string GateError; // why kiln diff could not compare
  std::vector<OutputError> Outputs;
  std::vector<LayerError> Layers; // worst first
  std::vector<std::string> Failures; // failed gates, each a sentence
  bool passed() const { return Error.empty() && Failures.empty(); }
};

struct BuildSummary {
  std::vector<ArtifactResult> Artifacts;
  std::vector<std::string> Errors; // failed jobs, named
  unsigned Rebuilt = 0, Reused = 0, GateFailures = 0;
  double Seconds = 0;
  std::string Version;
};

BuildSummary summarizeBuild(const BuildState &State,
                            const std::map<std::string, JobOutcome> &Outcomes,
                            double Seconds, const std::string &Version);

llvm::json::Value buildReportJson(const BuildPlan &P, const BuildSummary &S);
std::string buildReportHtml(const BuildPlan &P, const BuildSummary &S);

/// A number as people write it: 30, 27.5 (no trailing zeros).
std::string shortNumber(double V);

/// Writes OUT/report.json and OUT/report.html.
llvm::Error writeBuildReports(const BuildPlan &P, const BuildSummary &S);

} // namespace kiln

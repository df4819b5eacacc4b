#include "Build/BuildReport.h"

#include "Support/FileSystem.h"
#include "Support/Json.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kiln {

namespace {

/// A metric of kiln diff's report: none for "inf" (an SQNR of equal
/// tensors) or a missing key, -infinity for "-inf", NaN for null (formatJson
/// writes a NaN so), which no gate passes.
std::optional<double> number(const llvm::json::Object &O, llvm::StringRef K) {
  if (auto V = O.getNumber(K))
    return *V;
  if (O.getString(K) == llvm::Optional<llvm::StringRef>("-inf"))
    return -INFINITY;
  if (const llvm::json::Value *V = O.get(K); V && V->getAsNull())
    return std::numeric_limits<double>::quiet_NaN();
  return std::nullopt;
}

/// Reads kiln diff's JSON report into R.
void readGate(const std::string &Path, ArtifactResult &R) {
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf) {
    R.GateError = Path + ": " + Buf.getError().message();
    return;
  }
  auto V = parseJsonFile((*Buf)->getBuffer(), Path);
  if (!V || !V->getAsObject()) {
    R.GateError = Path + ": not a kiln diff report";
    if (!V)
      llvm::consumeError(V.takeError());
    return;
  }
  const llvm::json::Object &D = *V->getAsObject();
  R.GateRan = true;
  if (const llvm::json::Array *Outs = D.getArray("outputs"))
    for (const llvm::json::Value &E : *Outs)
      if (const llvm::json::Object *O = E.getAsObject())
        R.Outputs.push_back({O->getString("name").getValueOr("").str(),
                             number(*O, "sqnr_db"), number(*O, "cosine"),
                             number(*O, "max_abs"),
                             O->getInteger("non_finite_a").getValueOr(0),
                             O->getInteger("non_finite_b").getValueOr(0)});
  if (const llvm::json::Array *Layers = D.getArray("layers"))
    for (const llvm::json::Value &E : *Layers)
      if (const llvm::json::Object *O = E.getAsObject())
        R.Layers.push_back({O->getString("name").getValueOr("").str(),
                            O->getString("op").getValueOr("").str(),
                            number(*O, "sqnr_db")});
  // Worst first; exact layers (no SQNR: no error at all) last.
  std::stable_sort(R.Layers.begin(), R.Layers.end(),
                   [](const LayerError &A, const LayerError &B) {
                     // A NaN sorts as the worst (and keeps the order strict).
                     auto Key = [](double X) { return std::isnan(X) ? -INFINITY : X; };
                     if (A.SqnrDb && B.SqnrDb)
                       return Key(*A.SqnrDb) < Key(*B.SqnrDb);
                     return A.SqnrDb.has_value() && !B.SqnrDb.has_value();
                   });
}

void judge(ArtifactResult &R) {
  const BuildArtifact &A = *R.A;
  if (!R.Error.empty())
    return;
  if (A.MaxSize && R.Bytes > *A.MaxSize)
    R.Failures.push_back(llvm::formatv("{0}: {1} bytes > max_size {2} bytes",
                                       A.Name, R.Bytes, *A.MaxSize));
  if (!A.MinSqnr)
    return;
  if (!R.GateRan) {
    R.Failures.push_back(llvm::formatv(
        "{0}: min_sqnr {1} dB could not be checked: {2}", A.Name,
        shortNumber(*A.MinSqnr), R.GateError));
    return;
  }
  for (const OutputError &O : R.Outputs) {
    if (O.NonFiniteSource || O.NonFiniteArtifact) {
      R.Failures.push_back(llvm::formatv(
          "{0}: output '{1}': {2} NaN/inf values in the artifact, {3} in the "
          "source: min_sqnr {4} dB cannot pass on values that are not numbers",
          A.Name, O.Name, O.NonFiniteArtifact, O.NonFiniteSource,
          shortNumber(*A.MinSqnr)));
      continue;
    }
    if (O.SqnrDb && !(*O.SqnrDb >= *A.MinSqnr))
      R.Failures.push_back(llvm::formatv(
          "{0}: output '{1}': SQNR {2:f1} dB < min_sqnr {3} dB", A.Name,
          O.Name, *O.SqnrDb, shortNumber(*A.MinSqnr)));
  }
}

llvm::json::Value opt(const std::optional<double> &V) {
  return V ? llvm::json::Value(*V) : llvm::json::Value(nullptr);
}

} // namespace

std::string shortNumber(double V) {
  return llvm::formatv("{0}", llvm::format("%g", V)).str();
}

BuildSummary summarizeBuild(const BuildState &State,
                            const std::map<std::string, JobOutcome> &Outcomes,
                            double Seconds, const std::string &Version) {
  const BuildPlan &P = State.plan();
  BuildSummary S;
  S.Seconds = Seconds;
  S.Version = Version;
  auto OutcomeOf = [&](const std::string &Id) {
    auto It = Outcomes.find(Id);
    return It == Outcomes.end() ? JobOutcome() : It->second;
  };
  for (const BuildJob &J : P.Jobs) {
    JobOutcome O = OutcomeOf(J.Id);
    if (J.Kind != JobKind::Gate &&
        (O.State == JobState::Failed || O.State == JobState::Blocked))
      S.Errors.push_back(J.Id + ": " + O.Message);
  }
  for (const BuildArtifact &A : P.Artifacts) {
    ArtifactResult R;
    R.A = &A;
    JobOutcome Conv = OutcomeOf(A.ConvertJob);
    std::optional<JobStamp> Stamp = State.stampOf(A.ConvertJob);
    if (Conv.State == JobState::Failed || Conv.State == JobState::Blocked ||
        !Stamp) {
      R.Error = Conv.Message.empty() ? "not built" : Conv.Message;
    } else {
      R.Exists = true;
      R.Rebuilt = Conv.State == JobState::Built;
      R.BuildSeconds = R.Rebuilt ? Conv.Seconds : Stamp->Seconds;
      R.Lock = Stamp->Key;
      llvm::StringRef Rel(A.File);
      Rel.consume_front(P.OutDir + "/");
      auto It = Stamp->Outputs.find(Rel.str());
      R.Hash = It == Stamp->Outputs.end() ? "" : It->second;
      uint64_t Size = 0;
      if (!llvm::sys::fs::file_size(A.File, Size))
        R.Bytes = Size;
      JobOutcome Gate = OutcomeOf(A.GateJob);
      if (Gate.State == JobState::Failed || Gate.State == JobState::Blocked)
        R.GateError = Gate.Message;
      else
        readGate(A.GateReport, R);
    }
    judge(R);
    S.Rebuilt += R.Rebuilt;
    S.Reused += R.Exists && !R.Rebuilt;
    S.GateFailures += unsigned(R.Failures.size());
    S.Artifacts.push_back(std::move(R));
  }
  return S;
}

llvm::json::Value buildReportJson(const BuildPlan &P, const BuildSummary &S) {
  llvm::json::Array Artifacts, Errors, Skipped;
  bool Passed = S.Errors.empty();
  for (const ArtifactResult &R : S.Artifacts) {
    const BuildArtifact &A = *R.A;
    llvm::json::Array Outputs, Layers, Failures;
    for (const OutputError &O : R.Outputs)
      Outputs.push_back(llvm::json::Object{{"name", O.Name},
                                           {"sqnr_db", opt(O.SqnrDb)},
                                           {"cosine", opt(O.Cosine)},
                                           {"max_abs", opt(O.MaxAbs)}});
    for (const LayerError &L : R.Layers)
      Layers.push_back(llvm::json::Object{
          {"name", L.Name}, {"op", L.Op}, {"sqnr_db", opt(L.SqnrDb)}});
    for (const std::string &F : R.Failures)
      Failures.push_back(F);
    Passed &= R.passed();
    llvm::StringRef Rel(A.File);
    Rel.consume_front(P.OutDir + "/");
    Artifacts.push_back(llvm::json::Object{
        {"name", A.Name},
        {"model", A.Model},
        {"target", A.Target},
        {"precision", A.Precision},
        {"entry", int64_t(A.Entry)},
        {"file", R.Exists ? llvm::json::Value(Rel.str()) : llvm::json::Value(nullptr)},
        {"bytes", int64_t(R.Bytes)},
        {"hash", R.Hash},
        {"lock", R.Lock},
        {"rebuilt", R.Rebuilt},
        {"build_seconds", R.BuildSeconds},
        {"error", R.Error.empty() ? llvm::json::Value(nullptr)
                                  : llvm::json::Value(R.Error)},
        {"gate",
         llvm::json::Object{
             {"ran", R.GateRan},
             {"error", R.GateError.empty() ? llvm::json::Value(nullptr)
                                           : llvm::json::Value(R.GateError)},
             {"min_sqnr", opt(A.MinSqnr)},
             {"max_size", A.MaxSize ? llvm::json::Value(int64_t(*A.MaxSize))
                                    : llvm::json::Value(nullptr)},
             {"outputs", std::move(Outputs)},
             {"passed", R.passed()},
             {"failures", std::move(Failures)}}},
        {"layers", std::move(Layers)}});
  }
  for (const std::string &E : S.Errors)
    Errors.push_back(E);
  for (const std::string &Sk : P.Skipped)
    Skipped.push_back(Sk);
  return llvm::json::Object{{"manifest", P.ManifestPath},
                            {"out", P.OutDir},
                            {"kiln", S.Version},
                            {"seconds", S.Seconds},
                            {"rebuilt", int64_t(S.Rebuilt)},
                            {"reused", int64_t(S.Reused)},
                            {"passed", Passed},
                            {"errors", std::move(Errors)},
                            {"skipped", std::move(Skipped)},
                            {"artifacts", std::move(Artifacts)}};
}

llvm::Error writeBuildReports(const BuildPlan &P, const BuildSummary &S) {
  std::string Json;
  llvm::raw_string_ostream OS(Json);
  OS << formatJson(buildReportJson(P, S)) << "\n";
  if (llvm::Error E = writeFileAtomically(P.OutDir + "/report.json", OS.str()))
    return E;
  return writeFileAtomically(P.OutDir + "/report.html", buildReportHtml(P, S));
}

} // namespace kiln

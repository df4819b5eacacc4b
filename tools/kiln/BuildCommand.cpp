// kiln build: every artifact of a manifest (docs/build.md), calibrated
// once per model, converted, gated against the source model, incremental.
//
//   kiln build kiln.toml -o OUT [--jobs N] [--json]
//   kiln build kiln.toml -o OUT --plan          the job graph, as JSON
//   kiln build kiln.toml -o OUT --only JOB      one job of it ("report": the
//                                               reports and kiln.lock)
//
// Exit 1 for a bad manifest (before anything is built) or a job that
// failed, 3 for a failed gate (after everything else is built).
#include "Command.h"
#include "Version.h"

#include "Build/BuildPlan.h"
#include "Build/BuildReport.h"
#include "Build/BuildRunner.h"
#include "Build/BuildState.h"
#include "Build/Manifest.h"

#include "Support/Hash.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <set>
#include <thread>

namespace kiln {

namespace {

struct BuildOptions {
  std::string Manifest, Out, Only;
  unsigned Jobs = 1;
  bool Json = false, Plan = false;
};

int anchor;

/// kiln's version and the hash of the running executable: a rebuilt kiln
/// rebuilds every artifact, whatever its version string says.
llvm::Expected<std::string> kilnIdentity(const std::string &Exe) {
  auto Buf = llvm::MemoryBuffer::getFile(Exe, false, false);
  if (!Buf)
    return inputError("{0}: cannot read the kiln executable: {1}", Exe,
                      Buf.getError().message());
  return std::string(KILN_VERSION_STRING) + " (" +
         hashToHex(contentHash((*Buf)->getBuffer())) + ")";
}

llvm::Error runBuild(const BuildOptions &O) {
  auto Start = std::chrono::steady_clock::now();
  if (O.Out.empty())
    return usageError("kiln build needs -o OUT (the folder of the artifacts)");
  auto M = loadManifest(O.Manifest);
  if (!M)
    return M.takeError();
  auto P = planBuild(*M, O.Out);
  if (!P)
    return P.takeError();
  std::string Exe = llvm::sys::fs::getMainExecutable("kiln", &anchor);
  if (O.Plan) {
    printJson(planJson(*P, Exe));
    return llvm::Error::success();
  }
  if (!O.Only.empty() && O.Only != "report" && !P->job(O.Only)) {
    std::string Ids;
    for (const BuildJob &J : P->Jobs)
      Ids += "\n  " + J.Id;
    return usageError("--only {0}: no such job in {1}; its jobs are:{2}\n  "
                      "report",
                      O.Only, O.Manifest, Ids);
  }
  auto Identity = kilnIdentity(Exe);
  if (!Identity)
    return Identity.takeError();
  BuildState State(*P, *Identity);
  BuildRunOptions RO;
  RO.Kiln = Exe;
  RO.Jobs = O.Jobs ? O.Jobs : std::max(1u, std::thread::hardware_concurrency());
  std::map<std::string, JobOutcome> Outcomes;
  if (O.Only.empty()) {
    Outcomes = runBuildJobs(State, RO);
  } else if (O.Only != "report") {
    std::set<std::string> Only = {O.Only};
    Outcomes = runBuildJobs(State, RO, &Only);
    JobState S = Outcomes[O.Only].State;
    if (S == JobState::Failed || S == JobState::Blocked)
      return inputError("{0}: {1}", O.Only, Outcomes[O.Only].Message);
    return llvm::Error::success();
  } else {
    // --only report: every job must have run (here or elsewhere); those
    // stamped since kiln.lock was written were built by --only runs.
    for (const BuildJob &J : P->Jobs) {
      std::optional<JobStamp> S = State.stampOf(J.Id);
      if (!S)
        Outcomes[J.Id] = {JobState::Failed, 0, "has not run"};
      else if (S->Key != State.lockedKey(J.Id))
        Outcomes[J.Id] = {JobState::Built, S->Seconds, ""};
      else
        Outcomes[J.Id] = {JobState::UpToDate, 0, ""};
    }
  }
  double Seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - Start)
                       .count();
  BuildSummary S = summarizeBuild(State, Outcomes, Seconds, *Identity);
  if (llvm::Error E = State.writeLock())
    return E;
  if (llvm::Error E = writeBuildReports(*P, S))
    return E;
  if (O.Json)
    printJson(buildReportJson(*P, S));
  else
    commandOut() << llvm::formatv(
        "{0}: {1} artifact(s) in {2}: {3} rebuilt, {4} up to date{5} "
        "({6:f1} s); {2}/report.html\n",
        O.Manifest, S.Artifacts.size(), P->OutDir, S.Rebuilt, S.Reused,
        S.Rebuilt ? "" : " (nothing changed)", Seconds);
  if (!S.Errors.empty())
    return linesError(ExitCode::BadInput, "build failed: ", S.Errors);
  if (S.GateFailures) {
    std::vector<std::string> Failures;
    for (const ArtifactResult &R : S.Artifacts)
      Failures.insert(Failures.end(), R.Failures.begin(), R.Failures.end());
    return linesError(ExitCode::GateFailed, "gate failed: ", Failures);
  }
  return llvm::Error::success();
}

} // namespace

Command addBuildCommand(CLI::App &App) {
  auto O = std::make_shared<BuildOptions>();
  CLI::App *Sub = App.add_subcommand(
      "build", "build every artifact of a manifest (kiln.toml): calibrate, "
               "convert and gate, incrementally (docs/build.md)");
  Sub->add_option("manifest", O->Manifest, "the manifest (TOML)")->required();
  Sub->add_option("-o,--output", O->Out, "the folder of the artifacts, "
                                         "report.json, report.html and "
                                         "kiln.lock");
  Sub->add_option("--jobs,-j", O->Jobs,
                  "jobs run at once (0: one per core; default 1)");
  Sub->add_flag("--json", O->Json, "print report.json's record");
  Sub->add_flag("--plan", O->Plan,
                "print the job graph as JSON and build nothing");
  Sub->add_option("--only", O->Only,
                  "run one job of the plan (its dependencies must have run), "
                  "or 'report' to write the reports and kiln.lock");
  return {Sub, [O] { return runBuild(*O); }};
}

} // namespace kiln

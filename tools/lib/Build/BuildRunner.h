// Runs the jobs of a build plan: each job's kiln commands in a child
// process (the running kiln executable), up to --jobs at once, dependencies
// first. A job that is up to date (BuildState) is not run; a job whose
// dependency failed is blocked, and everything else still runs.
#pragma once

#include "Build/BuildState.h"

#include <map>
#include <set>
#include <string>

namespace kiln {

struct BuildRunOptions {
  std::string Kiln;  // the kiln executable the jobs run
  unsigned Jobs = 1; // at once
};

enum class JobState { Pending, UpToDate, Built, Failed, Blocked };

struct JobOutcome {
  JobState State = JobState::Pending;
  double Seconds = 0;  // this run's (0 when up to date)
  std::string Message; // why it failed or was blocked
};

/// Runs the plan's jobs, or only those in Only (whose dependencies must
/// then have run before: their stamps and outputs intact), and returns
/// each one's outcome. Progress goes to stderr, one line a job.
std::map<std::string, JobOutcome>
runBuildJobs(BuildState &State, const BuildRunOptions &O,
             const std::set<std::string> *Only = nullptr);

} // namespace kiln

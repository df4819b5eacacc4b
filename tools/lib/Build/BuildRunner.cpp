#include "Build/BuildRunner.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <condition_variable>
#include <thread>

namespace kiln {

namespace {

/// What a failed command said: its first "kiln: error: " line, else the
/// last line of its log.
std::string errorOf(const std::string &Log) {
  auto Buf = llvm::MemoryBuffer::getFile(Log);
  if (!Buf)
    return "";
  llvm::SmallVector<llvm::StringRef, 16> Lines;
  (*Buf)->getBuffer().split(Lines, '\n', -1, false);
  for (llvm::StringRef L : Lines)
    if (L.consume_front("kiln: error: "))
      return L.trim().str();
  for (auto It = Lines.rbegin(); It != Lines.rend(); ++It)
    if (!It->trim().empty())
      return It->trim().str();
  return "";
}

std::string logPath(const BuildPlan &P, const std::string &Id, size_t N) {
  std::string Name = Id;
  for (char &C : Name)
    if (C == ':' || C == '/')
      C = '_';
  return P.StateDir + "/logs/" + Name + "." + std::to_string(N) + ".log";
}

/// Runs J's commands; "" or why one failed.
std::string runCommands(const BuildPlan &P, const BuildJob &J,
                        const std::string &Kiln) {
  for (const std::string &Dir : J.Folders) {
    llvm::sys::fs::remove_directories(Dir);
    if (std::error_code EC = llvm::sys::fs::create_directories(Dir))
      return Dir + ": " + EC.message();
  }
  for (size_t N = 0; N < J.Commands.size(); ++N) {
    const JobCommand &C = J.Commands[N];
    std::string Log = logPath(P, J.Id, N);
    for (const std::string &Path : {Log, C.Stdout, J.Outputs.front()})
      if (!Path.empty())
        if (std::error_code EC = llvm::sys::fs::create_directories(
                llvm::sys::path::parent_path(Path)))
          return Path + ": " + EC.message();
    // Standard output goes to a temporary renamed into place when the
    // command succeeds, so a failed job leaves no half-written report.
    std::string Tmp = C.Stdout.empty() ? Log : C.Stdout + ".tmp";
    std::vector<llvm::StringRef> Args = {Kiln};
    for (const std::string &A : C.Args)
      Args.push_back(A);
    llvm::Optional<llvm::StringRef> Redirects[] = {
        llvm::StringRef(""), llvm::StringRef(Tmp), llvm::StringRef(Log)};
    std::string ErrMsg;
    bool Failed = false;
    int Rc = llvm::sys::ExecuteAndWait(Kiln, Args, llvm::None, Redirects, 0,
                                       0, &ErrMsg, &Failed);
    if (Failed || Rc != 0) {
      if (!C.Stdout.empty())
        llvm::sys::fs::remove(Tmp);
      std::string Why = Failed ? ErrMsg : errorOf(Log);
      if (Why.empty())
        Why = Rc < 0 ? "crashed" : "exit " + std::to_string(Rc);
      return llvm::formatv("kiln {0} (exit {1}): {2} (log: {3})",
                           C.Args.front(), Rc, Why, Log);
    }
    if (!C.Stdout.empty())
      if (std::error_code EC = llvm::sys::fs::rename(Tmp, C.Stdout))
        return C.Stdout + ": " + EC.message();
  }
  return "";
}

double secondsSince(std::chrono::steady_clock::time_point T) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - T)
      .count();
}

} // namespace

std::map<std::string, JobOutcome>
runBuildJobs(BuildState &State, const BuildRunOptions &O,
             const std::set<std::string> *Only) {
  const BuildPlan &P = State.plan();
  std::map<std::string, JobOutcome> Out;
  std::vector<const BuildJob *> Todo;
  for (const BuildJob &J : P.Jobs)
    if (!Only || Only->count(J.Id))
      Todo.push_back(&J);
    else
      Out[J.Id].State = JobState::UpToDate; // taken as run before (--only)
  if (Only)
    // A dependency outside the selection must have run: stamped, outputs
    // intact.
    for (const BuildJob *J : Todo)
      for (const std::string &D : J->Deps) {
        if (Only->count(D))
          continue;
        const BuildJob *Dep = P.job(D);
        std::optional<JobStamp> S = State.stampOf(D);
        bool Intact = S.has_value();
        for (const std::string &F : Dep->Outputs)
          Intact &= llvm::sys::fs::exists(F);
        if (!Intact)
          Out[D] = {JobState::Blocked, 0,
                    "blocked: " + D + " has not run (run it first)"};
      }

  std::mutex Mutex;
  std::condition_variable Changed;
  size_t Done = 0, Running = 0;
  std::vector<bool> Taken(Todo.size(), false);
  auto Ready = [&](const BuildJob &J, std::string &Blocker) {
    for (const std::string &D : J.Deps) {
      JobState S = Out[D].State;
      if (S == JobState::Failed || S == JobState::Blocked) {
        Blocker = D;
        return true;
      }
      if (S != JobState::Built && S != JobState::UpToDate)
        return false;
    }
    return true;
  };
  auto Worker = [&] {
    std::unique_lock<std::mutex> Lock(Mutex);
    for (;;) {
      const BuildJob *Next = nullptr;
      size_t Index = 0;
      std::string Blocker;
      for (size_t I = 0; I < Todo.size() && !Next; ++I)
        if (!Taken[I] && Ready(*Todo[I], Blocker)) {
          Next = Todo[I];
          Index = I;
        }
      if (!Next) {
        if (Done == Todo.size() || (Running == 0 && Done < Todo.size()))
          return; // finished (or nothing can ever become ready)
        Changed.wait(Lock);
        continue;
      }
      Taken[Index] = true;
      if (!Blocker.empty()) {
        // A blocked dependency passes on its cause.
        const JobOutcome &Dep = Out[Blocker];
        Out[Next->Id] = {JobState::Blocked, 0,
                         Dep.State == JobState::Blocked
                             ? Dep.Message
                             : "blocked: " + Blocker + " failed"};
        ++Done;
        Changed.notify_all();
        continue;
      }
      ++Running;
      Lock.unlock();
      JobOutcome R;
      auto Start = std::chrono::steady_clock::now();
      auto Key = State.key(*Next);
      if (!Key) {
        R = {JobState::Failed, 0, llvm::toString(Key.takeError())};
      } else if (State.upToDate(*Next, *Key)) {
        R.State = JobState::UpToDate;
      } else if (std::string Why = runCommands(P, *Next, O.Kiln); !Why.empty()) {
        R = {JobState::Failed, secondsSince(Start), Why};
      } else {
        R = {JobState::Built, secondsSince(Start), ""};
        if (llvm::Error E = State.stamp(*Next, *Key, R.Seconds))
          R = {JobState::Failed, R.Seconds, llvm::toString(std::move(E))};
      }
      Lock.lock();
      --Running;
      ++Done;
      Out[Next->Id] = R;
      llvm::errs() << llvm::formatv(
          "kiln build: [{0}/{1}] {2} {3}{4}\n", Done, Todo.size(),
          R.State == JobState::UpToDate ? "up to date"
          : R.State == JobState::Built  ? "built"
                                        : "FAILED",
          Next->Id,
          R.State == JobState::Built
              ? llvm::formatv(" ({0:f1} s)", R.Seconds).str()
          : R.State == JobState::Failed ? ": " + R.Message
                                        : std::string());
      Changed.notify_all();
    }
  };
  std::vector<std::thread> Threads;
  for (unsigned I = 0; I < std::max(1u, O.Jobs); ++I)
    Threads.emplace_back(Worker);
  for (std::thread &T : Threads)
    T.join();
  for (size_t I = 0; I < Todo.size(); ++I)
    if (!Taken[I])
      Out[Todo[I]->Id] = {JobState::Blocked, 0, "blocked: a dependency did not run"};
  return Out;
}

} // namespace kiln

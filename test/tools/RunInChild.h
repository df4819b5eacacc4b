// Runs a check in a forked child with a time limit, so one crashing or
// hanging model is one failed test instead of a dead test runner. Shared by
// kiln-conformance and kiln-wholemodel.
#pragma once

#include <csignal>
#include <cstring>
#include <functional>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace kiln::testing {

struct ChildResult {
  std::string Output; // what Body returned, as the child wrote it
  std::string Failure; // non-empty if the child crashed, timed out or could not start
};

inline ChildResult runInChild(unsigned TimeoutSeconds,
                              const std::function<std::string()> &Body) {
  int Pipe[2];
  if (::pipe(Pipe) != 0)
    return {"", "cannot create a pipe"};
  pid_t Pid = ::fork();
  if (Pid < 0)
    return {"", "cannot fork"};
  if (Pid == 0) {
    ::close(Pipe[0]);
    ::alarm(TimeoutSeconds);
    std::string R = Body();
    for (size_t Off = 0; Off < R.size();) {
      ssize_t N = ::write(Pipe[1], R.data() + Off, R.size() - Off);
      if (N <= 0)
        break;
      Off += size_t(N);
    }
    ::_exit(0);
  }
  ::close(Pipe[1]);
  ChildResult Result;
  char Buf[4096];
  ssize_t N;
  while ((N = ::read(Pipe[0], Buf, sizeof(Buf))) > 0)
    Result.Output.append(Buf, size_t(N));
  ::close(Pipe[0]);
  int Status = 0;
  ::waitpid(Pid, &Status, 0);
  if (WIFSIGNALED(Status)) {
    int Sig = WTERMSIG(Status);
    Result.Failure = Sig == SIGALRM ? "timed out after " +
                                          std::to_string(TimeoutSeconds) + " s"
                                    : std::string("crashed: ") + strsignal(Sig);
  }
  return Result;
}

} // namespace kiln::testing

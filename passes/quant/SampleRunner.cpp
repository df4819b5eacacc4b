#include "passes/quant/SampleRunner.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace kiln {

unsigned workerCount(unsigned Threads, uint64_t Samples) {
  if (Threads == 0)
    Threads = std::max(1u, std::thread::hardware_concurrency());
  return unsigned(std::max<uint64_t>(1, std::min<uint64_t>(Threads, Samples)));
}

llvm::Error runOverSamples(
    uint64_t Count, unsigned Workers,
    const std::function<llvm::Error(unsigned, uint64_t)> &Fn,
    const ProgressFn &Progress) {
  std::atomic<uint64_t> Next{0}, Done{0};
  std::atomic<bool> Stop{false};
  std::mutex M;
  std::condition_variable Finished;
  unsigned Running = Workers;
  uint64_t FailedSample = UINT64_MAX;
  llvm::Error FirstError = llvm::Error::success();

  auto Work = [&](unsigned Worker) {
    for (uint64_t S; !Stop && (S = Next.fetch_add(1)) < Count;) {
      llvm::Error E = Fn(Worker, S);
      if (E) {
        std::lock_guard<std::mutex> L(M);
        Stop = true;
        if (S < FailedSample) {
          llvm::consumeError(std::move(FirstError));
          FirstError = std::move(E);
          FailedSample = S;
        } else {
          llvm::consumeError(std::move(E));
        }
        break;
      }
      ++Done;
    }
    std::lock_guard<std::mutex> L(M);
    if (--Running == 0)
      Finished.notify_all();
  };

  std::vector<std::thread> Threads;
  for (unsigned W = 0; W < Workers; ++W)
    Threads.emplace_back(Work, W);
  {
    std::unique_lock<std::mutex> L(M);
    while (Running > 0) {
      Finished.wait_for(L, std::chrono::milliseconds(200));
      if (Progress && Running > 0) {
        L.unlock();
        Progress(Done.load(), Count);
        L.lock();
      }
    }
  }
  for (std::thread &T : Threads)
    T.join();
  if (Progress && !FirstError)
    Progress(Done.load(), Count);
  return FirstError;
}

} // namespace kiln

#include "passes/quant/SampleRunner.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace kiln {

namespace {
/// The error of the lowest-numbered sample that failed.
struct LowestFailure {
  uint64_t Sample = UINT64_MAX;
  llvm::Error Error = llvm::Error::success();

  void add(uint64_t S, llvm::Error E) {
    if (S < Sample) {
      llvm::consumeError(std::move(Error));
      Error = std::move(E);
      Sample = S;
    } else {
      llvm::consumeError(std::move(E));
    }
  }
};
} // namespace

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
  LowestFailure Failure;

  auto Work = [&](unsigned Worker) {
    for (uint64_t S; !Stop && (S = Next.fetch_add(1)) < Count;) {
      llvm::Error E = Fn(Worker, S);
      if (E) {
        std::lock_guard<std::mutex> L(M);
        Stop = true;
        Failure.add(S, std::move(E));
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
  if (Progress && !Failure.Error)
    Progress(Done.load(), Count);
  return std::move(Failure.Error);
}

llvm::Expected<uint64_t> runOverSource(
    unsigned Workers, const CalibrationSampleSource &Next,
    const std::function<llvm::Error(unsigned, uint64_t, llvm::ArrayRef<Tensor>)>
        &Fn,
    const ProgressFn &Progress) {
  const size_t Ahead = 2 * size_t(Workers);
  std::mutex M;
  std::condition_variable Ready, Room; // for the workers, for the reader
  std::deque<std::pair<uint64_t, std::vector<Tensor>>> Queue;
  bool Ended = false, Stop = false;
  uint64_t Done = 0;
  LowestFailure Failure;
  auto Fail = [&](uint64_t S, llvm::Error E) { // with M held
    Stop = true;
    Failure.add(S, std::move(E));
    Ready.notify_all();
    Room.notify_all();
  };

  auto Work = [&](unsigned Worker) {
    std::unique_lock<std::mutex> L(M);
    for (;;) {
      Ready.wait(L, [&] { return Stop || Ended || !Queue.empty(); });
      if (Stop || Queue.empty())
        return;
      auto Item = std::move(Queue.front());
      Queue.pop_front();
      Room.notify_one();
      L.unlock();
      llvm::Error E = Fn(Worker, Item.first, Item.second);
      Item.second.clear(); // the sample's memory goes before the next
      L.lock();
      if (E) {
        Fail(Item.first, std::move(E));
        return;
      }
      ++Done;
    }
  };
  std::vector<std::thread> Threads;
  for (unsigned W = 0; W < Workers; ++W)
    Threads.emplace_back(Work, W);

  uint64_t Count = 0;
  auto LastProgress = std::chrono::steady_clock::now();
  for (;;) {
    {
      std::unique_lock<std::mutex> L(M);
      Room.wait(L, [&] { return Stop || Queue.size() < Ahead; });
      if (Stop)
        break;
    }
    std::vector<Tensor> Sample;
    llvm::Expected<bool> More = Next(Sample);
    uint64_t DoneNow;
    {
      std::lock_guard<std::mutex> L(M);
      if (!More) {
        Fail(Count, More.takeError());
        break;
      }
      if (!*More)
        break;
      Queue.emplace_back(Count++, std::move(Sample));
      Ready.notify_one();
      DoneNow = Done;
    }
    auto Now = std::chrono::steady_clock::now();
    if (Progress && Now - LastProgress > std::chrono::milliseconds(200)) {
      LastProgress = Now;
      Progress(DoneNow, ProgressTotalUnknown);
    }
  }
  {
    std::lock_guard<std::mutex> L(M);
    Ended = true;
    Ready.notify_all();
  }
  for (std::thread &T : Threads)
    T.join();
  if (Failure.Error)
    return std::move(Failure.Error);
  if (Progress)
    Progress(Count, Count);
  return Count;
}

} // namespace kiln

// The interpreter's worker pool. parallelFor splits [0, Count) into chunks
// that the calling thread and the workers claim from an atomic counter, then
// waits until every chunk is done. Workers start on the first parallel call,
// so an interpreter that only runs small graphs never spawns threads. A call
// made from inside a worker (a kernel nesting parallelFor) runs serially.
#include "Interpreter/Kernel.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

namespace kiln {

namespace {
thread_local bool InWorker = false;

/// One parallelFor call. Shared with the helper tasks, which may still sit in
/// the queue after the call returned; they then find no chunk left and never
/// touch Fn.
struct ForState {
  const std::function<void(int64_t, int64_t)> *Fn;
  int64_t Count, ChunkSize, NumChunks;
  std::atomic<int64_t> Next{0};
  std::atomic<int64_t> Done{0};
  std::mutex M;
  std::condition_variable CV;

  void work() {
    for (int64_t C; (C = Next.fetch_add(1)) < NumChunks;) {
      int64_t B = C * ChunkSize;
      (*Fn)(B, std::min(Count, B + ChunkSize));
      if (Done.fetch_add(1) + 1 == NumChunks) {
        std::lock_guard<std::mutex> L(M);
        CV.notify_all();
      }
    }
  }
};
} // namespace

struct ThreadPoolRunner::Impl {
  unsigned NumWorkers;
  std::once_flag Started;
  std::vector<std::thread> Workers;
  std::mutex M;
  std::condition_variable CV;
  std::deque<std::shared_ptr<ForState>> Queue;
  bool Stop = false;

  explicit Impl(unsigned NumWorkers) : NumWorkers(NumWorkers) {}

  void start() {
    for (unsigned I = 0; I < NumWorkers; ++I)
      Workers.emplace_back([this] { loop(); });
  }

  void loop() {
    InWorker = true;
    for (;;) {
      std::shared_ptr<ForState> S;
      {
        std::unique_lock<std::mutex> L(M);
        CV.wait(L, [&] { return Stop || !Queue.empty(); });
        if (Stop && Queue.empty())
          return;
        S = std::move(Queue.front());
        Queue.pop_front();
      }
      S->work();
    }
  }

  ~Impl() {
    {
      std::lock_guard<std::mutex> L(M);
      Stop = true;
    }
    CV.notify_all();
    for (std::thread &T : Workers)
      T.join();
  }
};

ThreadPoolRunner::ThreadPoolRunner(unsigned Threads) {
  if (Threads == 0)
    Threads = std::max(1u, std::thread::hardware_concurrency());
  NumThreads = Threads;
  P = std::make_unique<Impl>(Threads - 1); // the caller is the last thread
}

ThreadPoolRunner::~ThreadPoolRunner() = default;

void ThreadPoolRunner::parallelFor(
    int64_t Count, int64_t MinChunk,
    const std::function<void(int64_t, int64_t)> &Fn) {
  if (Count <= 0)
    return;
  MinChunk = std::max<int64_t>(1, MinChunk);
  if (NumThreads <= 1 || Count <= MinChunk || InWorker) {
    Fn(0, Count);
    return;
  }
  // A few chunks per thread balance uneven work without tiny chunks.
  int64_t MaxChunks = std::min<int64_t>(int64_t(NumThreads) * 4,
                                        (Count + MinChunk - 1) / MinChunk);
  auto S = std::make_shared<ForState>();
  S->Fn = &Fn;
  S->Count = Count;
  S->ChunkSize = (Count + MaxChunks - 1) / MaxChunks;
  S->NumChunks = (Count + S->ChunkSize - 1) / S->ChunkSize;
  unsigned Helpers =
      unsigned(std::min<int64_t>(S->NumChunks - 1, int64_t(P->NumWorkers)));
  if (Helpers > 0) {
    std::call_once(P->Started, [&] { P->start(); });
    {
      std::lock_guard<std::mutex> L(P->M);
      for (unsigned I = 0; I < Helpers; ++I)
        P->Queue.push_back(S);
    }
    P->CV.notify_all();
  }
  S->work();
  std::unique_lock<std::mutex> L(S->M);
  S->CV.wait(L, [&] { return S->Done.load() == S->NumChunks; });
}

} // namespace kiln

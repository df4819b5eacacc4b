#include "partitioned/PartitionedExecutor.h"

#include "target/RuntimeTargets.h"

#include <algorithm>
#include <chrono>
#include <cstring>

namespace kiln::rt {

namespace {

uint64_t nowNs() {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count());
}

} // namespace

Status PartitionedExecutor::create(std::shared_ptr<const LoadedModel> Model,
                                   const SessionOptions &Opts,
                                   std::unique_ptr<PartitionedExecutor> &Out) {
  std::unique_ptr<PartitionedExecutor> E(new PartitionedExecutor());
  E->Info = dynamic_cast<const PartitionedInfo *>(Model->Payload.get());
  if (!E->Info) // the loader sets it for every partitioned file
    return invalidModel("the partitioned file was not verified");
  E->Model = std::move(Model);
  const auto &Parts = E->Info->Parts;
  for (size_t P = 0; P < Parts.size(); ++P) {
    std::unique_ptr<Executor> X;
    if (Status S = createExecutor(Parts[P].Model, Opts, X))
      return {S.code(), concat("partition ", Parts[P].Index, " (",
                               targetName(Parts[P].Model->Target), "): ",
                               S.message())};
    E->Parts.push_back(std::move(X));
  }
  // Who reads each outer tensor, and who writes it.
  size_t NumOuter = size_t(Parts.empty() ? 0 : Parts.front().TensorBase);
  std::vector<std::vector<std::pair<size_t, size_t>>> Readers(NumOuter);
  E->OuterData.assign(NumOuter, nullptr);
  for (size_t P = 0; P < Parts.size(); ++P) {
    const LoadedModel &PM = *Parts[P].Model;
    for (size_t K = 0; K < Parts[P].Inputs.size(); ++K)
      Readers[size_t(Parts[P].Inputs[K])].emplace_back(P, size_t(PM.Inputs[K]));
    for (size_t K = 0; K < Parts[P].Outputs.size(); ++K)
      E->OuterData[size_t(Parts[P].Outputs[K])] =
          E->Parts[P]->hostTensor(size_t(PM.Outputs[K]));
  }
  E->CopiesIn.resize(Parts.size());
  for (size_t T = 0; T < NumOuter; ++T) {
    const TensorDesc &D = E->Model->Tensors[T];
    if (!E->OuterData[T] && Readers[T].size() == 1) {
      // A graph input only one part reads: the caller writes it there.
      auto [P, Local] = Readers[T].front();
      E->OuterData[T] = E->Parts[P]->hostTensor(Local);
      continue;
    }
    if (!E->OuterData[T]) { // a graph input several parts read
      E->OwnedBytes += D.Bytes;
      E->Owned.emplace_back(new uint8_t[std::max<uint64_t>(D.Bytes, 1)]());
      E->OuterData[T] = E->Owned.back().get();
    }
    for (auto [P, Local] : Readers[T])
      E->CopiesIn[P].push_back({T, Local, D.Bytes});
  }
  // max_arena_bytes bounds the session: every part's plan and the
  // graph inputs held for several parts, together.
  if (Opts.MaxArenaBytes && E->arenaBytes() + E->scratchBytes() > Opts.MaxArenaBytes)
    return {KILN_ERROR_OUT_OF_MEMORY,
            concat("the partitions' memory plans and shared inputs need ",
                   E->arenaBytes() + E->scratchBytes(),
                   " bytes, over max_arena_bytes (", Opts.MaxArenaBytes, ")")};
  for (size_t P = 0; P < Parts.size(); ++P) {
    PartitionRun R;
    R.Target = Parts[P].Model->Target;
    R.FirstOperator = Parts[P].FirstOperator;
    R.NumOperators = Parts[P].Model->numOperators();
    E->Runs.push_back(R);
  }
  Out = std::move(E);
  return Status::ok();
}

size_t PartitionedExecutor::partOfTensor(size_t T) const {
  const auto &Parts = Info->Parts;
  auto It = std::upper_bound(
      Parts.begin(), Parts.end(), T,
      [](size_t X, const PartitionedInfo::Part &P) {
        return X < size_t(P.TensorBase);
      });
  return size_t(It - Parts.begin()) - 1;
}

size_t PartitionedExecutor::partOfOperator(size_t Op) const {
  const auto &Parts = Info->Parts;
  auto It = std::upper_bound(
      Parts.begin(), Parts.end(), Op,
      [](size_t X, const PartitionedInfo::Part &P) {
        return X < P.FirstOperator;
      });
  return size_t(It - Parts.begin()) - 1;
}

uint8_t *PartitionedExecutor::hostTensor(size_t T) const {
  if (T < OuterData.size())
    return OuterData[T];
  size_t P = partOfTensor(T);
  return Parts[P]->hostTensor(T - size_t(Info->Parts[P].TensorBase));
}

Status PartitionedExecutor::run(std::vector<uint64_t> *OpTimes) {
  std::vector<uint64_t> Local;
  for (size_t P = 0; P < Parts.size(); ++P) {
    uint64_t Start = OpTimes ? nowNs() : 0;
    for (const Copy &C : CopiesIn[P])
      if (C.Bytes)
        std::memcpy(Parts[P]->hostTensor(C.Local), OuterData[C.Outer],
                    size_t(C.Bytes));
    uint64_t Copied = OpTimes ? nowNs() : 0;
    if (OpTimes)
      Local.assign(Runs[P].NumOperators, 0);
    if (Status S = Parts[P]->run(OpTimes ? &Local : nullptr))
      return {S.code(), concat("partition ", Info->Parts[P].Index, " (",
                               targetName(Runs[P].Target), "): ",
                               S.message())};
    if (!OpTimes)
      continue;
    Runs[P].TransferNs = Copied - Start;
    Runs[P].RunNs = nowNs() - Copied;
    std::copy(Local.begin(), Local.end(),
              OpTimes->begin() + std::ptrdiff_t(Runs[P].FirstOperator));
  }
  return Status::ok();
}

const char *PartitionedExecutor::engine(size_t Op) const {
  size_t P = partOfOperator(Op);
  return Parts[P]->engine(Op - Runs[P].FirstOperator);
}

uint64_t PartitionedExecutor::arenaBytes() const {
  uint64_t N = OwnedBytes;
  for (const auto &P : Parts)
    N += P->arenaBytes();
  return N;
}

uint64_t PartitionedExecutor::scratchBytes() const {
  uint64_t N = 0;
  for (const auto &P : Parts)
    N += P->scratchBytes();
  return N;
}

EngineInfo PartitionedExecutor::engineInfo() const {
  EngineInfo Sum;
  for (const auto &P : Parts) {
    EngineInfo E = P->engineInfo();
    if (Sum.Device.empty())
      Sum.Device = E.Device;
    if (Sum.Precision.empty())
      Sum.Precision = E.Precision;
    Sum.Dispatches += E.Dispatches;
    Sum.Pipelines += E.Pipelines;
    Sum.PipelineCacheBytes += E.PipelineCacheBytes;
    Sum.GpuTimestamps |= E.GpuTimestamps;
    Sum.WeightsMappedBytes += E.WeightsMappedBytes;
    Sum.WeightsReleasedBytes += E.WeightsReleasedBytes;
  }
  return Sum;
}

pthreadpool *PartitionedExecutor::threadPool() const {
  for (const auto &P : Parts)
    if (pthreadpool *Pool = P->threadPool())
      return Pool;
  return nullptr;
}

std::vector<PartitionRun> PartitionedExecutor::partitions() const {
  return Runs;
}

} // namespace kiln::rt

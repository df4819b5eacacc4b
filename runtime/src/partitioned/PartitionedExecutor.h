// Runs a partitioned file (schema 1.13): each part on its own target's
// executor, in schedule order, boundaries through the host. A boundary
// tensor lives where its producer's executor puts its output on the host
// (a GPU's host-visible readback memory, the CPU's arena) and is copied
// once into each part that reads it, which converts it on upload as it
// converts any graph input (NCHW to C4 or NHWC, fp32 to fp16); a graph
// input read by one part only is that part's own input, with no copy.
#pragma once

#include "partitioned/PartitionedPayload.h"
#include "target/Executor.h"

#include <memory>
#include <vector>

namespace kiln::rt {

class PartitionedExecutor final : public Executor {
public:
  static Status create(std::shared_ptr<const LoadedModel> Model,
                       const SessionOptions &Opts,
                       std::unique_ptr<PartitionedExecutor> &Out);

  uint8_t *hostTensor(size_t T) const override;
  Status run(std::vector<uint64_t> *OpTimes) override;
  const char *engine(size_t Op) const override;
  uint64_t arenaBytes() const override;
  uint64_t scratchBytes() const override;
  EngineInfo engineInfo() const override;
  pthreadpool *threadPool() const override;
  std::vector<PartitionRun> partitions() const override;

private:
  PartitionedExecutor() = default;
  /// The part whose flat tensor (or operator) range holds Index.
  size_t partOfTensor(size_t T) const;
  size_t partOfOperator(size_t Op) const;

  struct Copy {
    size_t Outer;  // outer tensor
    size_t Local;  // the part's own input tensor
    uint64_t Bytes;
  };

  std::shared_ptr<const LoadedModel> Model;
  const PartitionedInfo *Info = nullptr;
  std::vector<std::unique_ptr<Executor>> Parts; // in schedule order
  std::vector<std::vector<Copy>> CopiesIn;      // per part
  /// Where each outer tensor's bytes are on the host.
  std::vector<uint8_t *> OuterData;
  std::vector<std::unique_ptr<uint8_t[]>> Owned;
  uint64_t OwnedBytes = 0;
  std::vector<PartitionRun> Runs;
};

} // namespace kiln::rt

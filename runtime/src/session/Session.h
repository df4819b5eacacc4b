// A session runs one model on the executor of the model's target
// (Executor.h). It checks what the C API hands it (input indices and sizes,
// that every input was set) and keeps the profile of the last run, so that
// no executor repeats those rules.
#pragma once

#include "target/Executor.h"

#include <memory>
#include <vector>

namespace kiln::rt {

class Session {
public:
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  static Status create(std::shared_ptr<const LoadedModel> Model,
                       const SessionOptions &Opts,
                       std::unique_ptr<Session> &Out);

  /// Sizes the session for inputs of these shapes (one per graph input;
  /// an empty one keeps that input's dims). A batch-polymorphic model is
  /// checked again at the new sizes and gets a new executor (memory plan
  /// and kernels; on the CPU it keeps the XNNPACK convolutions and fully
  /// connected operators, packed weights and all, and sets them up again);
  /// the same sizes cost nothing. On failure, including a
  /// plan over max_arena_bytes, the session is unchanged. A static model
  /// takes only its own shapes. Inputs must be set again after a change.
  Status resizeInputs(const std::vector<std::vector<int64_t>> &Shapes);

  Status setInput(size_t Index, const void *Data, size_t Bytes);
  /// The session's own bytes of input Index, which the caller fills in
  /// place of setInput's copy; the input counts as set. Valid until a
  /// resize that changes shapes, or the session's end.
  Status inputBuffer(size_t Index, uint8_t **Data, size_t *Bytes);
  Status run();
  /// Runs operators [First, First + Count) on the tensors as they are, for
  /// tools that step through a model (`kiln diff --isolated`): the session
  /// must keep intermediates, every input must be set, and the target must
  /// run operators one at a time (the CPU's).
  Status runOperators(size_t First, size_t Count);
  /// Overwrites tensor T's bytes: a graph input (as setInput), or, in a
  /// session that keeps intermediates, any activation, so that the
  /// operators after its producer read these values instead.
  Status setTensor(size_t T, const void *Data, size_t Bytes);
  Status output(size_t Index, const void **Data, size_t *Bytes) const;

  const LoadedModel &model() const { return *Model; }
  size_t numOperators() const { return Model->numOperators(); }
  const char *engine(size_t Op) const { return Exec->engine(Op); }
  uint64_t arenaBytes() const { return Exec->arenaBytes(); }
  uint64_t scratchBytes() const { return Exec->scratchBytes(); }
  /// Per-operator time of the last run, in nanoseconds (empty unless
  /// profiling was switched on with setProfiling).
  const std::vector<uint64_t> &operatorTimes() const { return OpTimes; }
  void setProfiling(bool On) { Profiling = On; }
  bool keepsIntermediates() const { return KeepIntermediates; }
  /// The bytes of tensor T on the host (Executor::hostTensor).
  const uint8_t *tensorData(size_t T) const { return Exec->hostTensor(T); }
  /// The target's executor (for tests and tools that know its type).
  const Executor &executor() const { return *Exec; }
  /// The executor's worker threads (null: none).
  pthreadpool *threadPool() const { return Exec->threadPool(); }

private:
  Session() = default;

  /// The symbol sizes Shapes give (Generic's symbols), or an error naming
  /// the input and dim that do not fit.
  Status symbolSizes(const std::vector<std::vector<int64_t>> &Shapes,
                     std::vector<int64_t> &Sizes) const;

  /// The model as loaded, and as this session runs it (the same for a
  /// static model, or for a polymorphic one at the loaded sizes).
  std::shared_ptr<const LoadedModel> Generic;
  std::shared_ptr<const LoadedModel> Model;
  SessionOptions Options;
  std::unique_ptr<Executor> Exec;
  std::vector<char> InputSet;
  std::vector<uint64_t> OpTimes;
  bool Profiling = false;
  bool KeepIntermediates = false;
};

} // namespace kiln::rt

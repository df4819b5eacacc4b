// The CPU target's executor: it owns the activation arena (planned by
// MemoryPlanner), the thread pool and one kernel per operator, each from the
// first engine of the chain that takes the operator: oneDNN (x86 builds,
// single-threaded sessions), XNNPACK, then the portable reference kernels.
#pragma once

#include "cpu/Kernel.h"
#include "loader/LoadedModel.h"
#include "target/Executor.h"
#include "cpu/OperatorFusion.h"

#include <cstdlib>
#include <functional>
#include <map>

namespace kiln::rt {

class CpuExecutor final : public Executor {
public:
  ~CpuExecutor() override;
  CpuExecutor(const CpuExecutor &) = delete;
  CpuExecutor &operator=(const CpuExecutor &) = delete;

  /// Previous (optional): the executor of the same session before a
  /// resize (Session::resizeInputs). Kernels whose creation did not depend
  /// on the batch (XNNPACK convolutions and fully connected operators, with
  /// their packed weights) are taken from it and set up again instead of
  /// created anew, once nothing else can fail: on failure Previous is
  /// untouched.
  static Status create(std::shared_ptr<const LoadedModel> Model,
                       const SessionOptions &Opts,
                       std::unique_ptr<CpuExecutor> &Out,
                       CpuExecutor *Previous = nullptr);

  /// A constant, or an activation's arena slot.
  uint8_t *hostTensor(size_t T) const override { return TensorData[T]; }
  Status run(std::vector<uint64_t> *OpTimes) override;
  Status runOperators(size_t Begin, size_t End) override;
  const char *engine(size_t Op) const override {
    return Kernels[Op] ? Kernels[Op]->engine() : "none";
  }
  uint64_t arenaBytes() const override { return ArenaBytes; }
  /// Bytes of the working memory its kernels share (Kernel::scratchBytes).
  uint64_t scratchBytes() const override { return ScratchBytes; }
  pthreadpool *threadPool() const override { return Pool; }
  /// The weights its kernels converted to a layout of their own, by tensor
  /// index (Kernel::packedWeights), in operator order.
  std::vector<std::pair<int32_t, PackedWeights>> packedWeights() const;
  /// Kernels it took from the executor before a resize (create's Previous).
  size_t keptKernels() const { return KeptKernels; }
  /// Bytes of weights whose file pages were dropped once their kernels had
  /// packed them, and of weights still read from the file (SegmentRelease).
  EngineInfo engineInfo() const override;

private:
  CpuExecutor() = default;
  Status planArena(const SessionOptions &Opts);
  /// Runs Kernels[I]; a failure names operator I.
  Status runKernel(size_t I);
  /// Where kernels read constant T: in place, or a padded copy when it ends
  /// too close to the end of the model's bytes.
  uint8_t *constantData(size_t T);
  Status createKernels(const SessionOptions &Opts, const CpuExecutor *Previous);
  /// Operators whose XNNPACK kernel packs its weights, set aside by
  /// createKernels to be created on the session's threads.
  using PackingOps = std::vector<std::pair<size_t, KernelArgs>>;
  /// Creates Ops' kernels on Threads threads, calling Created(I, K) for each
  /// (from those threads, one call at a time); a null K when XNNPACK
  /// declined the operator.
  void createPackingKernels(
      PackingOps &Ops, unsigned Threads,
      const std::function<void(size_t, const Kernel *)> &Created);
  /// Takes the kernels createKernels chose to keep from Previous and sets
  /// them up for this executor's tensors; one that cannot be set up is
  /// created anew.
  void keepKernels(CpuExecutor &Previous);
  /// Points A's narrow weights of a float operator at their f32 copies
  /// (made once per tensor).
  void widenWeights(KernelArgs &A);
  /// The first engine of the chain that takes A (oneDNN, XNNPACK, the
  /// reference kernels); null when none does.
  std::unique_ptr<Kernel> createKernel(KernelArgs &A, bool Native);
  /// Allocates the kernels' shared working memory and binds it to them.
  Status allocateScratch(const SessionOptions &Opts);
  /// Creates the kernel of operator I with A; true when it was a fused
  /// conv + add pair, both kernels pushed.
  bool createFusedKernels(size_t I, const KernelArgs &A);
  /// Operator I is the fully connected layer of an FC+GELU fusion whose
  /// fused kernel could not be made: its output, planned without bytes,
  /// gets bytes of its own (A's and TensorData's pointers move there).
  Status unfuseOutput(size_t I, KernelArgs &A);
  /// Points A's BLOCKED inputs at their logical-order copies (made once).
  void unblockWeights(KernelArgs &A);

  std::shared_ptr<const LoadedModel> Model;
  pthreadpool_t Pool = nullptr;
  /// 64-byte aligned memory from std::aligned_alloc; destroyed after the
  /// kernels, which point into it.
  struct FreeBytes {
    void operator()(uint8_t *P) const { std::free(P); }
  };
  using AlignedBytes = std::unique_ptr<uint8_t, FreeBytes>;
  static AlignedBytes alignedBytes(uint64_t Bytes);

  AlignedBytes Arena;
  uint64_t ArenaBytes = 0;
  /// Outputs of fully connected layers whose GELU fusion failed
  /// (unfuseOutput).
  std::vector<AlignedBytes> UnfusedOutputs;
  AlignedBytes Scratch;
  uint64_t ScratchBytes = 0;
  std::vector<uint8_t *> TensorData;
  /// The weights its kernels converted to a layout of their own; destroyed
  /// after Kernels, which point into it.
  WeightArena Weights;
  std::vector<std::unique_ptr<Kernel>> Kernels;
  /// Operators whose kernel is to be taken from the previous executor, with
  /// their arguments here (null in Kernels until then).
  std::vector<std::pair<size_t, KernelArgs>> ToKeep;
  size_t KeptKernels = 0;
  uint64_t ReleasedWeightBytes = 0, MappedWeightBytes = 0;
  std::vector<std::vector<uint8_t>> PaddedConstants;
  /// F16/int8 weights of float operators widened to f32 at load, by tensor
  /// index (WeightWidening.h), with their f32 descriptions.
  std::map<size_t, std::pair<std::unique_ptr<TensorDesc>, std::vector<float>>>
      Widened;
  /// BLOCKED weights in their logical order, for the kernels that do not
  /// read the blocked layout (BlockedLayout.h), by tensor index.
  std::map<size_t, std::pair<std::unique_ptr<TensorDesc>, std::vector<uint8_t>>>
      Unblocked;
  /// The operator pairs this session may fuse (OperatorFusion.h), found
  /// before memory planning: a fused add's output is then live from the
  /// conv.
  std::vector<SessionFusion> Fusions;
  bool UseOnednn = false;
};

} // namespace kiln::rt

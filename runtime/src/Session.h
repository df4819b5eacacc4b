// A session runs one model: it owns the activation arena (planned by
// MemoryPlanner), one kernel per operator, and the thread pool.
#pragma once

#include "Kernel.h"
#include "LoadedModel.h"
#include "OperatorFusion.h"

#include <chrono>
#include <cstdlib>
#include <map>

namespace kiln::rt {

struct SessionOptions {
  /// 0: every core; 1: the calling thread only.
  uint32_t Threads = 0;
  /// Every operator on the reference kernels.
  bool ForceReference = false;
  /// 0: no limit on the activation arena.
  uint64_t MaxArenaBytes = 0;
  /// Every activation keeps its own bytes for the whole run (no sharing by
  /// the memory planner), so tensorData() of any operator's output is valid
  /// after a run (debugging, `kiln diff --per-layer`).
  bool KeepIntermediates = false;
  /// XNNPACK even where this runtime has oneDNN and oneDNN takes the
  /// operator (comparing the two; what a phone build always does).
  bool DisableOnednn = false;
  /// The weights kernels convert go on transparent huge pages (WeightArena).
  bool HugePageWeights = false;
  /// The kernels choose the layouts they convert their weights to but
  /// convert none: packedWeights() describes them, with no data, for `kiln
  /// convert --prepack native`, which converts them as it writes the file.
  /// Such a session cannot run.
  bool LayoutOnly = false;
};

class Session {
public:
  ~Session();
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  static Status create(std::shared_ptr<const LoadedModel> Model,
                       const SessionOptions &Opts,
                       std::unique_ptr<Session> &Out);

  Status setInput(size_t Index, const void *Data, size_t Bytes);
  Status run();
  Status output(size_t Index, const void **Data, size_t *Bytes) const;

  const LoadedModel &model() const { return *Model; }
  size_t numOperators() const { return Kernels.size(); }
  const char *engine(size_t Op) const { return Kernels[Op]->engine(); }
  uint64_t arenaBytes() const { return ArenaBytes; }
  /// Bytes of the working memory its kernels share (Kernel::scratchBytes).
  uint64_t scratchBytes() const { return ScratchBytes; }
  /// Per-operator time of the last run, in nanoseconds (empty unless
  /// profiling was switched on with setProfiling).
  const std::vector<uint64_t> &operatorTimes() const { return OpTimes; }
  void setProfiling(bool On) { Profiling = On; }
  bool keepsIntermediates() const { return KeepIntermediates; }
  /// The bytes of tensor T (a constant, or an activation's arena slot).
  const uint8_t *tensorData(size_t T) const { return TensorData[T]; }
  /// The weights its kernels converted to a layout of their own, by tensor
  /// index (Kernel::packedWeights), in operator order.
  std::vector<std::pair<int32_t, PackedWeights>> packedWeights() const;

private:
  Session() = default;
  Status planArena(const SessionOptions &Opts);
  /// Where kernels read constant T: in place, or a padded copy when it ends
  /// too close to the end of the model's bytes.
  uint8_t *constantData(size_t T);
  Status createKernels(const SessionOptions &Opts);
  /// Allocates the kernels' shared working memory and binds it to them.
  Status allocateScratch(const SessionOptions &Opts);
  /// Creates the kernel of operator I with A; true when it was a fused
  /// conv + add pair, both kernels pushed.
  bool createFusedKernels(size_t I, const KernelArgs &A);
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
  AlignedBytes Scratch;
  uint64_t ScratchBytes = 0;
  std::vector<uint8_t *> TensorData;
  /// The weights its kernels converted to a layout of their own; destroyed
  /// after Kernels, which point into it.
  WeightArena Weights;
  std::vector<std::unique_ptr<Kernel>> Kernels;
  std::vector<char> InputSet;
  std::vector<std::vector<uint8_t>> PaddedConstants;
  /// F16/int8 weights of float operators widened to f32 at load, by tensor
  /// index (WeightWidening.h), with their f32 descriptions.
  std::map<size_t, std::pair<std::unique_ptr<TensorDesc>, std::vector<float>>>
      Widened;
  /// BLOCKED weights in their logical order, for the kernels that do not
  /// read the blocked layout (BlockedLayout.h), by tensor index.
  std::map<size_t, std::pair<std::unique_ptr<TensorDesc>, std::vector<uint8_t>>>
      Unblocked;
  /// The conv + add pairs this session may fuse (OperatorFusion.h), found
  /// before memory planning: the add's output is then live from the conv.
  std::vector<ConvAddFusion> Fusions;
  bool UseOnednn = false;
  bool Profiling = false;
  bool KeepIntermediates = false;
  std::vector<uint64_t> OpTimes;
};

} // namespace kiln::rt

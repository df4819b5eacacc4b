#include "cpu/CpuExecutor.h"
#include "cpu/SegmentRelease.h"
#include "cpu/eigen/EigenKernels.h"

#include "loader/BlockedLayout.h"
#include "cpu/MemoryPlanner.h"
#include "RoundUp.h"
#include "cpu/WeightWidening.h"

#include <xnnpack.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <exception>
#include <new>
#include <system_error>
#include <thread>

namespace kiln::rt {

CpuExecutor::~CpuExecutor() {
  Kernels.clear(); // XNNPACK operators before the memory they point into
  if (Pool)
    pthreadpool_destroy(Pool);
}

CpuExecutor::AlignedBytes CpuExecutor::alignedBytes(uint64_t Bytes) {
  if (Bytes > SIZE_MAX / 2)
    return nullptr;
  return AlignedBytes(
      static_cast<uint8_t *>(std::aligned_alloc(64, size_t(roundUp(Bytes, 64)))));
}

Status CpuExecutor::create(std::shared_ptr<const LoadedModel> Model,
                       const SessionOptions &Opts,
                       std::unique_ptr<CpuExecutor> &Out,
                       CpuExecutor *Previous) {
  std::unique_ptr<CpuExecutor> S(new CpuExecutor());
  S->Model = std::move(Model);
  if (Opts.Threads != 1) {
    S->Pool = pthreadpool_create(Opts.Threads);
    if (!S->Pool)
      return {KILN_ERROR_OUT_OF_MEMORY, "cannot create the thread pool"};
  }
  S->Weights.setHugePages(Opts.Cpu.HugePageWeights);
  S->Weights.setLayoutOnly(Opts.Cpu.LayoutOnly);
  // oneDNN runs single-threaded sessions only (OnednnKernels.cpp).
  S->UseOnednn = onednnBuilt() && !Opts.Cpu.ForceReference &&
                 !Opts.Cpu.DisableOnednn && Opts.Threads == 1;
  // Fusing needs oneDNN, and hides the first operator's output from a
  // caller reading intermediates.
  if (S->UseOnednn && !Opts.KeepIntermediates)
    S->Fusions = findSessionFusions(*S->Model);
  if (Status St = S->planArena(Opts))
    return St;
  if (Status St = S->createKernels(Opts, Previous))
    return St;
  if (Status St = S->allocateScratch(Opts))
    return St;
  if (Previous)
    S->keepKernels(*Previous);
  Out = std::move(S);
  return Status::ok();
}

Status CpuExecutor::planArena(const SessionOptions &Opts) {
  uint64_t MaxBytes = Opts.MaxArenaBytes;
  const LoadedModel &M = *Model;
  size_t NumTensors = M.Tensors.size();
  int64_t End = int64_t(M.numOperators());
  // Activation tensors get a slot; Slot[t] indexes Planned, -1 for constants.
  std::vector<int64_t> Slot(NumTensors, -1);
  std::vector<PlannedTensor> Planned;
  // A fused add's output takes its other operand's slot (OperatorFusion.h).
  std::vector<int32_t> InPlaceOf(NumTensors, -1);
  for (const SessionFusion &F : Fusions)
    if (F.K == SessionFusion::Kind::ConvAdd)
      InPlaceOf[size_t(M.op(F.Second).outputs()->Get(0))] = F.Other;
  // A fully connected layer fused with the GELU after it writes the GELU's
  // output (OnednnKernels.cpp): its own output is never written or read,
  // and takes no bytes.
  std::vector<char> Unwritten(NumTensors, 0);
  for (const SessionFusion &F : Fusions)
    if (F.K == SessionFusion::Kind::FullyConnectedGelu)
      Unwritten[size_t(M.op(F.First).outputs()->Get(0))] = 1;
  for (size_t T = 0; T < NumTensors; ++T)
    if (!M.Tensors[T].isConstant() && InPlaceOf[T] < 0) {
      Slot[T] = int64_t(Planned.size());
      Planned.push_back({Unwritten[T] ? 0 : M.Tensors[T].Bytes, End, 0});
    }
  for (size_t T = 0; T < NumTensors; ++T)
    if (InPlaceOf[T] >= 0)
      Slot[T] = Slot[size_t(InPlaceOf[T])];
  auto Touch = [&](int32_t T, int64_t At) {
    if (T < 0 || Slot[size_t(T)] < 0 || Unwritten[size_t(T)])
      return;
    PlannedTensor &P = Planned[size_t(Slot[size_t(T)])];
    P.First = std::min(P.First, At);
    P.Last = std::max(P.Last, At);
  };
  // Graph inputs and outputs live through the whole run, so a session can
  // be run again without setting its inputs again.
  for (int32_t T : M.Inputs) {
    Touch(T, 0);
    Touch(T, End);
  }
  for (size_t I = 0; I < M.numOperators(); ++I) {
    const fb::Operator &Op = M.op(I);
    if (Op.inputs())
      for (int32_t T : *Op.inputs())
        Touch(T, int64_t(I));
    if (Op.outputs())
      for (int32_t T : *Op.outputs())
        Touch(T, int64_t(I));
  }
  // A fused pair runs as one kernel at its first operator: what the second
  // reads and writes is live there too (a fused GELU's output must not
  // share bytes with the fully connected layer's input).
  for (const SessionFusion &F : Fusions)
    for (const auto *List : {M.op(F.Second).inputs(), M.op(F.Second).outputs()})
      if (List)
        for (int32_t T : *List)
          Touch(T, int64_t(F.First));
  for (int32_t T : M.Outputs)
    Touch(T, End);
  // Kept intermediates live from the start to the end: no two share bytes.
  if (Opts.KeepIntermediates)
    for (size_t T = 0; T < NumTensors; ++T) {
      Touch(int32_t(T), 0);
      Touch(int32_t(T), End);
    }
  for (PlannedTensor &P : Planned)
    if (P.First > P.Last) // never used: give it a slot of its own lifetime
      P.First = P.Last = 0;

  // XNNPACK may read (not write) up to XNN_EXTRA_BYTES past a tensor.
  MemoryPlan Plan = planMemory(Planned, 64, XNN_EXTRA_BYTES);
  ArenaBytes = std::max<uint64_t>(Plan.ArenaBytes, 64);
  if (MaxBytes && ArenaBytes > MaxBytes)
    return {KILN_ERROR_OUT_OF_MEMORY,
            concat("the model needs ", ArenaBytes,
                   " bytes for activations, above the limit of ", MaxBytes)};
  if (!(Arena = alignedBytes(ArenaBytes)))
    return {KILN_ERROR_OUT_OF_MEMORY,
            concat("cannot allocate ", ArenaBytes, " bytes for activations")};
  TensorData.assign(NumTensors, nullptr);
  for (size_t T = 0; T < NumTensors; ++T)
    TensorData[T] = Slot[T] < 0 ? constantData(T)
                                : Arena.get() + Plan.Offsets[size_t(Slot[T])];
  return Status::ok();
}

uint8_t *CpuExecutor::constantData(size_t T) {
  const TensorDesc &D = Model->Tensors[T];
  const uint8_t *End = Model->Bytes->data() + Model->Bytes->size();
  // The writer leaves room after the last segment; a file that does not is
  // served from a padded copy, since XNNPACK reads up to XNN_EXTRA_BYTES
  // past its inputs.
  if (size_t(End - D.ConstData) >= D.Bytes + XNN_EXTRA_BYTES)
    return const_cast<uint8_t *>(D.ConstData);
  PaddedConstants.emplace_back(D.Bytes + XNN_EXTRA_BYTES, 0);
  std::memcpy(PaddedConstants.back().data(), D.ConstData, size_t(D.Bytes));
  return PaddedConstants.back().data();
}

namespace {
/// Whether A is an f32 operator whose XNNPACK kernel packs a weight of its
/// own (fully connected, convolutions), from a weight in logical order.
bool packsOnXnnpack(const KernelArgs &A) {
  using K = fb::OpKind;
  K Kind = A.Op.kind();
  if (Kind != K::FULLY_CONNECTED && Kind != K::CONV_2D && Kind != K::DECONV_2D)
    return false;
  if (A.In.size() < 2 || !A.In[0].present() || !A.In[1].present())
    return false;
  return A.In[0].Desc->DType == fb::DType::F32 &&
         A.In[1].Desc->DType == fb::DType::F32 && !A.In[1].Desc->Blocked;
}
} // namespace

Status CpuExecutor::createKernels(const SessionOptions &Opts,
                                  const CpuExecutor *Previous) {
  const LoadedModel &M = *Model;
  // A layout-only session (the converter's) reads no weight at all.
  SegmentRelease Release(M, TensorData);
  auto Created = [&](size_t Op, const Kernel *K) {
    if (K && !Opts.Cpu.LayoutOnly)
      Release.created(Op, *K);
  };
  // XNNPACK packs a layer's weights when its operator is created, one layer
  // at a time on the calling thread: a session of a large model spends its
  // creation there. Those operators are created after the loop, on the
  // session's threads (the rest is cheap, and touches state the kernels
  // share: widened, unblocked and oneDNN-converted weights).
  PackingOps Packing;
  unsigned Threads = Opts.Threads ? Opts.Threads
                                  : std::max(1u, std::thread::hardware_concurrency());
  bool Parallel = Threads > 1 && !UseOnednn && !Opts.Cpu.ForceReference &&
                  !Opts.Cpu.LayoutOnly;
  for (size_t I = 0; I < M.numOperators(); ++I) {
    const fb::Operator &Op = M.op(I);
    KernelArgs A{Op, {}, {}};
    if (Op.inputs())
      for (int32_t T : *Op.inputs())
        A.In.push_back(T < 0 ? KernelTensor{}
                             : KernelTensor{&M.Tensors[size_t(T)],
                                            TensorData[size_t(T)]});
    if (Op.outputs())
      for (int32_t T : *Op.outputs())
        A.Out.push_back({&M.Tensors[size_t(T)], TensorData[size_t(T)]});
    bool Native = !Opts.Cpu.ForceReference && Op.engine() != fb::Engine::REFERENCE;
    bool Fused = std::any_of(Fusions.begin(), Fusions.end(), [&](const auto &F) {
      return F.First == I || F.Second == I;
    });
    // Kept from the executor before a resize (keepKernels): no weight is
    // widened or unblocked for it, since its library packed them already.
    if (Native && !Fused && Previous && I < Previous->Kernels.size() &&
        Previous->Kernels[I] && Previous->Kernels[I]->canRebind(A)) {
      ToKeep.emplace_back(I, A);
      Kernels.push_back(nullptr);
      Created(I, Previous->Kernels[I].get()); // its packed weights stay
      continue;
    }
    // Decided before widening: a narrow weight is widened here, on this
    // thread, and its file pages are best released right after.
    if (Parallel && Native && !Fused && packsOnXnnpack(A)) {
      Packing.emplace_back(I, A);
      Kernels.push_back(nullptr);
      continue;
    }
    widenWeights(A);
    if (!Fusions.empty() && createFusedKernels(I, A)) {
      Created(I, Kernels[I].get());
      Created(I + 1, Kernels[I + 1].get());
      ++I; // the add's kernel is pushed too
      continue;
    }
    if (!Fusions.empty())
      if (Status St = unfuseOutput(I, A))
        return St;
    std::unique_ptr<Kernel> K = createKernel(A, Native);
    if (!K)
      return unsupported("operator ", I, ": no kernel");
    Kernels.push_back(std::move(K));
    Created(I, Kernels.back().get());
  }
  createPackingKernels(Packing, Threads, Created);
  for (auto &[I, A] : Packing) // XNNPACK declined: the rest of the chain
    if (!Kernels[I]) {
      Kernels[I] = createKernel(A, /*Native=*/true);
      if (!Kernels[I])
        return unsupported("operator ", I, ": no kernel");
      Created(I, Kernels[I].get());
    }
  ReleasedWeightBytes = Release.releasedBytes();
  MappedWeightBytes = Release.mappedBytes();
  return Status::ok();
}

void CpuExecutor::createPackingKernels(
    PackingOps &Ops, unsigned Threads,
    const std::function<void(size_t, const Kernel *)> &Created) {
  std::atomic<size_t> Next{0};
  std::mutex Lock; // Created, and the first failure
  std::exception_ptr Failure;
  auto Work = [&] {
    try {
      for (size_t J; (J = Next++) < Ops.size();) {
        auto &[I, A] = Ops[J];
        Kernels[I] = createXnnpackKernel(A, Pool);
        std::lock_guard<std::mutex> L(Lock);
        Created(I, Kernels[I].get());
      }
    } catch (...) { // out of memory: the session's creation fails as before
      std::lock_guard<std::mutex> L(Lock);
      if (!Failure)
        Failure = std::current_exception();
      Next = Ops.size();
    }
  };
  std::vector<std::thread> Helpers;
  size_t HelperCount = std::min<size_t>(Threads, Ops.size());
  for (size_t T = 1; T < HelperCount; ++T) {
    try {
      Helpers.emplace_back(Work);
    } catch (const std::system_error &) {
      break; // no more threads to be had: the ones started, and this one
    }
  }
  Work();
  for (std::thread &H : Helpers)
    H.join();
  if (Failure)
    std::rethrow_exception(Failure);
}

void CpuExecutor::widenWeights(KernelArgs &A) {
  for (size_t In = 1; In < A.In.size(); ++In)
    if (needsWidening(A, In)) {
      size_t T = size_t(A.Op.inputs()->Get(unsigned(In)));
      auto &W = Widened[T];
      if (!W.first) {
        W.second = widenToF32(*A.In[In].Desc, A.In[In].Data, XNN_EXTRA_BYTES);
        W.first = std::make_unique<TensorDesc>(*A.In[In].Desc);
        W.first->DType = fb::DType::F32;
        W.first->Bytes = W.first->Elements * sizeof(float);
        W.first->Scales.clear();
        W.first->ZeroPoints.clear();
        W.first->QuantAxis = -1;
      }
      A.In[In] = {W.first.get(), reinterpret_cast<uint8_t *>(W.second.data())};
    }
}

std::unique_ptr<Kernel> CpuExecutor::createKernel(KernelArgs &A, bool Native) {
  std::unique_ptr<Kernel> K;
  if (Native && UseOnednn)
    K = createOnednnKernel(A, Weights);
  if (!K)
    unblockWeights(A);
  if (Native && !K)
    K = createXnnpackKernel(A, Pool);
  if (Native && !K)
    K = createEigenKernel(A);
  if (!K)
    K = createReferenceKernel(A);
  return K;
}

void CpuExecutor::keepKernels(CpuExecutor &Previous) {
  // Previous is still alive here, so this executor's arena cannot reuse its
  // addresses: XNNPACK compares a new setup's pointers with the last ones.
  for (auto &[I, A] : ToKeep) {
    std::unique_ptr<Kernel> K = std::move(Previous.Kernels[I]);
    if (K && K->rebind(A, Pool)) {
      Kernels[I] = std::move(K);
      ++KeptKernels;
      continue;
    }
    // Set-up failed (not seen in practice): made anew, as create would
    // have. Previous has lost this kernel either way; it is being replaced.
    widenWeights(A);
    Kernels[I] = createKernel(A, /*Native=*/true);
    if (Kernels[I] && Scratch && Kernels[I]->scratchBytes() <= ScratchBytes)
      Kernels[I]->bindScratch(Scratch.get());
  }
  ToKeep.clear();
}

Status CpuExecutor::allocateScratch(const SessionOptions &Opts) {
  for (const auto &K : Kernels) // null: kept from before a resize (XNNPACK)
    if (K)
      ScratchBytes = std::max<uint64_t>(ScratchBytes, K->scratchBytes());
  if (!ScratchBytes)
    return Status::ok();
  if (Opts.MaxArenaBytes && ArenaBytes + ScratchBytes > Opts.MaxArenaBytes)
    return {KILN_ERROR_OUT_OF_MEMORY,
            concat("the model needs ", ArenaBytes, " bytes for activations and ",
                   ScratchBytes, " for its kernels' working copies, above the "
                   "limit of ", Opts.MaxArenaBytes)};
  if (!(Scratch = alignedBytes(ScratchBytes)))
    return {KILN_ERROR_OUT_OF_MEMORY,
            concat("cannot allocate ", ScratchBytes, " bytes of kernel scratch")};
  for (const auto &K : Kernels)
    if (K)
      K->bindScratch(Scratch.get()); // a kernel without scratch ignores it
  return Status::ok();
}

void CpuExecutor::unblockWeights(KernelArgs &A) {
  for (size_t In = 1; In < A.In.size(); ++In) {
    if (!A.In[In].present() || !A.In[In].Desc->Blocked)
      continue;
    size_t T = size_t(A.Op.inputs()->Get(unsigned(In)));
    auto &U = Unblocked[T];
    if (!U.first) {
      U.second = unpackBlocked(*A.In[In].Desc, A.In[In].Data, XNN_EXTRA_BYTES);
      U.first = std::make_unique<TensorDesc>(*A.In[In].Desc);
      U.first->Layout = A.Op.kind() == fb::OpKind::FULLY_CONNECTED
                            ? fb::Layout::OI
                            : fb::Layout::OHWI;
      U.first->Blocked.reset();
      U.first->StoredBytes = 0;
    }
    A.In[In] = {U.first.get(), U.second.data()};
  }
}

std::vector<std::pair<int32_t, PackedWeights>> CpuExecutor::packedWeights() const {
  std::vector<std::pair<int32_t, PackedWeights>> Out;
  for (size_t I = 0; I < Kernels.size(); ++I) {
    // Only weighted operators (a weight at input 1) pack weights.
    const auto *Inputs = Model->op(I).inputs();
    if (!Inputs || Inputs->size() < 2 || Inputs->Get(1) < 0)
      continue;
    int32_t W = Inputs->Get(1);
    // A kernel that read a widened or unblocked copy converted that copy,
    // not the bytes the file holds (f16, int8, or BLOCKED already).
    if (Widened.count(size_t(W)) || Unblocked.count(size_t(W)))
      continue;
    if (std::optional<PackedWeights> P =
            Kernels[I] ? Kernels[I]->packedWeights() : std::nullopt)
      Out.emplace_back(W, std::move(*P));
  }
  return Out;
}

bool CpuExecutor::createFusedKernels(size_t I, const KernelArgs &A) {
  auto F = std::find_if(Fusions.begin(), Fusions.end(),
                        [&](const SessionFusion &C) { return C.First == I; });
  if (F == Fusions.end())
    return false;
  const LoadedModel &M = *Model;
  const fb::Operator &Second = M.op(F->Second);
  size_t Out = size_t(Second.outputs()->Get(0));
  KernelTensor OutT{&M.Tensors[Out], TensorData[Out]};
  std::unique_ptr<Kernel> K;
  if (F->K == SessionFusion::Kind::ConvAdd) {
    size_t Other = size_t(F->Other);
    const auto &O = *Second.options_as_BinaryOptions();
    FusedAdd Fused{{&M.Tensors[Other], TensorData[Other]}, OutT,
                   O.output_min(), O.output_max()};
    K = createOnednnKernel(A, Weights, &Fused);
  } else {
    FusedGelu Fused{OutT, Second.options_as_UnaryOptions()->op() ==
                              fb::UnaryOp::GELU_TANH};
    K = createOnednnKernel(A, Weights, nullptr, &Fused);
  }
  if (!K)
    return false;
  const char *Engine = K->engine();
  Kernels.push_back(std::move(K));
  Kernels.push_back(std::make_unique<FusedAwayKernel>(Engine));
  return true;
}

Status CpuExecutor::unfuseOutput(size_t I, KernelArgs &A) {
  for (const SessionFusion &F : Fusions)
    if (F.First == I && F.K == SessionFusion::Kind::FullyConnectedGelu) {
      size_t Y = size_t(Model->op(I).outputs()->Get(0));
      uint64_t Bytes = Model->Tensors[Y].Bytes + XNN_EXTRA_BYTES;
      UnfusedOutputs.push_back(alignedBytes(Bytes));
      if (!UnfusedOutputs.back())
        return {KILN_ERROR_OUT_OF_MEMORY,
                concat("cannot allocate ", Bytes, " bytes for operator ", I,
                       "'s output")};
      TensorData[Y] = UnfusedOutputs.back().get();
      A.Out[0].Data = TensorData[Y];
    }
  return Status::ok();
}

EngineInfo CpuExecutor::engineInfo() const {
  EngineInfo E;
  E.WeightsMappedBytes = MappedWeightBytes;
  E.WeightsReleasedBytes = ReleasedWeightBytes;
  return E;
}

Status CpuExecutor::run(std::vector<uint64_t> *OpTimes) {
  if (Weights.layoutOnly())
    return invalidArgument("a layout-only session cannot run: its kernels "
                           "have no weights");
  bool Profiling = OpTimes != nullptr;
  for (size_t I = 0; I < Kernels.size(); ++I) {
    auto Start = Profiling ? std::chrono::steady_clock::now()
                           : std::chrono::steady_clock::time_point();
    if (Status S = runKernel(I))
      return S;
    if (Profiling)
      (*OpTimes)[I] = uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                std::chrono::steady_clock::now() - Start)
                                .count());
  }
  return Status::ok();
}

Status CpuExecutor::runOperators(size_t Begin, size_t End) {
  if (Weights.layoutOnly())
    return invalidArgument("a layout-only session cannot run: its kernels "
                           "have no weights");
  // A fused pair (session fusions, never made when intermediates are kept)
  // runs as one kernel: the range may not split it.
  for (const SessionFusion &F : Fusions)
    if ((Begin > F.First && Begin <= F.Second) ||
        (End > F.First && End <= F.Second))
      return invalidArgument("operators ", F.First, " and ", F.Second,
                             " run as one fused kernel: a range cannot split "
                             "them");
  for (size_t I = Begin; I < End; ++I)
    if (Status S = runKernel(I))
      return S;
  return Status::ok();
}

Status CpuExecutor::runKernel(size_t I) {
  if (!Kernels[I]) // lost to a resize that failed after taking it
    return runtimeError("operator ", I, " has no kernel: a resize failed "
                                        "part way; resize the session again");
  Status S = Kernels[I]->run(Pool);
  if (!S)
    return S;
  const fb::Operator &Op = Model->op(I);
  return S.withContext(concat("operator ", I, " (", fb::EnumNameOpKind(Op.kind()),
                              Op.name() ? " '" + Op.name()->str() + "'" : "",
                              ")"));
}

} // namespace kiln::rt

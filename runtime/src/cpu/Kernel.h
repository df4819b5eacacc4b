// The kernel interface of the session: one Kernel per operator, created when
// the session is created (with every tensor's address known, since the arena
// is planned first) and run once per kiln_session_run.
#pragma once

#include "Status.h"
#include "loader/TensorDesc.h"
#include "cpu/WeightArena.h"

#include <pthreadpool.h>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace kiln::rt {

/// A tensor as a kernel sees it. Inputs are never written; constants point
/// into the model's bytes.
struct KernelTensor {
  const TensorDesc *Desc = nullptr; // null for an absent optional input
  uint8_t *Data = nullptr;

  template <typename T> T *as() const { return reinterpret_cast<T *>(Data); }
  const std::vector<int64_t> &shape() const { return Desc->Shape; }
  int64_t dim(int64_t I) const { return Desc->Shape[size_t(I)]; }
  int64_t rank() const { return Desc->rank(); }
  uint64_t elements() const { return Desc->Elements; }
  bool present() const { return Desc != nullptr; }
};

struct KernelArgs {
  const fb::Operator &Op;
  std::vector<KernelTensor> In;
  std::vector<KernelTensor> Out;
};

/// Weights as a kernel reads them after converting them to a layout of its
/// own library (oneDNN's blocked layouts): what `kiln convert --prepack
/// native` stores in the file (BlockedLayout.h).
struct PackedWeights {
  BlockedDesc Layout;
  /// The converted bytes; null when the session was created layout-only
  /// (SessionOptions::LayoutOnly).
  const uint8_t *Data = nullptr;
  uint64_t Bytes = 0;
  /// Converts the weight from the layout the file stores it in (Stored, its
  /// tensor's bytes) into Layout at Out, writing all Bytes of it, padding
  /// included; false when the library fails. Callable from any thread, one
  /// call at a time.
  std::function<bool(const uint8_t *Stored, uint8_t *Out)> Pack;
};

class Kernel {
public:
  virtual ~Kernel() = default;
  virtual Status run(pthreadpool_t Pool) = 0;
  /// The kernel library that runs it: "reference", "xnnpack", "onednn" or
  /// "kiln" (PanelConv.h).
  virtual const char *engine() const { return "reference"; }
  /// Its weight (input 1) in the layout it converted it to when it was
  /// created, if it converted a dense f32 weight; described on demand, for
  /// the converter, never when a session is created.
  virtual std::optional<PackedWeights> packedWeights() const {
    return std::nullopt;
  }
  /// The inputs whose constant bytes it copied into memory of its own when
  /// it was created (XNNPACK's packed weights and bias) and never reads
  /// again, so that the session may drop the file's pages of them
  /// (SegmentRelease.h).
  virtual std::vector<size_t> copiedInputs() const { return {}; }
  /// Bytes of working memory it uses only while it runs (0: none). A
  /// session's kernels run one at a time, so they share one buffer, sized
  /// for the largest need and given to each through bindScratch.
  virtual size_t scratchBytes() const { return 0; }
  /// Its working memory: 64-byte aligned, scratchBytes() long, shared with
  /// the session's other kernels. Called once, before the first run, when
  /// some kernel of the session needs scratch.
  virtual void bindScratch(uint8_t *) {}
  /// Whether the kernel can serve A, the same operator in a session resized
  /// to another batch (Session::resizeInputs), by rebind alone: what it
  /// made at creation (packed weights) depends on nothing that differs.
  virtual bool canRebind(const KernelArgs &A) const {
    (void)A;
    return false;
  }
  /// Points the kernel at A's tensors and sizes (canRebind(A) held). On
  /// false the kernel is unusable and is dropped.
  virtual bool rebind(const KernelArgs &A, pthreadpool_t Pool) {
    (void)A;
    (void)Pool;
    return false;
  }
};

/// A reference kernel: a closure over the operator's parameters.
class FunctionKernel : public Kernel {
public:
  explicit FunctionKernel(std::function<Status()> Fn) : Fn(std::move(Fn)) {}
  Status run(pthreadpool_t) override { return Fn(); }

private:
  std::function<Status()> Fn;
};

/// A reference kernel that splits its work over the session's threads.
class PooledFunctionKernel : public Kernel {
public:
  explicit PooledFunctionKernel(std::function<Status(pthreadpool_t)> Fn)
      : Fn(std::move(Fn)) {}
  Status run(pthreadpool_t Pool) override { return Fn(Pool); }

private:
  std::function<Status(pthreadpool_t)> Fn;
};

/// The portable kernel for any validated operator.
std::unique_ptr<Kernel> createReferenceKernel(const KernelArgs &A);

/// The XNNPACK kernel, or null when XNNPACK does not take this operator
/// (kind, type, parameters) or is unavailable; the caller falls back to the
/// reference kernel.
std::unique_ptr<Kernel> createXnnpackKernel(const KernelArgs &A,
                                            pthreadpool_t Pool);

/// The XNNPACK kernel of an int8 operator (XnnpackInt8Kernels.cpp): one
/// whose first input is a quantized I8 tensor, or QUANTIZE/DEQUANTIZE.
std::unique_ptr<Kernel> createXnnpackInt8Kernel(const KernelArgs &A,
                                                pthreadpool_t Pool);

/// An f32 ADD folded into the convolution before it (OperatorFusion.h): the
/// kernel writes Out = clamp(conv + Other, Min, Max), in place: Out's bytes
/// are Other's.
struct FusedAdd {
  KernelTensor Other, Out;
  float Min, Max;
};

/// A GELU folded into the fully connected layer before it (OperatorFusion.h):
/// the kernel writes Out = gelu(x W^T + b), exact or in its tanh form.
struct FusedGelu {
  KernelTensor Out;
  bool Tanh = false;
};

/// The oneDNN kernel of a convolution or an f32 fully connected layer (x86
/// builds with oneDNN, OnednnKernels.cpp), or null when this runtime has no
/// oneDNN or oneDNN has no JIT kernel for the operator (with Add or Gelu
/// folded in, when given) on this CPU, or cannot read its BLOCKED weight
/// directly (the session then unpacks it for the other kernels). It runs on the calling
/// thread: only single-threaded sessions use it. Weights it converts to a
/// layout of its own live in Weights, which must outlive it.
std::unique_ptr<Kernel> createOnednnKernel(const KernelArgs &A,
                                           WeightArena &Weights,
                                           const FusedAdd *Add = nullptr,
                                           const FusedGelu *Gelu = nullptr);
/// Whether this runtime was built with oneDNN.
bool onednnBuilt();

/// The kernel of an operator another one computes (a fused ADD): nothing
/// to do; reports the engine of the kernel that does it.
class FusedAwayKernel : public Kernel {
public:
  explicit FusedAwayKernel(const char *Engine) : Engine(Engine) {}
  Status run(pthreadpool_t) override { return Status::ok(); }
  const char *engine() const override { return Engine; }

private:
  const char *Engine;
};

/// Initializes XNNPACK once per process; false if this CPU lacks it.
bool xnnpackAvailable();

} // namespace kiln::rt

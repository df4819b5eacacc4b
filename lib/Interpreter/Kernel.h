// The kernel interface of the reference interpreter. One kernel per IR op,
// registered by name; kernels read their operands as Tensors (absent optional
// operands are null) and produce one Tensor per node result.
#pragma once

#include "IR/Graph.h"
#include "IR/Tensor.h"

#include "llvm/Support/Error.h"

#include <cstring>
#include <functional>
#include <vector>

namespace kiln {

/// Runs Fn(Begin, End) over [0, Count) split into chunks on the interpreter's
/// threads; serial when Count is small. Fn must be thread-safe across chunks.
class ThreadPoolRunner {
public:
  explicit ThreadPoolRunner(unsigned Threads);
  ~ThreadPoolRunner();
  unsigned threads() const { return NumThreads; }
  void parallelFor(int64_t Count, int64_t MinChunk,
                   const std::function<void(int64_t, int64_t)> &Fn);

private:
  struct Impl;
  std::unique_ptr<Impl> P;
  unsigned NumThreads;
};

struct KernelContext {
  const Node &N;
  std::vector<const Tensor *> Inputs; // one per operand; null when absent
  std::vector<Tensor> Outputs;        // filled by the kernel, one per result
  ThreadPoolRunner &Pool;

  const Tensor *input(unsigned I) const {
    return I < Inputs.size() ? Inputs[I] : nullptr;
  }
};

/// A kernel returns a plain message on failure (shape mismatch at run time,
/// unsupported dtype); the interpreter adds the node and op.
using KernelFn = llvm::Error (*)(KernelContext &);

/// Registers Fn for op Name (called from the kernel files' register
/// functions below).
void registerKernel(llvm::StringRef OpName, KernelFn Fn);
KernelFn findKernel(llvm::StringRef OpName);

// One registration function per kernel file group (lib/Interpreter/kernels).
void registerElementwiseKernels();
void registerShapeKernels();
void registerReductionKernels();
void registerQuantKernels();
void registerNNKernels(); // conv, pooling, matmul/gemm/linear, norms, resize...

//===-- Helpers for writing kernels ----------------------------------------===//

/// A new tensor of the given element type and static sizes, zero-filled.
Tensor makeTensor(ElementType Elem, llvm::ArrayRef<int64_t> Sizes);
/// Mutable view of a tensor made by makeTensor (the only owner).
template <typename T> T *mutableData(Tensor &Out) {
  return reinterpret_cast<T *>(const_cast<uint8_t *>(Out.buffer().data()));
}
/// Read-only typed view; Tensor buffers from kernels are always aligned, and
/// the interpreter copies unaligned constants before kernels see them.
template <typename T> const T *dataAs(const Tensor &In) {
  return reinterpret_cast<const T *>(In.buffer().data());
}
/// Static sizes of a runtime tensor.
std::vector<int64_t> sizesOf(const Tensor &T);

} // namespace kiln

// A Kernel that owns one created-and-set-up XNNPACK operator, shared by the
// f32 (XnnpackKernels.cpp) and int8 (XnnpackInt8Kernels.cpp) kernels.
#pragma once

#include "cpu/Kernel.h"

#include <xnnpack.h>

#include <memory>
#include <vector>

namespace kiln::rt {

/// Sets an operator up for the tensors of A: the part of a kernel that
/// depends on the batch and the tensors' addresses, not on its weights.
using XnnpackSetupFn = xnn_status (*)(xnn_operator_t Op, const KernelArgs &A,
                                      pthreadpool_t Pool);

/// What an operator's creation read of its tensors' shapes, for canRebind:
/// every dim of its first input and output but the batch (dim 0).
std::vector<int64_t> xnnpackCreationShape(const KernelArgs &A);

class XnnpackOperatorKernel : public Kernel {
public:
  explicit XnnpackOperatorKernel(xnn_operator_t Op) : Op(Op) {}
  /// A kernel that a resized session can keep: Setup sets it up again, and
  /// Shape is xnnpackCreationShape of the arguments it was created for.
  XnnpackOperatorKernel(xnn_operator_t Op, XnnpackSetupFn Setup,
                        std::vector<int64_t> Shape)
      : Op(Op), Setup(Setup), Shape(std::move(Shape)) {}
  ~XnnpackOperatorKernel() override { xnn_delete_operator(Op); }
  XnnpackOperatorKernel(const XnnpackOperatorKernel &) = delete;
  XnnpackOperatorKernel &operator=(const XnnpackOperatorKernel &) = delete;
  Status run(pthreadpool_t Pool) override {
    if (xnn_run_operator(Op, Pool) != xnn_status_success)
      return runtimeError("XNNPACK failed to run the operator");
    return Status::ok();
  }
  const char *engine() const override { return "xnnpack"; }
  /// The operators that a resized session keeps are those that packed
  /// their weights and bias (convolutions, deconvolutions, fully
  /// connected): XNNPACK reads inputs 1 and 2 only when it creates them.
  std::vector<size_t> copiedInputs() const override {
    return Setup ? std::vector<size_t>{1, 2} : std::vector<size_t>{};
  }
  bool canRebind(const KernelArgs &A) const override {
    return Setup && xnnpackCreationShape(A) == Shape;
  }
  bool rebind(const KernelArgs &A, pthreadpool_t Pool) override {
    return Setup && Setup(Op, A, Pool) == xnn_status_success;
  }

private:
  xnn_operator_t Op;
  XnnpackSetupFn Setup = nullptr;
  std::vector<int64_t> Shape;
};

/// Creates an operator with C(&Op) and sets it up with S(Op); the kernel,
/// or null (the operator deleted) when either step fails.
template <typename Create, typename Setup>
std::unique_ptr<Kernel> makeXnnpackKernel(Create &&C, Setup &&S) {
  xnn_operator_t Op = nullptr;
  if (C(&Op) != xnn_status_success)
    return nullptr;
  if (S(Op) != xnn_status_success) {
    xnn_delete_operator(Op);
    return nullptr;
  }
  return std::make_unique<XnnpackOperatorKernel>(Op);
}

/// The same for an operator whose creation depends on its weights and on
/// no batch size (convolutions, fully connected): created with C(&Op), set
/// up with S(Op, A, Pool), and kept by a resized session.
template <typename Create>
std::unique_ptr<Kernel> makeRebindableXnnpackKernel(Create &&C, XnnpackSetupFn S,
                                                    const KernelArgs &A,
                                                    pthreadpool_t Pool) {
  xnn_operator_t Op = nullptr;
  if (C(&Op) != xnn_status_success)
    return nullptr;
  if (S(Op, A, Pool) != xnn_status_success) {
    xnn_delete_operator(Op);
    return nullptr;
  }
  return std::make_unique<XnnpackOperatorKernel>(Op, S, xnnpackCreationShape(A));
}

} // namespace kiln::rt

// A Kernel that owns one created-and-set-up XNNPACK operator, shared by the
// f32 (XnnpackKernels.cpp) and int8 (XnnpackInt8Kernels.cpp) kernels.
#pragma once

#include "cpu/Kernel.h"

#include <xnnpack.h>

#include <memory>

namespace kiln::rt {

class XnnpackOperatorKernel : public Kernel {
public:
  explicit XnnpackOperatorKernel(xnn_operator_t Op) : Op(Op) {}
  ~XnnpackOperatorKernel() override { xnn_delete_operator(Op); }
  XnnpackOperatorKernel(const XnnpackOperatorKernel &) = delete;
  XnnpackOperatorKernel &operator=(const XnnpackOperatorKernel &) = delete;
  Status run(pthreadpool_t Pool) override {
    if (xnn_run_operator(Op, Pool) != xnn_status_success)
      return runtimeError("XNNPACK failed to run the operator");
    return Status::ok();
  }
  const char *engine() const override { return "xnnpack"; }

private:
  xnn_operator_t Op;
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

} // namespace kiln::rt

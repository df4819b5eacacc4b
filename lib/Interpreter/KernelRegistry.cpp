// The kernel table: op name -> kernel. The kernel files register themselves
// through the register*Kernels() functions, which run exactly once, on the
// first lookup (thread-safe), so there are no static-initialization-order
// games and a program that never interprets pays nothing.
#include "Interpreter/Interpreter.h"
#include "Interpreter/KernelSupport.h"

#include "llvm/ADT/StringMap.h"

#include <mutex>

namespace kiln {

namespace {
struct KernelTable {
  std::mutex M;
  llvm::StringMap<KernelFn> Map;
};
} // namespace

static KernelTable &table() {
  static KernelTable T;
  return T;
}

// `const` nodes evaluate to their value; the interpreter handles them itself
// (no kernel call, no observer), but the table lists them so that "every op
// has a kernel" holds and a caller may run one through findKernel.
static llvm::Error constKernel(KernelContext &Ctx) {
  const Tensor &V = Ctx.N.getTensor("value");
  size_t Align = elementSize(V.type().Elem);
  if (V.buffer().isAligned(Align))
    Ctx.Outputs.push_back(V);
  else
    Ctx.Outputs.push_back(Tensor(V.type(), Buffer::copy(V.buffer().bytes())));
  return llvm::Error::success();
}

static void ensureRegistered() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    registerKernel("const", constKernel);
    registerElementwiseKernels();
    registerShapeKernels();
    registerReductionKernels();
    registerQuantKernels();
    registerNNKernels();
  });
}

void registerKernel(llvm::StringRef OpName, KernelFn Fn) {
  KernelTable &T = table();
  std::lock_guard<std::mutex> L(T.M);
  T.Map[OpName] = Fn;
}

KernelFn findKernel(llvm::StringRef OpName) {
  ensureRegistered();
  KernelTable &T = table();
  std::lock_guard<std::mutex> L(T.M);
  auto It = T.Map.find(OpName);
  return It == T.Map.end() ? nullptr : It->second;
}

bool hasKernel(llvm::StringRef OpName) { return findKernel(OpName) != nullptr; }

} // namespace kiln

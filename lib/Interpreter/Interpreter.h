// The reference interpreter: runs any IR graph on the CPU in portable C++.
// It is the oracle for passes, quantization and backends, and the engine
// calibration runs on, so conv and matmul go through Eigen GEMM on threads.
#pragma once

#include "IR/Graph.h"
#include "IR/Tensor.h"

#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <vector>

namespace kiln {

class ThreadPoolRunner;

struct InterpreterOptions {
  /// Worker threads for kernels (0: hardware concurrency).
  unsigned Threads = 0;
  /// Called with every node's results as soon as they are computed
  /// (calibration observers, per-layer diff). May be empty. Not called for
  /// `const` nodes: their values are known without running anything.
  std::function<void(const Node &, llvm::ArrayRef<Tensor>)> Observer;
};

class Interpreter {
public:
  explicit Interpreter(const Graph &G, InterpreterOptions Opts = {});
  ~Interpreter();

  /// Runs the graph. Inputs are in graph-input order; each must match the
  /// input's element type and rank, and its static dims. Returns the graph
  /// outputs in order. Errors name the node and op that failed.
  llvm::Expected<std::vector<Tensor>> run(llvm::ArrayRef<Tensor> Inputs);

private:
  const Graph &G;
  InterpreterOptions Opts;
  std::unique_ptr<ThreadPoolRunner> Pool;
};

/// True if the interpreter has a kernel for op Name.
bool hasKernel(llvm::StringRef OpName);

} // namespace kiln

// Evaluating a single node on known operand values: what constant folding
// (import-time shape arithmetic, the fold-constants pass) runs on, with the
// same kernels as the interpreter so folded values match executed ones.
#pragma once

#include "IR/Graph.h"
#include "IR/Tensor.h"

#include "llvm/Support/Error.h"

#include <vector>

namespace kiln {

/// Runs N's kernel, on one thread, over Operands (one per operand of N; null
/// for an absent one). Returns one tensor per result, checked against the
/// node's declared types. Errors name the node and op.
llvm::Expected<std::vector<Tensor>>
evaluateNode(const Node &N, llvm::ArrayRef<const Tensor *> Operands);

/// Evaluates N if every operand is a constant (or absent) and returns its
/// results; None if some operand is not constant. Shape queries (shape, size)
/// of a value with a static shape fold even though that value is not constant.
llvm::Expected<llvm::Optional<std::vector<Tensor>>>
tryEvaluateConstantNode(const Node &N);

} // namespace kiln

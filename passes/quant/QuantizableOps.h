// Which ops have an int8 form in the QDQ scheme, and which of their operands
// are activations, weights and biases. Shared by the int8 planner, the
// insert-qdq pass and the dynamic int8 pass, so that they agree.
//   weighted   conv, conv_transpose, linear, and gemm/matmul with a constant
//              weight: activations in and out per tensor, weight per output
//              channel, bias int32
//   activation add, sub, mul, avg/global-avg pooling, concat, standalone
//              activations, resize, gemm/matmul of two activations: every
//              activation operand and the result get their own parameters
//   same-scale max pooling and pure data movement (reshape, transpose...):
//              the result takes its input's parameters (exact for them)
#pragma once

#include "IR/Graph.h"

#include <vector>

namespace kiln {

enum class Int8Role { None, Weighted, Activation, SameScale };

struct Int8OpInfo {
  Int8Role Role = Int8Role::None;
  /// Operand indices that are activations (quantized per tensor).
  std::vector<unsigned> Activations;
  /// Weighted ops: the weight operand, its output-channel axis (-1: one
  /// scale for the whole weight) and the bias operand (-1: none).
  int Weight = -1;
  int64_t WeightAxis = -1;
  int Bias = -1;

  bool isActivationOperand(unsigned I) const;
};

/// N's role and operands. Depends on N's attributes and on which operands
/// are constants (gemm and matmul are weighted only with a constant weight).
Int8OpInfo int8OpInfo(const Node &N);

/// True for a value produced by a `const` node.
bool isConstantValue(const Value *V);

} // namespace kiln

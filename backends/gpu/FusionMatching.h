// What the GPU lowering's fusions (AttentionLowering.cpp,
// RecurrentCellLowering.cpp) ask of the operators they absorb: each tensor
// inside a fused chain is an f32 PLAIN activation read by one operator and
// no graph output, and each absorbed BINARY has no clamp of its own; and
// how the fused kernels bind their operands.
#pragma once

#include "backends/gpu/VulkanLowering.h"

#include <cmath>

namespace kiln::vulkan {

/// Whether [Min, Max] is no clamp at all.
inline bool unclamped(float Min, float Max) {
  return std::isinf(Min) && Min < 0 && std::isinf(Max) && Max > 0;
}

/// The one operator reading T, when T is an f32 PLAIN activation that
/// nothing else reads and that is not a graph output; null otherwise.
inline const fb::OperatorT *soleReader(const Lowering &L, int32_t T) {
  const auto &R = L.readers(T);
  if (R.size() != 1 || L.isGraphOutput(T) || L.tensor(T).buffer >= 0 ||
      L.tensor(T).dtype != fb::DType::F32 || L.storage(T).C4)
    return nullptr;
  return R.front();
}

inline bool unaryIs(const fb::OperatorT *Op, fb::UnaryOp U) {
  return Op && Op->kind == fb::OpKind::UNARY &&
         Op->options.AsUnaryOptions()->op == U;
}

/// Op is an unclamped BINARY B.
inline bool binaryIs(const fb::OperatorT *Op, fb::BinaryOp B) {
  if (!Op || Op->kind != fb::OpKind::BINARY)
    return false;
  const auto &O = *Op->options.AsBinaryOptions();
  return O.op == B && unclamped(O.output_min, O.output_max);
}

/// Operand T as a fused kernel reads it: a constant's values, or a PLAIN
/// copy of an activation.
inline BindingRef bindOperand(Lowering &L, int32_t T) {
  return L.tensor(T).buffer >= 0 ? L.bindFloats(L.floats(T), T) : L.plainOf(T);
}

} // namespace kiln::vulkan

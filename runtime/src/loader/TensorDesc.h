// A tensor of a verified model: everything the kernels need, checked once by
// the loader (ModelVerifier.h) so that kernels never re-check.
#pragma once

#include "schema/KilnDTypeSize.h"
#include "schema/kiln_generated.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln::rt {

/// A checked Tensor.blocked (schema 1.3, BlockedLayout.h): library dim k is
/// the tensor's axis Order[k].
struct BlockedDesc {
  std::string Library, Isa;
  std::vector<int32_t> Order;
  std::vector<int64_t> Padded, Strides, InnerBlocks;
  std::vector<int32_t> InnerDims;
};

struct TensorDesc {
  std::string Name;
  fb::DType DType = fb::DType::UNKNOWN;
  fb::Layout Layout = fb::Layout::PLAIN;
  std::vector<int64_t> Shape;
  uint64_t Elements = 0;
  uint64_t Bytes = 0;
  /// Index into Model.buffers for a constant, -1 for an activation.
  int32_t Buffer = -1;
  /// The constant's bytes inside the model (null for activations).
  const uint8_t *ConstData = nullptr;
  /// Quantization: real = (q - zero point) * scale, per tensor (QuantAxis
  /// -1, one pair) or per slice along QuantAxis. Empty for float tensors.
  std::vector<float> Scales;
  std::vector<int64_t> ZeroPoints;
  int32_t QuantAxis = -1;
  /// For a BLOCKED constant: its layout, and the bytes it holds (padding
  /// included; Bytes stays the logical size).
  std::optional<BlockedDesc> Blocked;
  uint64_t StoredBytes = 0;

  bool isConstant() const { return Buffer >= 0; }
  bool isQuantized() const { return !Scales.empty(); }
  bool isPerTensorQuantized() const {
    return Scales.size() == 1 && QuantAxis < 0;
  }
  int64_t rank() const { return int64_t(Shape.size()); }
  int64_t dim(int64_t I) const { return Shape[size_t(I)]; }
};

/// Bytes per element, 0 for UNKNOWN or a value this runtime does not know.
using fb::dtypeSize;
/// "f32", "i64", ... ("dtype(N)" for unknown values).
std::string dtypeName(fb::DType T);
/// "[1,3,224,224]".
std::string shapeString(const std::vector<int64_t> &Shape);

} // namespace kiln::rt

// How the generic kernels (gather, elementwise; kernels/tensor_access.glsl)
// address an operand: for each axis of a rank-6 loop domain, the operand's
// element stride, plus the C4 channel axis, which walks blocks of four.
// The lowering builds one per operand from the tensor's storage and how the
// domain's axes map onto the tensor's.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace kiln::vulkan {

/// How a tensor is stored on the device.
struct Storage {
  /// Logical dims, as the graph lists them (NHWC order for a C4 tensor).
  std::vector<int64_t> Dims;
  /// [N][ceil(C/4)][H][W][4] for dims [N, H, W, C]; otherwise row-major.
  bool C4 = false;
  uint64_t elements() const; // stored, padding included
  uint64_t bytes(uint64_t ElementSize) const { return elements() * ElementSize; }
  /// Element stride of each logical axis; for C4's channel axis, of a block.
  std::vector<int64_t> strides() const;
};

constexpr int DomainRank = 6;
using DomainDims = std::array<int64_t, DomainRank>;

/// One operand: domain axis k reads tensor axis Axis[k] (-1: none, i.e.
/// broadcast) at index p * Step[k] + Start[k]; Start also applies to the
/// tensor axes no domain axis reads (a fixed index).
struct OperandMap {
  std::array<int, DomainRank> Axis{-1, -1, -1, -1, -1, -1};
  std::array<int64_t, DomainRank> Step{1, 1, 1, 1, 1, 1};
  /// Per tensor axis.
  std::vector<int64_t> Start;
};

/// Domain axis k maps to tensor axis k - (6 - rank): the trailing alignment
/// of numpy broadcasting; size-1 tensor axes against bigger domain axes are
/// broadcast.
OperandMap alignedMap(const Storage &S, const DomainDims &Domain);

/// S over its own dims: every axis read as is, none broadcast.
OperandMap identityMap(const Storage &S);

/// Writes the operand's ten spec constants from id Base.
void operandConstants(const Storage &S, const OperandMap &M, uint32_t Base,
                      std::map<uint32_t, uint32_t> &Spec);

/// Dims right-aligned in a rank-6 domain (leading ones).
DomainDims domainOf(const std::vector<int64_t> &Dims);

} // namespace kiln::vulkan

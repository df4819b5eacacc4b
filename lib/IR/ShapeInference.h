// Building blocks for op type inference, shared by the op definitions and by
// the interpreter (which needs the same broadcasting and pooling arithmetic).
#pragma once

#include "IR/Graph.h"
#include "IR/Type.h"

#include "llvm/ADT/Optional.h"
#include "llvm/Support/Error.h"

#include <vector>

namespace kiln {

/// Numpy-style broadcast of two shapes. Static dims must match or be 1.
llvm::Expected<Shape> broadcastShapes(const Shape &A, const Shape &B);
/// Broadcast of static sizes (runtime use); None if incompatible.
llvm::Optional<std::vector<int64_t>>
broadcastSizes(llvm::ArrayRef<int64_t> A, llvm::ArrayRef<int64_t> B);

/// Normalizes a possibly negative axis into [0, Rank); error if out of range.
llvm::Expected<int64_t> normalizeAxis(int64_t Axis, int64_t Rank);

/// The integer contents of a constant operand, or None if V is not a constant
/// (or absent). Works for any integer element type.
llvm::Optional<std::vector<int64_t>> constantInts(const Value *V);
/// The dims a 1-D integer value holds, symbols included: a constant (each
/// entry a static Dim; -1 reads as unknown), or shape(x) and what
/// gather (scalar index), unsqueeze and concat (axis 0) make of it. None for
/// anything else.
llvm::Optional<Shape> shapeValueDims(const Value *V);
/// The float contents of a constant operand, or None.
llvm::Optional<std::vector<double>> constantFloats(const Value *V);

/// Output size of a sliding window along one axis (conv, pooling):
/// floor-or-ceil((In + PadBegin + PadEnd - Dilation*(K-1) - 1) / Stride) + 1.
/// With CeilMode, a last window that starts inside the padded input counts.
int64_t slidingOutputSize(int64_t In, int64_t Kernel, int64_t Stride,
                          int64_t PadBegin, int64_t PadEnd, int64_t Dilation,
                          bool CeilMode);

/// Reads an ints attribute that holds one value per spatial axis, or is empty
/// (meaning Default on every axis). Error if it has the wrong length or a
/// value below Default or above limits::MaxSpatialParam.
llvm::Expected<std::vector<int64_t>>
spatialAttr(const Node &N, llvm::StringRef Name, size_t NumSpatial,
            int64_t Default);
/// pads: empty (all zero) or 2*NumSpatial values (all begins, then all ends).
llvm::Expected<std::vector<int64_t>> padsAttr(const Node &N,
                                              size_t NumSpatial);

/// A type with the same element type as T and the given shape.
TensorType withShape(const TensorType &T, Shape S);
/// A shape of Rank unknown dims.
Shape unknownShape(int64_t Rank);

} // namespace kiln

#include "IR/ShapeInference.h"

#include "IR/Tensor.h"
#include "Support/Error.h"
#include "Support/Limits.h"

#include <algorithm>

namespace kiln {

llvm::Expected<Shape> broadcastShapes(const Shape &A, const Shape &B) {
  size_t Rank = std::max(A.size(), B.size());
  Shape Out(Rank);
  for (size_t I = 0; I < Rank; ++I) {
    const Dim *DA = I + A.size() >= Rank ? &A[I + A.size() - Rank] : nullptr;
    const Dim *DB = I + B.size() >= Rank ? &B[I + B.size() - Rank] : nullptr;
    if (!DA) {
      Out[I] = *DB;
    } else if (!DB) {
      Out[I] = *DA;
    } else if (DA->isStatic() && DA->size() == 1) {
      Out[I] = *DB;
    } else if (DB->isStatic() && DB->size() == 1) {
      Out[I] = *DA;
    } else if (DA->isStatic() && DB->isStatic()) {
      if (DA->size() != DB->size())
        return inputError("shapes {0} and {1} do not broadcast", toString(A),
                          toString(B));
      Out[I] = *DA;
    } else if (*DA == *DB || DB->isUnknown()) {
      Out[I] = DA->isUnknown() ? *DB : *DA;
    } else if (DA->isUnknown()) {
      Out[I] = *DB;
    } else {
      // A symbol against a static size or another symbol: if they differ at
      // run time they must broadcast, so the known static size wins.
      Out[I] = DA->isStatic() ? *DA : DB->isStatic() ? *DB : Dim();
    }
  }
  return Out;
}

llvm::Optional<std::vector<int64_t>>
broadcastSizes(llvm::ArrayRef<int64_t> A, llvm::ArrayRef<int64_t> B) {
  size_t Rank = std::max(A.size(), B.size());
  std::vector<int64_t> Out(Rank);
  for (size_t I = 0; I < Rank; ++I) {
    int64_t DA = I + A.size() >= Rank ? A[I + A.size() - Rank] : 1;
    int64_t DB = I + B.size() >= Rank ? B[I + B.size() - Rank] : 1;
    if (DA != DB && DA != 1 && DB != 1)
      return llvm::None;
    Out[I] = DA == 1 ? DB : DA;
  }
  return Out;
}

llvm::Expected<int64_t> normalizeAxis(int64_t Axis, int64_t Rank) {
  // Strict for rank 0 too: every caller indexes the dims with the result
  // (a Split of a scalar at axis 0 read past an empty vector; found by
  // kiln-onnx-fuzzer).
  if (Axis < -Rank || Axis >= Rank)
    return inputError("axis {0} is out of range for rank {1}", Axis, Rank);
  return Axis < 0 ? Axis + Rank : Axis;
}

llvm::Optional<std::vector<int64_t>> constantInts(const Value *V) {
  if (!V)
    return llvm::None;
  const Tensor *T = V->constant();
  if (!T || !isIntegerType(T->type().Elem))
    return llvm::None;
  std::vector<int64_t> Out(size_t(T->numElements()));
  for (size_t I = 0; I < Out.size(); ++I)
    Out[I] = T->asInt(int64_t(I));
  return Out;
}

llvm::Optional<std::vector<double>> constantFloats(const Value *V) {
  if (!V)
    return llvm::None;
  const Tensor *T = V->constant();
  if (!T)
    return llvm::None;
  std::vector<double> Out(size_t(T->numElements()));
  for (size_t I = 0; I < Out.size(); ++I)
    Out[I] = T->asDouble(int64_t(I));
  return Out;
}

int64_t slidingOutputSize(int64_t In, int64_t Kernel, int64_t Stride,
                          int64_t PadBegin, int64_t PadEnd, int64_t Dilation,
                          bool CeilMode) {
  // A dilated kernel past int64 cannot fit any input: no output.
  int64_t Dilated;
  if (__builtin_mul_overflow(Dilation, Kernel - 1, &Dilated))
    return 0;
  int64_t Span = In + PadBegin + PadEnd - Dilated - 1;
  if (Span < 0)
    return 0;
  int64_t Out = Span / Stride + 1;
  if (CeilMode && Span % Stride != 0) {
    // The extra window must start inside the input or the begin padding.
    if ((Out)*Stride < In + PadBegin)
      ++Out;
  }
  return Out;
}

llvm::Expected<std::vector<int64_t>>
spatialAttr(const Node &N, llvm::StringRef Name, size_t NumSpatial,
            int64_t Default) {
  std::vector<int64_t> V = N.getInts(Name);
  if (V.empty())
    return std::vector<int64_t>(NumSpatial, Default);
  if (V.size() != NumSpatial)
    return inputError("'{0}' has {1} values, expected {2} (one per spatial "
                      "axis)",
                      Name, V.size(), NumSpatial);
  // Default doubles as the smallest legal value: 1 for strides, dilations
  // and kernels (divisors and window sizes), 0 for output_padding.
  for (int64_t X : V)
    if (X < Default || X > limits::MaxSpatialParam)
      return inputError("'{0}' has the value {1}, expected {2} to {3}", Name,
                        X, Default, limits::MaxSpatialParam);
  return V;
}

llvm::Expected<std::vector<int64_t>> padsAttr(const Node &N,
                                              size_t NumSpatial) {
  std::vector<int64_t> V = N.getInts("pads");
  if (V.empty())
    return std::vector<int64_t>(2 * NumSpatial, 0);
  if (V.size() != 2 * NumSpatial)
    return inputError("'pads' has {0} values, expected {1} (begin and end per "
                      "spatial axis)",
                      V.size(), 2 * NumSpatial);
  for (int64_t P : V)
    if (P < 0 || P > limits::MaxSpatialParam)
      return inputError("'pads' has the value {0}, expected 0 to {1}", P,
                        limits::MaxSpatialParam);
  return V;
}

TensorType withShape(const TensorType &T, Shape S) {
  return TensorType(T.Elem, std::move(S));
}

Shape unknownShape(int64_t Rank) { return Shape(size_t(Rank)); }

llvm::Optional<Shape> shapeValueDims(const Value *V) {
  if (!V)
    return llvm::None;
  if (auto Ints = constantInts(V)) {
    if (V->type().rank() > 1)
      return llvm::None;
    Shape Out;
    for (int64_t I : *Ints)
      Out.push_back(I < 0 ? Dim() : Dim(I));
    return Out;
  }
  const Node *P = V->producer();
  if (!P || !isIntegerType(V->type().Elem))
    return llvm::None;
  if (P->isOp("shape")) {
    const Shape &Of = P->operand(0)->type().Dims;
    int64_t R = int64_t(Of.size());
    int64_t Start = P->getInt("start"),
            End = P->hasAttr("end") ? P->getInt("end") : R;
    Start = std::clamp<int64_t>(Start < 0 ? Start + R : Start, 0, R);
    End = std::clamp<int64_t>(End < 0 ? End + R : End, 0, R);
    return Shape(Of.begin() + Start, Of.begin() + std::max(Start, End));
  }
  if (P->isOp("gather") && P->getInt("axis") == 0) {
    auto Of = shapeValueDims(P->operand(0));
    auto Index = constantInts(P->operand(1));
    if (!Of || !Index || Index->size() != 1)
      return llvm::None;
    int64_t K = (*Index)[0] < 0 ? (*Index)[0] + int64_t(Of->size()) : (*Index)[0];
    if (K < 0 || K >= int64_t(Of->size()))
      return llvm::None;
    return Shape{(*Of)[size_t(K)]};
  }
  if (P->isOp("unsqueeze") && V->type().rank() == 1)
    return shapeValueDims(P->operand(0));
  if (P->isOp("concat") && P->getInt("axis") == 0) {
    Shape Out;
    for (const Value *Part : P->operands()) {
      auto Dims = shapeValueDims(Part);
      if (!Dims)
        return llvm::None;
      Out.insert(Out.end(), Dims->begin(), Dims->end());
    }
    return Out;
  }
  return llvm::None;
}

} // namespace kiln

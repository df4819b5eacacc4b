#include "IR/Type.h"

#include "IR/FloatFormat.h"
#include "Support/Limits.h"

#include "llvm/Support/MathExtras.h"

#include <cassert>

namespace kiln {

bool exceedsElementLimit(const Shape &S) {
  int64_t N = 1;
  for (const Dim &D : S) {
    if (!D.isStatic())
      continue;
    if (D.size() > limits::MaxDim ||
        __builtin_mul_overflow(N, D.size(), &N) || N > limits::MaxElements)
      return true;
  }
  return false;
}

bool isStaticShape(const Shape &S) {
  for (const Dim &D : S)
    if (!D.isStatic())
      return false;
  return true;
}

llvm::Optional<int64_t> numElements(const Shape &S) {
  int64_t N = 1;
  for (const Dim &D : S) {
    if (!D.isStatic())
      return llvm::None;
    int64_t Next;
    if (__builtin_mul_overflow(N, D.size(), &Next))
      return llvm::None;
    N = Next;
  }
  return N;
}

std::vector<int64_t> staticSizes(const Shape &S) {
  std::vector<int64_t> Sizes;
  Sizes.reserve(S.size());
  for (const Dim &D : S) {
    assert(D.isStatic() && "staticSizes on a non-static shape");
    Sizes.push_back(D.size());
  }
  return Sizes;
}

Shape makeShape(llvm::ArrayRef<int64_t> Sizes) {
  Shape S;
  S.reserve(Sizes.size());
  for (int64_t V : Sizes)
    S.push_back(Dim(V));
  return S;
}

std::string toString(const Shape &S) {
  std::string Out = "[";
  for (size_t I = 0; I < S.size(); ++I) {
    if (I)
      Out += ',';
    if (S[I].isStatic())
      Out += std::to_string(S[I].size());
    else if (S[I].isSymbolic())
      Out += S[I].symbol();
    else
      Out += '?';
  }
  return Out + "]";
}

static void appendList(std::string &Out, const std::vector<float> &V) {
  Out += '[';
  for (size_t I = 0; I < V.size(); ++I) {
    if (I)
      Out += ", ";
    Out += formatFloat(V[I]);
  }
  Out += ']';
}

static void appendList(std::string &Out, const std::vector<int64_t> &V) {
  Out += '[';
  for (size_t I = 0; I < V.size(); ++I) {
    if (I)
      Out += ", ";
    Out += std::to_string(V[I]);
  }
  Out += ']';
}

std::string toString(const TensorType &T) {
  std::string Out = elementTypeName(T.Elem).str() + toString(T.Dims);
  if (T.Quant) {
    const QuantParams &Q = *T.Quant;
    Out += " q(";
    if (Q.isPerAxis()) {
      Out += "axis=" + std::to_string(Q.Axis) + ", scale=";
      appendList(Out, Q.Scales);
      Out += ", zp=";
      appendList(Out, Q.ZeroPoints);
    } else {
      Out += "scale=" + formatFloat(Q.Scales.empty() ? 0.f : Q.Scales[0]) +
             ", zp=" + std::to_string(Q.ZeroPoints.empty() ? 0 : Q.ZeroPoints[0]);
    }
    Out += ')';
  }
  return Out;
}

bool isCompatible(const TensorType &Declared, const TensorType &Inferred) {
  if (Declared.Elem != Inferred.Elem || Declared.rank() != Inferred.rank())
    return false;
  for (size_t I = 0; I < Declared.Dims.size(); ++I) {
    const Dim &A = Declared.Dims[I], &B = Inferred.Dims[I];
    if (A.isUnknown() || B.isUnknown())
      continue;
    if (A.isStatic() && B.isStatic() && A.size() != B.size())
      return false;
    if (A.isSymbolic() && B.isSymbolic() && A.symbol() != B.symbol())
      return false;
    // A symbol against a static size: the symbol may have been fixed on one
    // side only (e.g. --input-shape); that is not a contradiction.
  }
  return true;
}

} // namespace kiln

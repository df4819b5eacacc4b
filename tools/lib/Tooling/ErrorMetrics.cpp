// Error metrics between a tensor and its reference.
#include "Tooling/ErrorMetrics.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace kiln {

namespace {

template <typename T> T load(const uint8_t *P) {
  T V;
  std::memcpy(&V, P, sizeof(T));
  return V;
}

std::vector<double> asDoubles(const Tensor &T) {
  size_t N = size_t(T.numElements());
  ElementType E = T.type().Elem;
  size_t W = elementSize(E);
  const uint8_t *P = T.buffer().data();
  std::vector<double> R(N);
  for (size_t I = 0; I < N; ++I, P += W) {
    switch (E) {
    case ElementType::F32: R[I] = load<float>(P); break;
    case ElementType::F64: R[I] = load<double>(P); break;
    case ElementType::F16: R[I] = halfToFloat(load<uint16_t>(P)); break;
    case ElementType::BF16: R[I] = bf16ToFloat(load<uint16_t>(P)); break;
    case ElementType::I64: R[I] = double(load<int64_t>(P)); break;
    case ElementType::I32: R[I] = load<int32_t>(P); break;
    case ElementType::I16: R[I] = load<int16_t>(P); break;
    case ElementType::I8: R[I] = load<int8_t>(P); break;
    case ElementType::U64: R[I] = double(load<uint64_t>(P)); break;
    case ElementType::U32: R[I] = load<uint32_t>(P); break;
    case ElementType::U16: R[I] = load<uint16_t>(P); break;
    case ElementType::U8: R[I] = load<uint8_t>(P); break;
    case ElementType::Bool: R[I] = load<uint8_t>(P) != 0; break;
    }
  }
  return R;
}

// The larger (Worse: greater) or smaller of two metrics, NaN if either is:
// std::max and std::min drop a NaN in their second argument.
double worse(double A, double B, bool Greater) {
  if (std::isnan(A) || std::isnan(B))
    return std::numeric_limits<double>::quiet_NaN();
  return Greater ? std::max(A, B) : std::min(A, B);
}

} // namespace

void ErrorMetrics::mergeWorst(const ErrorMetrics &O) {
  MaxAbs = worse(MaxAbs, O.MaxAbs, true);
  MaxRel = worse(MaxRel, O.MaxRel, true);
  Cosine = worse(Cosine, O.Cosine, false);
  SqnrDb = worse(SqnrDb, O.SqnrDb, false);
  Elements += O.Elements;
  NonFinite += O.NonFinite;
  RefNonFinite += O.RefNonFinite;
}

bool ErrorMetrics::allFinite() const {
  return NonFinite == 0 && RefNonFinite == 0 && std::isfinite(MaxAbs) &&
         !std::isnan(MaxRel) && std::isfinite(Cosine) && !std::isnan(SqnrDb);
}


std::optional<ErrorMetrics> compareTensors(const Tensor &X, const Tensor &Ref) {
  if (X.numElements() != Ref.numElements())
    return std::nullopt;
  std::vector<double> A = asDoubles(X), B = asDoubles(Ref);
  ErrorMetrics M;
  M.Elements = int64_t(A.size());
  double Dot = 0, NA = 0, NB = 0, Noise = 0, RefMax = 0;
  for (size_t I = 0; I < A.size(); ++I) {
    bool FiniteA = std::isfinite(A[I]), FiniteB = std::isfinite(B[I]);
    if (!FiniteA || !FiniteB) {
      // The same infinity on both sides agrees (an attention mask's -inf);
      // a NaN, or an infinity the other side does not have, is counted.
      if (std::isinf(A[I]) && A[I] == B[I])
        continue;
      M.NonFinite += !FiniteA;
      M.RefNonFinite += !FiniteB;
      continue;
    }
    double D = A[I] - B[I];
    M.MaxAbs = std::max(M.MaxAbs, std::fabs(D));
    RefMax = std::max(RefMax, std::fabs(B[I]));
    Dot += A[I] * B[I];
    NA += A[I] * A[I];
    NB += B[I] * B[I];
    Noise += D * D;
  }
  M.MaxRel = RefMax > 0 ? M.MaxAbs / RefMax : (M.MaxAbs > 0 ? INFINITY : 0);
  if (NA == 0 && NB == 0)
    M.Cosine = 1;
  else if (NA == 0 || NB == 0)
    M.Cosine = 0;
  else
    M.Cosine = Dot / (std::sqrt(NA) * std::sqrt(NB));
  if (Noise == 0)
    M.SqnrDb = std::numeric_limits<double>::infinity();
  else if (NB == 0)
    M.SqnrDb = -std::numeric_limits<double>::infinity();
  else
    M.SqnrDb = 10 * std::log10(NB / Noise);
  return M;
}

} // namespace kiln

#include "passes/quant/Int8Scheme.h"

#include <algorithm>
#include <cmath>

namespace kiln {

AffineQuant activationQuant(double Lo, double Hi) {
  Lo = std::min(Lo, 0.0);
  Hi = std::max(Hi, 0.0);
  AffineQuant Q;
  Q.Scale = std::max(float((Hi - Lo) / double(Int8Max - Int8Min)), MinQuantScale);
  double Zp = std::nearbyint(double(Int8Min) - Lo / double(Q.Scale));
  Q.ZeroPoint = int64_t(std::clamp(Zp, double(Int8Min), double(Int8Max)));
  return Q;
}

float symmetricWeightScale(double AbsMax) {
  if (!(AbsMax > 0))
    return 1.0f;
  return std::max(float(AbsMax / double(WeightInt8Max)), MinQuantScale);
}

int64_t quantizeScalar(float X, float Scale, int64_t ZeroPoint, int64_t QMin,
                       int64_t QMax) {
  float V = std::nearbyint(X / Scale) + float(ZeroPoint);
  if (std::isnan(V))
    return ZeroPoint;
  return int64_t(std::clamp(V, float(QMin), float(QMax)));
}

float fakeQuantize(float X, const AffineQuant &Q) {
  int64_t Q8 = quantizeScalar(X, Q.Scale, Q.ZeroPoint, Int8Min, Int8Max);
  return float(Q8 - Q.ZeroPoint) * Q.Scale;
}

QuantizedWeight quantizeWeightSymmetric(llvm::ArrayRef<float> W,
                                        llvm::ArrayRef<int64_t> Sizes,
                                        int64_t Axis) {
  int64_t Channels = 1, Inner = 1;
  if (Axis >= 0) {
    Channels = Sizes[size_t(Axis)];
    for (size_t D = size_t(Axis) + 1; D < Sizes.size(); ++D)
      Inner *= Sizes[D];
  } else {
    Inner = int64_t(W.size());
  }
  auto ChannelOf = [&](size_t I) {
    return Axis >= 0 ? int64_t(I) / Inner % Channels : 0;
  };
  std::vector<double> AbsMax(size_t(Channels), 0.0);
  for (size_t I = 0; I < W.size(); ++I)
    if (std::isfinite(W[I]))
      AbsMax[size_t(ChannelOf(I))] =
          std::max(AbsMax[size_t(ChannelOf(I))], std::fabs(double(W[I])));
  QuantizedWeight Q;
  for (double A : AbsMax)
    Q.Scales.push_back(symmetricWeightScale(A));
  Q.Values.resize(W.size());
  for (size_t I = 0; I < W.size(); ++I)
    Q.Values[I] = int8_t(quantizeScalar(W[I], Q.Scales[size_t(ChannelOf(I))], 0,
                                        -WeightInt8Max, WeightInt8Max));
  return Q;
}

QuantParams perTensorParams(const AffineQuant &Q) {
  QuantParams P;
  P.Scales = {Q.Scale};
  P.ZeroPoints = {Q.ZeroPoint};
  return P;
}

QuantParams symmetricParams(llvm::ArrayRef<float> Scales, int64_t Axis) {
  QuantParams P;
  P.Scales.assign(Scales.begin(), Scales.end());
  P.ZeroPoints.assign(Scales.size(), 0);
  P.Axis = Scales.size() == 1 && Axis < 0 ? -1 : Axis;
  return P;
}

} // namespace kiln

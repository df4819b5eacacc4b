// The resize kernel of the reference interpreter: ONNX Resize-13, ported
// from the numpy reference of the ONNX backend tests (resize.py:
// interpolate_nd / interpolate_1d_with_x), which is the ground truth.
//
// Output size: `sizes` when given, with scale_d = out_d / in_d; otherwise
// out_d = floor(in_d * scale_d) from `scales`. (roi/scales/sizes may be
// absent or empty tensors, meaning not given.) Per axis, with
// outW = scale * in (a real number, as in the reference), output x maps to
//   half_pixel:          x' = (x + 0.5) / scale - 0.5
//   pytorch_half_pixel:  x' = outW == 1 ? -0.5 : (x + 0.5) / scale - 0.5
//   align_corners:       x' = outW == 1 ? 0 : x * (in - 1) / (outW - 1)
//   asymmetric:          x' = x / scale
//   tf_crop_and_resize:  x' = outW == 1 ? (r1 - r0) * (in - 1) / 2
//                                       : x * (r1 - r0) * (in - 1) / (outW - 1)
//                        x' += r0 * (in - 1); outside [0, in-1] the result is
//                        extrapolation_value (roi = [starts..., ends...]).
// Then ratio = x' - floor(x'), or 1 when x' is an integer (so that the
// left-hand neighbours are preferred), and the coefficients are
//   nearest: [0, 1] when x' is an integer; else by nearest_mode
//            round_prefer_floor [r <= .5, r > .5], round_prefer_ceil
//            [r < .5, r >= .5], floor [1, 0], ceil [0, 1]
//   linear:  [1 - r, r]
//   cubic:   Keys' kernel with A = cubic_coeff_a at distances 1+r, r, 1-r,
//            2-r.
// The n coefficients weigh the n input positions nearest x' (ties to the
// smaller index): start = floor(x') - n/2 + 1 (one less when x' is an
// integer), the input edge-padded by n/2, so indices clamp to [0, in-1].
// exclude_outside zeroes the weights of positions outside the input and
// renormalizes them to sum 1. N-d resize applies this per axis, outermost
// axis last, exactly as the reference's recursion does: an extrapolated
// inner axis contributes extrapolation_value to the outer interpolation.
#include "Interpreter/kernels/NNKernels.h"

#include "IR/ShapeInference.h"
#include "Support/Error.h"

#include <algorithm>
#include <cmath>

namespace kiln {

namespace {

/// The interpolation taps of one axis for every output coordinate.
struct AxisTaps {
  int64_t Taps = 0;
  std::vector<uint8_t> Extrapolate; // per output coordinate
  std::vector<int64_t> Index;       // [out * Taps], clamped into the input
  std::vector<double> Weight;       // [out * Taps]
};

struct ResizeMode {
  std::string Mode, Coord, Nearest;
  double CubicA = -0.75, Extrapolation = 0;
  bool ExcludeOutside = false;
};

std::vector<double> coefficients(const ResizeMode &M, double Ratio,
                                 bool IsInt) {
  if (M.Mode == "nearest") {
    if (IsInt || M.Nearest == "ceil")
      return {0, 1};
    if (M.Nearest == "floor")
      return {1, 0};
    if (M.Nearest == "round_prefer_ceil")
      return {double(Ratio < 0.5), double(Ratio >= 0.5)};
    return {double(Ratio <= 0.5), double(Ratio > 0.5)}; // round_prefer_floor
  }
  if (M.Mode == "linear")
    return {1 - Ratio, Ratio};
  double A = M.CubicA, R = Ratio, Q = 1 - Ratio;
  return {((A * (R + 1) - 5 * A) * (R + 1) + 8 * A) * (R + 1) - 4 * A,
          ((A + 2) * R - (A + 3)) * R * R + 1,
          ((A + 2) * Q - (A + 3)) * Q * Q + 1,
          ((A * (Q + 1) - 5 * A) * (Q + 1) + 8 * A) * (Q + 1) - 4 * A};
}

AxisTaps axisTaps(const ResizeMode &M, int64_t In, int64_t Out, double Scale,
                  double R0, double R1) {
  AxisTaps A;
  A.Taps = M.Mode == "cubic" ? 4 : 2;
  A.Extrapolate.assign(size_t(Out), 0);
  A.Index.resize(size_t(Out * A.Taps));
  A.Weight.resize(size_t(Out * A.Taps));
  double InW = double(In), OutW = Scale * InW;
  for (int64_t O = 0; O < Out; ++O) {
    double X = double(O), XO;
    if (M.Coord == "align_corners") {
      XO = OutW == 1 ? 0 : X * (InW - 1) / (OutW - 1);
    } else if (M.Coord == "asymmetric") {
      XO = X / Scale;
    } else if (M.Coord == "tf_crop_and_resize") {
      XO = OutW == 1 ? (R1 - R0) * (InW - 1) / 2
                     : X * (R1 - R0) * (InW - 1) / (OutW - 1);
      XO += R0 * (InW - 1);
      if (XO < 0 || XO > InW - 1) {
        A.Extrapolate[size_t(O)] = 1;
        continue;
      }
    } else if (M.Coord == "pytorch_half_pixel") {
      XO = OutW == 1 ? -0.5 : (X + 0.5) / Scale - 0.5;
    } else { // half_pixel
      XO = (X + 0.5) / Scale - 0.5;
    }
    double Floor = std::floor(XO);
    bool IsInt = XO == Floor;
    std::vector<double> C = coefficients(M, IsInt ? 1.0 : XO - Floor, IsInt);
    int64_t N = A.Taps, Pad = N / 2;
    int64_t Start = int64_t(Floor) - (IsInt ? 1 : 0) - (N / 2 - 1);
    Start = std::max(-Pad, std::min(Start, In + Pad - N));
    double Sum = 0;
    for (int64_t I = 0; I < N; ++I) {
      int64_t Idx = Start + I;
      if (M.ExcludeOutside && (Idx < 0 || Idx >= In))
        C[size_t(I)] = 0;
      Sum += C[size_t(I)];
      A.Index[size_t(O * N + I)] = std::max<int64_t>(0, std::min(Idx, In - 1));
    }
    for (int64_t I = 0; I < N; ++I)
      A.Weight[size_t(O * N + I)] =
          M.ExcludeOutside && Sum != 0 ? C[size_t(I)] / Sum : C[size_t(I)];
  }
  return A;
}

template <typename T> struct Evaluator {
  const T *X;
  const std::vector<AxisTaps> &Axes;
  const std::vector<int64_t> &InStride;
  double Extrapolation;

  /// Interpolates axes [D, rank) at output coordinates Coord, from input
  /// element offset Off (which already includes the outer axes' taps).
  double eval(size_t D, const int64_t *Coord, int64_t Off) const {
    if (D == Axes.size())
      return double(X[Off]);
    const AxisTaps &A = Axes[D];
    int64_t O = Coord[D];
    if (A.Extrapolate[size_t(O)])
      return Extrapolation;
    double S = 0;
    for (int64_t I = 0; I < A.Taps; ++I) {
      double W = A.Weight[size_t(O * A.Taps + I)];
      if (W != 0)
        S += W * eval(D + 1, Coord,
                      Off + A.Index[size_t(O * A.Taps + I)] * InStride[D]);
    }
    return S;
  }
};

template <typename T> llvm::Error resize(KernelContext &Ctx) {
  const Tensor &X = *Ctx.input(0);
  std::vector<int64_t> In = sizesOf(X);
  size_t R = In.size();
  const Tensor *Roi = nn::isAbsent(Ctx.input(1)) ? nullptr : Ctx.input(1);
  const Tensor *Scales = nn::isAbsent(Ctx.input(2)) ? nullptr : Ctx.input(2);
  const Tensor *Sizes = nn::isAbsent(Ctx.input(3)) ? nullptr : Ctx.input(3);
  std::vector<int64_t> Out(R);
  std::vector<double> Scale(R);
  if (Sizes) {
    if (size_t(Sizes->numElements()) != R)
      return inputError("resize sizes has {0} values for rank {1}",
                        Sizes->numElements(), R);
    for (size_t D = 0; D < R; ++D) {
      Out[D] = Sizes->asInt(int64_t(D));
      Scale[D] = double(Out[D]) / double(In[D]);
    }
  } else if (Scales) {
    if (size_t(Scales->numElements()) != R)
      return inputError("resize scales has {0} values for rank {1}",
                        Scales->numElements(), R);
    for (size_t D = 0; D < R; ++D) {
      Scale[D] = Scales->asDouble(int64_t(D));
      Out[D] = int64_t(Scale[D] * double(In[D]));
    }
  } else {
    return inputError("resize needs scales or sizes");
  }
  for (size_t D = 0; D < R; ++D)
    if (!(Scale[D] > 0) || Out[D] < 0 || In[D] < 1)
      return inputError("resize axis {0}: input {1}, output {2} and scale "
                        "{3} are not valid",
                        D, In[D], Out[D], Scale[D]);
  std::vector<double> RoiV(2 * R);
  for (size_t D = 0; D < R; ++D)
    RoiV[R + D] = 1;
  if (Roi) {
    if (size_t(Roi->numElements()) != 2 * R)
      return inputError("resize roi has {0} values, expected {1}",
                        Roi->numElements(), 2 * R);
    RoiV = nn::valuesAs<double>(*Roi);
  }
  ResizeMode M;
  M.Mode = Ctx.N.getString("mode");
  M.Coord = Ctx.N.getString("coordinate_transformation_mode");
  M.Nearest = Ctx.N.getString("nearest_mode");
  M.CubicA = Ctx.N.getFloat("cubic_coeff_a");
  M.Extrapolation = Ctx.N.getFloat("extrapolation_value");
  M.ExcludeOutside = Ctx.N.getInt("exclude_outside") != 0;
  if (M.Mode != "nearest" && M.Mode != "linear" && M.Mode != "cubic")
    return inputError("resize mode '{0}' is not nearest, linear or cubic",
                      M.Mode);
  static const char *Coords[] = {"half_pixel", "pytorch_half_pixel",
                                 "align_corners", "asymmetric",
                                 "tf_crop_and_resize"};
  if (std::find(std::begin(Coords), std::end(Coords), M.Coord) ==
      std::end(Coords))
    return inputError("resize coordinate_transformation_mode '{0}' is not "
                      "supported",
                      M.Coord);
  static const char *Nearests[] = {"round_prefer_floor", "round_prefer_ceil",
                                   "floor", "ceil"};
  if (std::find(std::begin(Nearests), std::end(Nearests), M.Nearest) ==
      std::end(Nearests))
    return inputError("resize nearest_mode '{0}' is not supported", M.Nearest);

  std::vector<AxisTaps> Axes;
  std::vector<int64_t> InStride(R, 1);
  for (size_t D = 0; D < R; ++D)
    Axes.push_back(axisTaps(M, In[D], Out[D], Scale[D], RoiV[D], RoiV[R + D]));
  for (size_t D = R; D-- > 1;)
    InStride[D - 1] = InStride[D] * In[D];

  Tensor Y = makeTensor(X.type().Elem, Out);
  T *YD = mutableData<T>(Y);
  Evaluator<T> E{dataAs<T>(X), Axes, InStride, M.Extrapolation};
  Ctx.Pool.parallelFor(Y.numElements(), 1024, [&](int64_t Begin, int64_t End) {
    std::vector<int64_t> Coord(R);
    nn::decode(Begin, Out, Coord);
    for (int64_t I = Begin; I < End; ++I) {
      YD[I] = T(E.eval(0, Coord.data(), 0));
      for (size_t D = R; D-- > 0;) {
        if (++Coord[D] < Out[D])
          break;
        Coord[D] = 0;
      }
    }
  });
  Ctx.Outputs.push_back(std::move(Y));
  return llvm::Error::success();
}

} // namespace

void registerResizeKernels() {
  registerKernel("resize", [](KernelContext &C) {
    return nn::dispatchFloat(C, resize<float>, resize<double>);
  });
}

} // namespace kiln

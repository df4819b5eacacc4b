// resize -> RESIZE with per-axis tap tables computed here: for every output
// coordinate, the input indices and weights of ONNX Resize-13 (nearest,
// linear or cubic; half_pixel, pytorch_half_pixel, align_corners or
// asymmetric; exclude_outside), so the runtime only sums weighted inputs.
// The taps mirror the IR interpreter's (lib/Interpreter/kernels/
// ResizeKernels.cpp, itself a port of ONNX's resize.py): per axis, output x
// maps to x' by the coordinate mode; ratio r = x' - floor(x') (1 when x' is
// an integer); nearest picks [0,1]/[1,0] by nearest_mode, linear weighs
// [1-r, r], cubic uses Keys' kernel with A = cubic_coeff_a; the n taps
// start at floor(x') - n/2 + 1 (one less for an integer x') and clamp into
// the input.
#include "backends/kilnops/KilnOpRules.h"

#include "IR/ShapeInference.h"

#include <cmath>
#include <cstring>

namespace kiln {

namespace {

struct ResizeMode {
  std::string Mode, Coord, Nearest;
  double CubicA;
  bool ExcludeOutside;
};

std::vector<double> coefficients(const ResizeMode &M, double R, bool IsInt) {
  if (M.Mode == "nearest") {
    if (IsInt || M.Nearest == "ceil")
      return {0, 1};
    if (M.Nearest == "floor")
      return {1, 0};
    if (M.Nearest == "round_prefer_ceil")
      return {double(R < 0.5), double(R >= 0.5)};
    return {double(R <= 0.5), double(R > 0.5)};
  }
  if (M.Mode == "linear")
    return {1 - R, R};
  double A = M.CubicA, Q = 1 - R;
  return {((A * (R + 1) - 5 * A) * (R + 1) + 8 * A) * (R + 1) - 4 * A,
          ((A + 2) * R - (A + 3)) * R * R + 1,
          ((A + 2) * Q - (A + 3)) * Q * Q + 1,
          ((A * (Q + 1) - 5 * A) * (Q + 1) + 8 * A) * (Q + 1) - 4 * A};
}

/// The taps of one axis: Index and Weight, [Out, Taps] each.
void axisTaps(const ResizeMode &M, int64_t In, int64_t Out, double Scale,
              int64_t &Taps, std::vector<int32_t> &Index,
              std::vector<float> &Weight) {
  Taps = M.Mode == "cubic" ? 4 : 2;
  double InW = double(In), OutW = Scale * InW;
  for (int64_t O = 0; O < Out; ++O) {
    double X = double(O), XO;
    if (M.Coord == "align_corners")
      XO = OutW == 1 ? 0 : X * (InW - 1) / (OutW - 1);
    else if (M.Coord == "asymmetric")
      XO = X / Scale;
    else if (M.Coord == "pytorch_half_pixel")
      XO = OutW == 1 ? -0.5 : (X + 0.5) / Scale - 0.5;
    else
      XO = (X + 0.5) / Scale - 0.5;
    double Floor = std::floor(XO);
    bool IsInt = XO == Floor;
    std::vector<double> C = coefficients(M, IsInt ? 1.0 : XO - Floor, IsInt);
    int64_t N = Taps, Pad = N / 2;
    int64_t Start = int64_t(Floor) - (IsInt ? 1 : 0) - (N / 2 - 1);
    Start = std::max(-Pad, std::min(Start, In + Pad - N));
    double Sum = 0;
    for (int64_t I = 0; I < N; ++I) {
      int64_t Idx = Start + I;
      if (M.ExcludeOutside && (Idx < 0 || Idx >= In))
        C[size_t(I)] = 0;
      Sum += C[size_t(I)];
      Index.push_back(int32_t(std::max<int64_t>(0, std::min(Idx, In - 1))));
    }
    for (int64_t I = 0; I < N; ++I)
      Weight.push_back(float(M.ExcludeOutside && Sum != 0 ? C[size_t(I)] / Sum
                                                          : C[size_t(I)]));
  }
}

/// Per-axis scales: out / in from `sizes`, or `scales` as given.
llvm::Optional<std::vector<double>> scalesOf(const Node &N) {
  std::vector<int64_t> In = staticSizes(N.operand(0)->type().Dims);
  const Value *Scales = N.numOperands() > 2 ? N.operand(2) : nullptr;
  const Value *Sizes = N.numOperands() > 3 ? N.operand(3) : nullptr;
  std::vector<double> S;
  if (auto Z = constantInts(Sizes); Z && Z->size() == In.size()) {
    for (size_t D = 0; D < In.size(); ++D)
      S.push_back(double((*Z)[D]) / double(In[D]));
    return S;
  }
  if (auto F = constantFloats(Scales); F && F->size() == In.size())
    return *F;
  return llvm::None;
}

ResizeMode modeOf(const Node &N) {
  return {N.getString("mode"), N.getString("coordinate_transformation_mode"),
          N.getString("nearest_mode"), N.getFloat("cubic_coeff_a"),
          N.getInt("exclude_outside") != 0};
}

KilnOpSupport checkResize(const Node &N) {
  if (N.operand(0)->type().Elem != ElementType::F32 ||
      N.result()->type().Elem != ElementType::F32)
    return notSupported("resize on {0}",
                        elementTypeName(N.operand(0)->type().Elem));
  ResizeMode M = modeOf(N);
  if (M.Mode != "nearest" && M.Mode != "linear" && M.Mode != "cubic")
    return notSupported("resize mode '{0}'", M.Mode);
  if (M.Coord != "half_pixel" && M.Coord != "pytorch_half_pixel" &&
      M.Coord != "align_corners" && M.Coord != "asymmetric")
    return notSupported("coordinate_transformation_mode '{0}'", M.Coord);
  if (M.Mode == "nearest" && M.Nearest != "round_prefer_floor" &&
      M.Nearest != "round_prefer_ceil" && M.Nearest != "floor" &&
      M.Nearest != "ceil")
    return notSupported("nearest_mode '{0}'", M.Nearest);
  auto S = scalesOf(N);
  if (!S)
    return notSupported("scales or sizes must be constants");
  std::vector<int64_t> In = staticSizes(N.operand(0)->type().Dims);
  for (size_t D = 0; D < S->size(); ++D)
    if (!((*S)[D] > 0) || In[D] < 1)
      return notSupported("axis {0}: scale {1} on size {2}", D, (*S)[D], In[D]);
  return supported();
}

llvm::Error lowerResize(const Node &N, LoweringContext &Ctx) {
  const Value *X = N.operand(0);
  std::vector<int64_t> In = staticSizes(X->type().Dims),
                       Out = staticSizes(N.result()->type().Dims);
  std::vector<double> Scale = *scalesOf(N);
  ResizeMode M = modeOf(N);
  std::vector<int32_t> Inputs = {Ctx.canonical(X)};
  std::string Base = N.displayName();
  for (size_t D = 0; D < In.size(); ++D) {
    int64_t Taps;
    std::vector<int32_t> Index;
    std::vector<float> Weight;
    axisTaps(M, In[D], Out[D], Scale[D], Taps, Index, Weight);
    // An axis whose taps pick each input once is left out.
    bool Identity = In[D] == Out[D];
    for (int64_t O = 0; Identity && O < Out[D]; ++O)
      for (int64_t T = 0; T < Taps; ++T) {
        float W = Weight[size_t(O * Taps + T)];
        int32_t I = Index[size_t(O * Taps + T)];
        if (W != 0 && !(W == 1 && I == O))
          Identity = false;
      }
    if (Identity) {
      Inputs.insert(Inputs.end(), {-1, -1});
      continue;
    }
    std::vector<uint8_t> IndexBytes(Index.size() * 4);
    std::memcpy(IndexBytes.data(), Index.data(), IndexBytes.size());
    std::string Axis = Base + ".axis" + std::to_string(D);
    Inputs.push_back(Ctx.addConstant(Axis + ".index", ElementType::I32,
                                     {Out[D], Taps}, fb::Layout::PLAIN,
                                     Buffer::own(std::move(IndexBytes))));
    Inputs.push_back(Ctx.addFloatConstant(Axis + ".weight", {Out[D], Taps},
                                          fb::Layout::PLAIN, Weight));
  }
  int32_t Y = Ctx.resultTensor(N.result(), false);
  Ctx.addOp(fb::OpKind::RESIZE, Inputs, {Y}, optionsOf(fb::ResizeOptionsT()),
            fb::Engine::REFERENCE);
  Ctx.define(N.result(), Y, false);
  return llvm::Error::success();
}

const CpuOpRule Rules[] = {{"resize", checkResize, lowerResize}};

} // namespace

llvm::ArrayRef<CpuOpRule> resizeRules() { return Rules; }

} // namespace kiln

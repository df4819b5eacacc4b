// RESIZE: kiln stores a resize as per-axis tap tables (input index and
// weight per output coordinate), whatever ONNX mode made them. NNAPI has
// two resizes with TFLite's coordinate rules; this finds the one whose taps
// are the same as the file's, comparing the effective weight of every input
// index per output coordinate, and refuses a resize no NNAPI mode computes
// (cubic, pytorch_half_pixel at size 1, ...).
#include "backends/nnapi/NnapiLowering.h"
#include "schema/nnapi/NeuralNetworksApi.h"

#include <cmath>
#include <cstring>
#include <map>

namespace kiln::nnapi {

namespace {

/// Per output coordinate: input index -> weight.
using AxisWeights = std::vector<std::map<int64_t, double>>;

struct ResizeMode {
  bool Bilinear, AlignCorners, HalfPixel;
  int32_t Level;
  const char *Name;
};

constexpr ResizeMode Modes[] = {
    {true, false, false, 27, "bilinear"},
    {false, false, false, 29, "nearest"},
    {true, true, false, 30, "bilinear, align corners"},
    {true, false, true, 30, "bilinear, half pixel"},
    {false, true, false, 30, "nearest, align corners"},
    {false, false, true, 30, "nearest, half pixel"},
};

AxisWeights modeWeights(const ResizeMode &M, int64_t In, int64_t Out) {
  double Scale = M.AlignCorners && Out > 1 ? double(In - 1) / double(Out - 1)
                                           : double(In) / double(Out);
  AxisWeights W(static_cast<size_t>(Out));
  for (int64_t O = 0; O < Out; ++O) {
    auto &Row = W[size_t(O)];
    if (M.Bilinear) {
      double Src = M.HalfPixel ? (double(O) + 0.5) * Scale - 0.5
                               : double(O) * Scale;
      int64_t Lo = std::max<int64_t>(int64_t(std::floor(Src)), 0);
      int64_t Hi = std::min<int64_t>(int64_t(std::ceil(Src)), In - 1);
      double Frac = Src - std::floor(Src);
      Row[Lo] += 1 - Frac;
      Row[Hi] += Frac;
    } else {
      double Src = (double(O) + (M.HalfPixel ? 0.5 : 0)) * Scale;
      int64_t I = int64_t(M.AlignCorners ? std::round(Src) : std::floor(Src));
      I = std::min(I, In - 1);
      if (M.HalfPixel)
        I = std::max<int64_t>(I, 0);
      Row[I] += 1;
    }
  }
  return W;
}

bool sameWeights(const AxisWeights &A, const AxisWeights &B) {
  if (A.size() != B.size())
    return false;
  for (size_t O = 0; O < A.size(); ++O) {
    auto Clean = [](const std::map<int64_t, double> &M) {
      std::map<int64_t, double> C;
      for (const auto &[I, W] : M)
        if (std::abs(W) > 1e-6)
          C[I] = W;
      return C;
    };
    auto CA = Clean(A[O]), CB = Clean(B[O]);
    if (CA.size() != CB.size())
      return false;
    for (const auto &[I, W] : CA) {
      auto It = CB.find(I);
      if (It == CB.end() || std::abs(It->second - W) > 1e-5)
        return false;
    }
  }
  return true;
}

} // namespace

void lowerResize(Lowering &L, int32_t Op) {
  const fb::OperatorT &O = L.op(Op);
  const auto &XShape = L.tensor(O.inputs[0]).shape;
  const auto &YShape = L.tensor(O.outputs[0]).shape;
  fb::Layout Layout = L.tensor(O.outputs[0]).layout;
  if (XShape.size() != 4 || O.inputs.size() != 9 ||
      (Layout != fb::Layout::NHWC && Layout != fb::Layout::NCHW))
    return L.fail(Op, "NNAPI resizes only the height and width of an image");
  bool Nchw = Layout == fb::Layout::NCHW;
  int HAxis = Nchw ? 2 : 1, WAxis = HAxis + 1;
  AxisWeights Axes[2];
  for (int Axis = 0; Axis < 4; ++Axis) {
    int32_t Idx = O.inputs[size_t(1 + 2 * Axis)];
    int32_t Wt = O.inputs[size_t(2 + 2 * Axis)];
    bool Spatial = Axis == HAxis || Axis == WAxis;
    if (Idx < 0) {
      if (Spatial) // an axis that keeps its size: the identity taps
        for (int64_t I = 0; I < XShape[size_t(Axis)]; ++I)
          Axes[Axis - HAxis].push_back({{I, 1.0}});
      continue;
    }
    const fb::TensorT &IT = L.tensor(Idx), &WT = L.tensor(Wt);
    if (IT.buffer < 0 || WT.buffer < 0)
      return L.fail(Op, "the resize taps are not constants");
    int64_t Out = IT.shape[0], Taps = IT.shape[1];
    const uint8_t *IB = L.segmentBytes(IT.buffer);
    const uint8_t *WB = L.segmentBytes(WT.buffer);
    AxisWeights Other;
    auto &Rows = Spatial ? Axes[Axis - HAxis] : Other;
    Rows.assign(size_t(Out), {});
    for (int64_t R = 0; R < Out; ++R)
      for (int64_t T = 0; T < Taps; ++T) {
        int32_t I;
        float W;
        std::memcpy(&I, IB + 4 * (R * Taps + T), 4);
        std::memcpy(&W, WB + 4 * (R * Taps + T), 4);
        Rows[size_t(R)][I] += W;
      }
    if (!Spatial) { // taps on batch or channels must pick each input once
      AxisWeights Identity(static_cast<size_t>(Out));
      for (int64_t R = 0; R < Out; ++R)
        Identity[size_t(R)][R] = 1;
      if (Out != XShape[size_t(Axis)] || !sameWeights(Rows, Identity))
        return L.fail(Op, "NNAPI resizes only height and width");
    }
  }
  for (const ResizeMode &M : Modes) {
    int64_t InH = XShape[size_t(HAxis)], InW = XShape[size_t(WAxis)];
    int64_t OutH = YShape[size_t(HAxis)], OutW = YShape[size_t(WAxis)];
    if (!sameWeights(Axes[0], modeWeights(M, InH, OutH)) ||
        !sameWeights(Axes[1], modeWeights(M, InW, OutW)))
      continue;
    if (!L.need(M.Level, std::string("a resize (") + M.Name + ")", Op))
      return;
    if (L.quantized(O.inputs[0]) &&
        !L.need(29, "a quantized resize", Op))
      return;
    uint32_t X = L.operandOf(O.inputs[0]);
    uint32_t N = uint32_t(XShape[0]), C = uint32_t(XShape[1]);
    if (Nchw) { // NNAPI resizes NHWC: transpose around it
      if (!L.need(28, "a resize of an NCHW tensor (TRANSPOSE)", Op))
        return;
      uint32_t Xt =
          L.activationLike(X, {N, uint32_t(InH), uint32_t(InW), C});
      L.emit(TRANSPOSE, {X, L.tensorI32({0, 2, 3, 1})}, {Xt}, Op);
      X = Xt;
    }
    std::vector<uint32_t> In = {X, L.scalarI32(int32_t(OutW)),
                                L.scalarI32(int32_t(OutH))};
    if (!M.Bilinear || M.Level >= 30)
      In.push_back(L.scalarBool(false)); // NHWC
    if (M.Level >= 30) {
      In.push_back(L.scalarBool(M.AlignCorners));
      In.push_back(L.scalarBool(M.HalfPixel));
    }
    int32_t Code = M.Bilinear ? RESIZE_BILINEAR : RESIZE_NEAREST_NEIGHBOR;
    uint32_t Out = L.outputLike(X, O.outputs[0]);
    if (!Nchw) {
      L.emit(Code, In, {Out}, Op);
      return L.finishOutput(Out, O.outputs[0], Op);
    }
    uint32_t Yt = L.activationLike(Out, {N, uint32_t(OutH), uint32_t(OutW), C});
    L.emit(Code, In, {Yt}, Op);
    L.emit(TRANSPOSE, {Yt, L.tensorI32({0, 3, 1, 2})}, {Out}, Op);
    return L.finishOutput(Out, O.outputs[0], Op);
  }
  L.fail(Op, "no NNAPI resize computes these taps (NNAPI has bilinear and "
             "nearest with asymmetric, align-corners or half-pixel "
             "coordinates)");
}

} // namespace kiln::nnapi

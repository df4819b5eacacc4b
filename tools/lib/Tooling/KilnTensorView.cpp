#include "Tooling/KilnTensorView.h"

#include "kiln/kiln.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace kiln {

namespace {

/// How V's stored elements map to the IR's: its stored dims, the IR's
/// dims, and, per IR (channels-first) index, the stored index.
struct ViewMap {
  std::vector<int64_t> Stored;
  Shape Ir;
  bool ChannelsLast = false;
  int64_t Batch = 1, Channels = 1, Pixels = 1;

  explicit ViewMap(const kiln_tensor_info &I)
      : Stored(I.shape, I.shape + I.rank) {
    ChannelsLast = I.layout == KILN_LAYOUT_NHWC && I.rank >= 3;
    if (!ChannelsLast) {
      for (int64_t D : Stored)
        Ir.push_back(Dim(D));
      return;
    }
    // [N, spatial..., C] is [N, C, spatial...] to the IR.
    Batch = Stored[0];
    Channels = Stored[I.rank - 1];
    Ir = {Dim(Batch), Dim(Channels)};
    for (size_t D = 1; D + 1 < I.rank; ++D) {
      Pixels *= Stored[D];
      Ir.push_back(Dim(Stored[D]));
    }
  }

  int64_t storedIndex(int64_t IrIndex) const {
    if (!ChannelsLast)
      return IrIndex;
    int64_t P = IrIndex % Pixels, C = (IrIndex / Pixels) % Channels,
            B = IrIndex / (Pixels * Channels);
    return (B * Pixels + P) * Channels + C;
  }
};

/// The scale and zero point slice of stored element E (per tensor or per
/// quant_axis slice).
size_t quantSlice(const kiln_tensor_value &V, const std::vector<int64_t> &Dims,
                  int64_t E) {
  if (V.num_scales <= 1 || V.quant_axis < 0 || size_t(V.quant_axis) >= Dims.size())
    return 0;
  int64_t Stride = 1;
  for (size_t D = size_t(V.quant_axis) + 1; D < Dims.size(); ++D)
    Stride *= Dims[D];
  return size_t((E / Stride) % Dims[size_t(V.quant_axis)]);
}

} // namespace

std::optional<Tensor> toIrView(const kiln_tensor_value &V) {
  const kiln_tensor_info &I = V.info;
  if (I.dtype == KILN_DTYPE_UNKNOWN)
    return std::nullopt;
  ViewMap Map(I);
  Shape StoredShape;
  for (int64_t D : Map.Stored)
    StoredShape.push_back(Dim(D));
  TensorType Type(static_cast<ElementType>(I.dtype), StoredShape);
  int64_t N = numElements(StoredShape).getValueOr(-1);
  if (N < 0 || int64_t(I.byte_size) != N * int64_t(elementSize(Type.Elem)))
    return std::nullopt;
  Tensor Raw(Type, Buffer::copy({static_cast<const uint8_t *>(V.data),
                                 I.byte_size}));
  std::vector<float> Real(static_cast<size_t>(N));
  for (int64_t E = 0; E < N; ++E) {
    int64_t S = Map.storedIndex(E);
    double X = Raw.asDouble(S);
    if (V.num_scales) {
      size_t Q = quantSlice(V, Map.Stored, S);
      double Zero = V.zero_points ? double(V.zero_points[Q]) : 0.0;
      X = (X - Zero) * double(V.scales[Q]);
    }
    Real[size_t(E)] = float(X);
  }
  return Tensor::fromValues<float>(ElementType::F32, Map.Ir, Real);
}

std::optional<std::vector<uint8_t>> fromIrView(const Tensor &Ir,
                                               const kiln_tensor_value &V) {
  const kiln_tensor_info &I = V.info;
  bool Quantized = I.dtype == KILN_DTYPE_I8 || I.dtype == KILN_DTYPE_U8;
  if (!(I.dtype == KILN_DTYPE_F32 || (Quantized && V.num_scales)) ||
      Ir.type().Elem != ElementType::F32)
    return std::nullopt;
  ViewMap Map(I);
  if (Ir.type().Dims != Map.Ir)
    return std::nullopt;
  int64_t N = Ir.numElements();
  size_t Width = Quantized ? 1 : sizeof(float);
  if (int64_t(I.byte_size) != N * int64_t(Width))
    return std::nullopt;
  std::vector<uint8_t> Out(I.byte_size);
  double Lo = I.dtype == KILN_DTYPE_I8 ? -128 : 0;
  double Hi = I.dtype == KILN_DTYPE_I8 ? 127 : 255;
  for (int64_t E = 0; E < N; ++E) {
    int64_t S = Map.storedIndex(E);
    double X = Ir.asDouble(E);
    if (!Quantized) {
      float F = float(X);
      std::memcpy(&Out[size_t(S) * Width], &F, sizeof F);
      continue;
    }
    size_t Q = quantSlice(V, Map.Stored, S);
    double Zero = V.zero_points ? double(V.zero_points[Q]) : 0.0;
    double Level = std::nearbyint(X / double(V.scales[Q])) + Zero;
    Level = std::isnan(Level) ? Zero : std::clamp(Level, Lo, Hi);
    if (I.dtype == KILN_DTYPE_I8)
      Out[size_t(S)] = uint8_t(int8_t(Level));
    else
      Out[size_t(S)] = uint8_t(Level);
  }
  return Out;
}

} // namespace kiln

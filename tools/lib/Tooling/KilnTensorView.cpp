#include "Tooling/KilnTensorView.h"

#include "kiln/kiln.h"

#include <vector>

namespace kiln {

std::optional<Tensor> toIrView(const kiln_tensor_value &V) {
  const kiln_tensor_info &I = V.info;
  if (I.dtype == KILN_DTYPE_UNKNOWN)
    return std::nullopt;
  std::vector<int64_t> Dims(I.shape, I.shape + I.rank);
  Shape Stored;
  for (int64_t D : Dims)
    Stored.push_back(Dim(D));
  TensorType Type(static_cast<ElementType>(I.dtype), Stored);
  int64_t N = numElements(Stored).getValueOr(-1);
  if (N < 0 || int64_t(I.byte_size) != N * int64_t(elementSize(Type.Elem)))
    return std::nullopt;
  Tensor Raw(Type, Buffer::copy({static_cast<const uint8_t *>(V.data),
                                 I.byte_size}));

  // Dequantize in the stored order: slice S of the quantization axis has
  // scales[S] and zero_points[S].
  int64_t AxisStride = 1, AxisDim = 1;
  if (V.num_scales > 1 && V.quant_axis >= 0 && size_t(V.quant_axis) < I.rank) {
    AxisDim = Dims[size_t(V.quant_axis)];
    for (size_t D = size_t(V.quant_axis) + 1; D < I.rank; ++D)
      AxisStride *= Dims[D];
  }
  std::vector<float> Real(static_cast<size_t>(N));
  for (int64_t E = 0; E < N; ++E) {
    double X = Raw.asDouble(E);
    if (V.num_scales) {
      size_t S = size_t((E / AxisStride) % AxisDim);
      double Zero = V.zero_points ? double(V.zero_points[S]) : 0.0;
      X = (X - Zero) * double(V.scales[S]);
    }
    Real[size_t(E)] = float(X);
  }

  if (I.layout != KILN_LAYOUT_NHWC || I.rank < 3)
    return Tensor::fromValues<float>(ElementType::F32, Stored, Real);
  // [N, spatial..., C] -> [N, C, spatial...].
  int64_t Batch = Dims[0], Channels = Dims[I.rank - 1], Pixels = 1;
  for (size_t D = 1; D + 1 < I.rank; ++D)
    Pixels *= Dims[D];
  std::vector<float> Nchw(Real.size());
  for (int64_t B = 0; B < Batch; ++B)
    for (int64_t P = 0; P < Pixels; ++P)
      for (int64_t C = 0; C < Channels; ++C)
        Nchw[size_t((B * Channels + C) * Pixels + P)] =
            Real[size_t((B * Pixels + P) * Channels + C)];
  Shape Ir{Dim(Batch), Dim(Channels)};
  for (size_t D = 1; D + 1 < I.rank; ++D)
    Ir.push_back(Dim(Dims[D]));
  return Tensor::fromValues<float>(ElementType::F32, Ir, Nchw);
}

} // namespace kiln

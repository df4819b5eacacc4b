#include "nnapi/NnapiHostSteps.h"
#include "image/PixelConversion.h"

#include "loader/Limits.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace kiln::rt {

namespace {

/// y dim i is x dim Perm[i]; elements of Size bytes.
void transpose(const TensorDesc &X, const flatbuffers::Vector<int32_t> &Perm,
               size_t Size, const uint8_t *From, uint8_t *To) {
  size_t Rank = X.Shape.size(); // at most limits::MaxRank
  uint64_t XStride[limits::MaxRank], YDims[limits::MaxRank],
      YStride[limits::MaxRank], Index[limits::MaxRank] = {};
  uint64_t Stride = 1;
  for (size_t I = Rank; I > 0; --I) {
    XStride[I - 1] = Stride;
    Stride *= uint64_t(X.Shape[I - 1]);
  }
  for (size_t I = 0; I < Rank; ++I) {
    YDims[I] = uint64_t(X.Shape[size_t(Perm.Get(unsigned(I)))]);
    YStride[I] = XStride[size_t(Perm.Get(unsigned(I)))]; // x stride of y dim i
  }
  for (uint64_t E = 0; E < X.Elements; ++E) {
    uint64_t Offset = 0;
    for (size_t I = 0; I < Rank; ++I)
      Offset += Index[I] * YStride[I];
    std::memcpy(To + E * Size, From + Offset * Size, Size);
    for (size_t I = Rank; I > 0; --I) { // next y index, last dim fastest
      if (++Index[I - 1] < YDims[I - 1])
        break;
      Index[I - 1] = 0;
    }
  }
}

} // namespace

void runNnapiHostStep(const LoadedModel &M, size_t Op,
                      const std::function<uint8_t *(size_t)> &Buffer) {
  const fb::Operator &O = M.op(Op);
  size_t XI = size_t(O.inputs()->Get(0)), YI = size_t(O.outputs()->Get(0));
  const TensorDesc &X = M.Tensors[XI], &Y = M.Tensors[YI];
  const uint8_t *From = X.isConstant() ? X.ConstData : Buffer(XI);
  uint8_t *To = Buffer(YI);
  switch (O.kind()) {
  case fb::OpKind::TRANSPOSE: {
    transpose(X, *O.options_as_TransposeOptions()->perm(), dtypeSize(X.DType),
              From, To);
    return;
  }
  case fb::OpKind::RESHAPE:
    if (To != From)
      std::memcpy(To, From, size_t(Y.Bytes));
    return;
  case fb::OpKind::QUANTIZE: {
    float Scale = Y.Scales[0], Zero = float(Y.ZeroPoints[0]);
    const auto *In = reinterpret_cast<const float *>(From);
    auto *Out = reinterpret_cast<int8_t *>(To);
    for (uint64_t E = 0; E < X.Elements; ++E) {
      float Q = std::nearbyint(In[E] / Scale) + Zero;
      Out[E] = int8_t(std::min(127.0f, std::max(-128.0f, Q)));
    }
    return;
  }
  case fb::OpKind::CAST: { // token ids: i64 to NNAPI's i32, saturating
    const auto *In = reinterpret_cast<const int64_t *>(From);
    auto *Out = reinterpret_cast<int32_t *>(To);
    for (uint64_t E = 0; E < X.Elements; ++E)
      Out[E] = int32_t(std::clamp<int64_t>(In[E], INT32_MIN, INT32_MAX));
    return;
  }
  case fb::OpKind::DEQUANTIZE: {
    float Scale = X.Scales[0];
    int32_t Zero = int32_t(X.ZeroPoints[0]);
    const auto *In = reinterpret_cast<const int8_t *>(From);
    auto *Out = reinterpret_cast<float *>(To);
    for (uint64_t E = 0; E < X.Elements; ++E)
      Out[E] = float(int32_t(In[E]) - Zero) * Scale;
    return;
  }
  case fb::OpKind::PIXELS_TO_TENSOR: {
    // A camera frame to the image the NNAPI model takes (an image input).
    PixelConversion C = pixelConversionOf(O, X, Y);
    for (int64_t Row = 0; Row < C.rows(Y.dim(0)); ++Row)
      convertPixelRow(C, From, To, Row);
    return;
  }
  default: // the loader admits only the five above
    return;
  }
}

} // namespace kiln::rt

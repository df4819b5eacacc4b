// XNNPACK kernels of the int8 operators (schema 1.2), from the Debian
// XNNPACK (2022-02, which has qc8 convolution but no per-channel fully
// connected and no qd8): CONV_2D -> convolution2d_nhwc_qc8; FULLY_CONNECTED
// -> the same qc8 convolution with a 1x1 kernel over [rows, 1, 1, K], which
// is what per-channel fully connected computes; ADD -> add_nd_qs8;
// MAX_POOL_2D -> max_pooling2d_nhwc_s8; GLOBAL_AVERAGE_POOL_2D ->
// global_average_pooling_nwc_qs8; QUANTIZE/DEQUANTIZE -> convert_nc_f32_qs8 /
// convert_nc_qs8_f32. Real output ranges become int8 bounds. Null when
// XNNPACK rejects a configuration (e.g. a requantization scale out of its
// range): the session then runs the reference kernel.
#include "cpu/Kernel.h"
#include "QuantBounds.h"
#include "cpu/xnnpack/XnnpackOperatorKernel.h"

#include <xnnpack.h>

#include <algorithm>
#include <cmath>

namespace kiln::rt {

namespace {

int8_t zero(const TensorDesc &T) { return int8_t(T.ZeroPoints[0]); }
size_t dim(const KernelTensor &T, int64_t I) { return size_t(T.dim(I)); }
const int32_t *bias(const KernelArgs &A) {
  return A.In.size() > 2 && A.In[2].present() ? A.In[2].as<const int32_t>()
                                              : nullptr;
}

// Setups of the kernels a resized session keeps (XnnpackSetupFn).
xnn_status setupConv2D(xnn_operator_t Op, const KernelArgs &A,
                       pthreadpool_t Pool) {
  const KernelTensor &X = A.In[0];
  return xnn_setup_convolution2d_nhwc_qc8(
      Op, dim(X, 0), dim(X, 1), dim(X, 2), X.as<const int8_t>(),
      A.Out[0].as<int8_t>(), Pool);
}

xnn_status setupFullyConnected(xnn_operator_t Op, const KernelArgs &A,
                               pthreadpool_t Pool) {
  const KernelTensor &X = A.In[0];
  size_t K = dim(A.In[1], 1);
  size_t Rows = K ? size_t(X.elements()) / K : 0;
  return xnn_setup_convolution2d_nhwc_qc8(Op, Rows, 1, 1,
                                          X.as<const int8_t>(),
                                          A.Out[0].as<int8_t>(), Pool);
}

std::unique_ptr<Kernel> conv2D(const KernelArgs &A, pthreadpool_t Pool) {
  const auto &O = *A.Op.options_as_Conv2DOptions();
  const KernelTensor &X = A.In[0], &Y = A.Out[0];
  const TensorDesc &XD = *X.Desc, &WD = *A.In[1].Desc, &YD = *Y.Desc;
  return makeRebindableXnnpackKernel(
      [&](xnn_operator_t *Op) {
        return xnn_create_convolution2d_nhwc_qc8(
            O.padding_top(), O.padding_right(), O.padding_bottom(),
            O.padding_left(), O.kernel_height(), O.kernel_width(),
            O.stride_height(), O.stride_width(), O.dilation_height(),
            O.dilation_width(), O.groups(), O.group_input_channels(),
            O.group_output_channels(), dim(X, 3), dim(Y, 3), zero(XD),
            XD.Scales[0], WD.Scales.data(), A.In[1].as<const int8_t>(),
            bias(A), zero(YD), YD.Scales[0], quantizedLower(O.output_min(), YD),
            quantizedUpper(O.output_max(), YD),
            O.depthwise() ? XNN_FLAG_DEPTHWISE_CONVOLUTION : 0, Op);
      },
      setupConv2D, A, Pool);
}

std::unique_ptr<Kernel> fullyConnected(const KernelArgs &A, pthreadpool_t Pool) {
  const auto &O = *A.Op.options_as_FullyConnectedOptions();
  const KernelTensor &X = A.In[0], &W = A.In[1], &Y = A.Out[0];
  const TensorDesc &XD = *X.Desc, &YD = *Y.Desc;
  size_t K = dim(W, 1), OC = dim(W, 0);
  return makeRebindableXnnpackKernel(
      [&](xnn_operator_t *Op) {
        return xnn_create_convolution2d_nhwc_qc8(
            0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, K, OC, K, OC, zero(XD),
            XD.Scales[0], W.Desc->Scales.data(), W.as<const int8_t>(), bias(A),
            zero(YD), YD.Scales[0], quantizedLower(O.output_min(), YD),
            quantizedUpper(O.output_max(), YD), 0, Op);
      },
      setupFullyConnected, A, Pool);
}

std::unique_ptr<Kernel> addOrMultiply(const KernelArgs &A, pthreadpool_t Pool) {
  const auto &O = *A.Op.options_as_BinaryOptions();
  if (O.op() != fb::BinaryOp::ADD && O.op() != fb::BinaryOp::MUL)
    return nullptr;
  bool Mul = O.op() == fb::BinaryOp::MUL;
  const TensorDesc &AD = *A.In[0].Desc, &BD = *A.In[1].Desc,
                   &YD = *A.Out[0].Desc;
  if (AD.rank() > XNN_MAX_TENSOR_DIMS || BD.rank() > XNN_MAX_TENSOR_DIMS)
    return nullptr;
  std::vector<size_t> SA(AD.Shape.begin(), AD.Shape.end()),
      SB(BD.Shape.begin(), BD.Shape.end());
  return makeXnnpackKernel(
      [&](xnn_operator_t *Op) {
        // XNNPACK refuses a product whose scales it cannot requantize
        // (a_scale * b_scale / y_scale outside [2^-16, 2^8)): the reference
        // kernel runs it then.
        auto Create = Mul ? xnn_create_multiply_nd_qs8 : xnn_create_add_nd_qs8;
        return Create(zero(AD), AD.Scales[0], zero(BD), BD.Scales[0], zero(YD),
                      YD.Scales[0], quantizedLower(O.output_min(), YD),
                      quantizedUpper(O.output_max(), YD), 0, Op);
      },
      [&](xnn_operator_t Op) {
        auto Setup = Mul ? xnn_setup_multiply_nd_qs8 : xnn_setup_add_nd_qs8;
        return Setup(Op, SA.size(), SA.data(), SB.size(), SB.data(),
                     A.In[0].as<const int8_t>(), A.In[1].as<const int8_t>(),
                     A.Out[0].as<int8_t>(), Pool);
      });
}

std::unique_ptr<Kernel> maxPool(const KernelArgs &A, pthreadpool_t Pool) {
  const auto &O = *A.Op.options_as_Pool2DOptions();
  const KernelTensor &X = A.In[0], &Y = A.Out[0];
  size_t C = dim(X, 3);
  return makeXnnpackKernel(
      [&](xnn_operator_t *Op) {
        return xnn_create_max_pooling2d_nhwc_s8(
            O.padding_top(), O.padding_right(), O.padding_bottom(),
            O.padding_left(), O.kernel_height(), O.kernel_width(),
            O.stride_height(), O.stride_width(), O.dilation_height(),
            O.dilation_width(), C, C, C, quantizedLower(O.output_min(), *Y.Desc),
            quantizedUpper(O.output_max(), *Y.Desc), 0, Op);
      },
      [&](xnn_operator_t Op) {
        return xnn_setup_max_pooling2d_nhwc_s8(Op, dim(X, 0), dim(X, 1),
                                               dim(X, 2), X.as<const int8_t>(),
                                               Y.as<int8_t>(), Pool);
      });
}

std::unique_ptr<Kernel> globalAveragePool(const KernelArgs &A,
                                          pthreadpool_t Pool) {
  const auto &O = *A.Op.options_as_Pool2DOptions();
  const KernelTensor &X = A.In[0], &Y = A.Out[0];
  const TensorDesc &XD = *X.Desc, &YD = *Y.Desc;
  size_t C = dim(X, 3);
  return makeXnnpackKernel(
      [&](xnn_operator_t *Op) {
        return xnn_create_global_average_pooling_nwc_qs8(
            C, C, C, zero(XD), XD.Scales[0], zero(YD), YD.Scales[0],
            quantizedLower(O.output_min(), YD), quantizedUpper(O.output_max(), YD), 0, Op);
      },
      [&](xnn_operator_t Op) {
        return xnn_setup_global_average_pooling_nwc_qs8(
            Op, dim(X, 0), dim(X, 1) * dim(X, 2), X.as<const int8_t>(),
            Y.as<int8_t>(), Pool);
      });
}

std::unique_ptr<Kernel> convert(const KernelArgs &A, pthreadpool_t Pool) {
  size_t N = size_t(A.In[0].elements());
  if (A.Op.kind() == fb::OpKind::QUANTIZE) {
    const TensorDesc &YD = *A.Out[0].Desc;
    return makeXnnpackKernel(
        [&](xnn_operator_t *Op) {
          return xnn_create_convert_nc_f32_qs8(N, N, N, YD.Scales[0], zero(YD),
                                               -128, 127, 0, Op);
        },
        [&](xnn_operator_t Op) {
          return xnn_setup_convert_nc_f32_qs8(Op, 1, A.In[0].as<const float>(),
                                              A.Out[0].as<int8_t>(), Pool);
        });
  }
  const TensorDesc &XD = *A.In[0].Desc;
  return makeXnnpackKernel(
      [&](xnn_operator_t *Op) {
        return xnn_create_convert_nc_qs8_f32(N, N, N, XD.Scales[0], zero(XD), 0,
                                             Op);
      },
      [&](xnn_operator_t Op) {
        return xnn_setup_convert_nc_qs8_f32(Op, 1, A.In[0].as<const int8_t>(),
                                            A.Out[0].as<float>(), Pool);
      });
}

} // namespace

std::unique_ptr<Kernel> createXnnpackInt8Kernel(const KernelArgs &A,
                                                pthreadpool_t Pool) {
  using K = fb::OpKind;
  switch (A.Op.kind()) {
  case K::CONV_2D: return conv2D(A, Pool);
  case K::FULLY_CONNECTED: return fullyConnected(A, Pool);
  case K::BINARY: return addOrMultiply(A, Pool);
  case K::MAX_POOL_2D: return maxPool(A, Pool);
  case K::GLOBAL_AVERAGE_POOL_2D: return globalAveragePool(A, Pool);
  case K::QUANTIZE:
  case K::DEQUANTIZE: return convert(A, Pool);
  default: return nullptr;
  }
}

} // namespace kiln::rt

// XNNPACK kernels: each operator becomes one XNNPACK operator, created (its
// weights packed) and set up once, when the session is created, since every
// tensor address is fixed by then; a run is one xnn_run_operator. When
// XNNPACK rejects a configuration (or the operator is not one it has), the
// factory returns null and the session uses the reference kernel instead.
#include "cpu/Kernel.h"
#include "cpu/xnnpack/XnnpackAllocator.h"
#include "cpu/xnnpack/XnnpackOperatorKernel.h"

#include <xnnpack.h>

#include <limits>

namespace kiln::rt {

namespace {

const float *in(const KernelArgs &A, size_t I) {
  return I < A.In.size() && A.In[I].present() ? A.In[I].as<const float>()
                                              : nullptr;
}
float *out(const KernelArgs &A) { return A.Out[0].as<float>(); }
size_t dim(const KernelTensor &T, int64_t I) { return size_t(T.dim(I)); }

bool isFullRange(float Min, float Max) {
  return Min == -std::numeric_limits<float>::infinity() &&
         Max == std::numeric_limits<float>::infinity();
}

// Setups of the kernels a resized session keeps (XnnpackSetupFn).
xnn_status setupConv2D(xnn_operator_t Op, const KernelArgs &A,
                       pthreadpool_t Pool) {
  const KernelTensor &X = A.In[0];
  return xnn_setup_convolution2d_nhwc_f32(Op, dim(X, 0), dim(X, 1),
                                          dim(X, 2), in(A, 0), out(A),
                                          Pool);
}

xnn_status setupDeconv2D(xnn_operator_t Op, const KernelArgs &A,
                         pthreadpool_t Pool) {
  const auto &O = *A.Op.options_as_Deconv2DOptions();
  const KernelTensor &X = A.In[0];
  return xnn_setup_deconvolution2d_nhwc_f32(
      Op, dim(X, 0), dim(X, 1), dim(X, 2), O.adjustment_height(),
      O.adjustment_width(), in(A, 0), out(A), Pool);
}

xnn_status setupFullyConnected(xnn_operator_t Op, const KernelArgs &A,
                               pthreadpool_t Pool) {
  size_t Rows = 1;
  for (int64_t I = 0; I + 1 < A.In[0].rank(); ++I)
    Rows *= dim(A.In[0], I);
  return xnn_setup_fully_connected_nc_f32(Op, Rows, in(A, 0), out(A),
                                          Pool);
}

std::unique_ptr<Kernel> conv2D(const KernelArgs &A, pthreadpool_t Pool) {
  const auto &O = *A.Op.options_as_Conv2DOptions();
  const KernelTensor &X = A.In[0], &Y = A.Out[0];
  return makeRebindableXnnpackKernel(
      [&](xnn_operator_t *Op) {
        return xnn_create_convolution2d_nhwc_f32(
            O.padding_top(), O.padding_right(), O.padding_bottom(),
            O.padding_left(), O.kernel_height(), O.kernel_width(),
            O.stride_height(), O.stride_width(), O.dilation_height(),
            O.dilation_width(), O.groups(), O.group_input_channels(),
            O.group_output_channels(), dim(X, 3), dim(Y, 3), in(A, 1),
            in(A, 2), O.output_min(), O.output_max(),
            O.depthwise() ? XNN_FLAG_DEPTHWISE_CONVOLUTION : 0, Op);
      },
      setupConv2D, A, Pool);
}

std::unique_ptr<Kernel> deconv2D(const KernelArgs &A, pthreadpool_t Pool) {
  const auto &O = *A.Op.options_as_Deconv2DOptions();
  const KernelTensor &X = A.In[0], &Y = A.Out[0];
  return makeRebindableXnnpackKernel(
      [&](xnn_operator_t *Op) {
        return xnn_create_deconvolution2d_nhwc_f32(
            O.padding_top(), O.padding_right(), O.padding_bottom(),
            O.padding_left(), O.kernel_height(), O.kernel_width(),
            O.stride_height(), O.stride_width(), O.dilation_height(),
            O.dilation_width(), O.groups(), O.group_input_channels(),
            O.group_output_channels(), dim(X, 3), dim(Y, 3), in(A, 1),
            in(A, 2), O.output_min(), O.output_max(), 0, Op);
      },
      setupDeconv2D, A, Pool);
}

std::unique_ptr<Kernel> fullyConnected(const KernelArgs &A,
                                       pthreadpool_t Pool) {
  const auto &O = *A.Op.options_as_FullyConnectedOptions();
  size_t K = dim(A.In[1], 1), OC = dim(A.In[1], 0);
  return makeRebindableXnnpackKernel(
      [&](xnn_operator_t *Op) {
        return xnn_create_fully_connected_nc_f32(K, OC, K, OC, in(A, 1),
                                                 in(A, 2), O.output_min(),
                                                 O.output_max(), 0, Op);
      },
      setupFullyConnected, A, Pool);
}

std::unique_ptr<Kernel> pool2D(const KernelArgs &A, pthreadpool_t Pool) {
  const auto &O = *A.Op.options_as_Pool2DOptions();
  const KernelTensor &X = A.In[0];
  size_t C = dim(X, 3);
  auto Setup = [&](auto SetupFn) {
    return [&, SetupFn](xnn_operator_t Op) {
      return SetupFn(Op, dim(X, 0), dim(X, 1), dim(X, 2), in(A, 0), out(A),
                     Pool);
    };
  };
  if (A.Op.kind() == fb::OpKind::MAX_POOL_2D)
    return makeXnnpackKernel(
        [&](xnn_operator_t *Op) {
          return xnn_create_max_pooling2d_nhwc_f32(
              O.padding_top(), O.padding_right(), O.padding_bottom(),
              O.padding_left(), O.kernel_height(), O.kernel_width(),
              O.stride_height(), O.stride_width(), O.dilation_height(),
              O.dilation_width(), C, C, C, O.output_min(), O.output_max(), 0,
              Op);
        },
        Setup(xnn_setup_max_pooling2d_nhwc_f32));
  bool Padded = O.padding_top() || O.padding_right() || O.padding_bottom() ||
                O.padding_left();
  // XNNPACK averages over the real pixels only, and has no dilation.
  if ((O.count_include_pad() && Padded) || O.dilation_height() != 1 ||
      O.dilation_width() != 1)
    return nullptr;
  return makeXnnpackKernel(
      [&](xnn_operator_t *Op) {
        return xnn_create_average_pooling2d_nhwc_f32(
            O.padding_top(), O.padding_right(), O.padding_bottom(),
            O.padding_left(), O.kernel_height(), O.kernel_width(),
            O.stride_height(), O.stride_width(), C, C, C, O.output_min(),
            O.output_max(), 0, Op);
      },
      Setup(xnn_setup_average_pooling2d_nhwc_f32));
}

std::unique_ptr<Kernel> globalAveragePool(const KernelArgs &A,
                                          pthreadpool_t Pool) {
  const auto &O = *A.Op.options_as_Pool2DOptions();
  const KernelTensor &X = A.In[0];
  size_t C = dim(X, 3);
  return makeXnnpackKernel(
      [&](xnn_operator_t *Op) {
        return xnn_create_global_average_pooling_nwc_f32(
            C, C, C, O.output_min(), O.output_max(), 0, Op);
      },
      [&](xnn_operator_t Op) {
        return xnn_setup_global_average_pooling_nwc_f32(
            Op, dim(X, 0), dim(X, 1) * dim(X, 2), in(A, 0), out(A), Pool);
      });
}

std::unique_ptr<Kernel> binary(const KernelArgs &A, pthreadpool_t Pool) {
  const auto &O = *A.Op.options_as_BinaryOptions();
  const KernelTensor &Ta = A.In[0], &Tb = A.In[1];
  if (Ta.Desc->DType != fb::DType::F32 || Ta.rank() > XNN_MAX_TENSOR_DIMS ||
      Tb.rank() > XNN_MAX_TENSOR_DIMS)
    return nullptr;
  std::vector<size_t> SA(Ta.shape().begin(), Ta.shape().end()),
      SB(Tb.shape().begin(), Tb.shape().end());
  float Min = O.output_min(), Max = O.output_max();
  using CreateClamped = xnn_status (*)(float, float, uint32_t, xnn_operator_t *);
  using CreatePlain = xnn_status (*)(uint32_t, xnn_operator_t *);
  using SetupFn = xnn_status (*)(xnn_operator_t, size_t, const size_t *, size_t,
                                 const size_t *, const float *, const float *,
                                 float *, pthreadpool_t);
  CreateClamped Clamped = nullptr;
  CreatePlain Plain = nullptr;
  SetupFn Setup = nullptr;
  switch (O.op()) {
  case fb::BinaryOp::ADD:
    Clamped = xnn_create_add_nd_f32, Setup = xnn_setup_add_nd_f32;
    break;
  case fb::BinaryOp::SUB:
    Clamped = xnn_create_subtract_nd_f32, Setup = xnn_setup_subtract_nd_f32;
    break;
  case fb::BinaryOp::MUL:
    Clamped = xnn_create_multiply_nd_f32, Setup = xnn_setup_multiply_nd_f32;
    break;
  case fb::BinaryOp::DIV:
    Clamped = xnn_create_divide_nd_f32, Setup = xnn_setup_divide_nd_f32;
    break;
  case fb::BinaryOp::MAXIMUM:
    Plain = xnn_create_maximum_nd_f32, Setup = xnn_setup_maximum_nd_f32;
    break;
  case fb::BinaryOp::MINIMUM:
    Plain = xnn_create_minimum_nd_f32, Setup = xnn_setup_minimum_nd_f32;
    break;
  default:
    return nullptr;
  }
  if (Plain && !isFullRange(Min, Max))
    return nullptr;
  return makeXnnpackKernel(
      [&](xnn_operator_t *Op) {
        return Clamped ? Clamped(Min, Max, 0, Op) : Plain(0, Op);
      },
      [&](xnn_operator_t Op) {
        return Setup(Op, SA.size(), SA.data(), SB.size(), SB.data(), in(A, 0),
                     in(A, 1), out(A), Pool);
      });
}

std::unique_ptr<Kernel> unary(const KernelArgs &A, pthreadpool_t Pool) {
  const auto &O = *A.Op.options_as_UnaryOptions();
  // The whole tensor as one row of channels: XNNPACK then processes it as
  // one contiguous vector.
  size_t N = size_t(A.In[0].elements());
  using SimpleCreate = xnn_status (*)(size_t, size_t, size_t, uint32_t,
                                      xnn_operator_t *);
  using SetupFn = xnn_status (*)(xnn_operator_t, size_t, const float *, float *,
                                 pthreadpool_t);
  auto Simple = [&](SimpleCreate C, SetupFn S) {
    return makeXnnpackKernel([&](xnn_operator_t *Op) { return C(N, N, N, 0, Op); },
                [&](xnn_operator_t Op) { return S(Op, 1, in(A, 0), out(A), Pool); });
  };
  using U = fb::UnaryOp;
  switch (O.op()) {
  case U::CLAMP:
    return makeXnnpackKernel(
        [&](xnn_operator_t *Op) {
          return xnn_create_clamp_nc_f32(N, N, N, O.min(), O.max(), 0, Op);
        },
        [&](xnn_operator_t Op) {
          return xnn_setup_clamp_nc_f32(Op, 1, in(A, 0), out(A), Pool);
        });
  case U::LEAKY_RELU:
    return makeXnnpackKernel(
        [&](xnn_operator_t *Op) {
          return xnn_create_leaky_relu_nc_f32(N, N, N, O.alpha(), 0, Op);
        },
        [&](xnn_operator_t Op) {
          return xnn_setup_leaky_relu_nc_f32(Op, 1, in(A, 0), out(A), Pool);
        });
  case U::ELU:
    return makeXnnpackKernel(
        [&](xnn_operator_t *Op) {
          return xnn_create_elu_nc_f32(N, N, N, O.alpha(), 0, Op);
        },
        [&](xnn_operator_t Op) {
          return xnn_setup_elu_nc_f32(Op, 1, in(A, 0), out(A), Pool);
        });
  case U::ABS: return Simple(xnn_create_abs_nc_f32, xnn_setup_abs_nc_f32);
  case U::NEG: return Simple(xnn_create_negate_nc_f32, xnn_setup_negate_nc_f32);
  case U::FLOOR: return Simple(xnn_create_floor_nc_f32, xnn_setup_floor_nc_f32);
  case U::CEIL:
    return Simple(xnn_create_ceiling_nc_f32, xnn_setup_ceiling_nc_f32);
  case U::SQRT:
    return Simple(xnn_create_square_root_nc_f32, xnn_setup_square_root_nc_f32);
  case U::SQUARE:
    return Simple(xnn_create_square_nc_f32, xnn_setup_square_nc_f32);
  case U::ROUND:
    return Simple(xnn_create_bankers_rounding_nc_f32,
                  xnn_setup_bankers_rounding_nc_f32);
  case U::SIGMOID:
    return Simple(xnn_create_sigmoid_nc_f32, xnn_setup_sigmoid_nc_f32);
  case U::HARD_SWISH:
    return Simple(xnn_create_hardswish_nc_f32, xnn_setup_hardswish_nc_f32);
  default:
    return nullptr;
  }
}

std::unique_ptr<Kernel> softmax(const KernelArgs &A, pthreadpool_t Pool) {
  const auto &O = *A.Op.options_as_SoftmaxOptions();
  const KernelTensor &X = A.In[0];
  if (O.log() || O.axis() != X.rank() - 1)
    return nullptr;
  size_t C = dim(X, X.rank() - 1);
  size_t Rows = C ? size_t(X.elements()) / C : 0;
  return makeXnnpackKernel(
      [&](xnn_operator_t *Op) {
        return xnn_create_softmax_nc_f32(C, C, C, 0, Op);
      },
      [&](xnn_operator_t Op) {
        return xnn_setup_softmax_nc_f32(Op, Rows, in(A, 0), out(A), Pool);
      });
}

std::unique_ptr<Kernel> prelu(const KernelArgs &A, pthreadpool_t Pool) {
  const KernelTensor &X = A.In[0];
  size_t C = dim(X, X.rank() - 1);
  size_t Rows = C ? size_t(X.elements()) / C : 0;
  return makeXnnpackKernel(
      [&](xnn_operator_t *Op) {
        return xnn_create_prelu_nc_f32(C, C, C, in(A, 1), 0, Op);
      },
      [&](xnn_operator_t Op) {
        return xnn_setup_prelu_nc_f32(Op, Rows, in(A, 0), out(A), Pool);
      });
}

} // namespace

std::vector<int64_t> xnnpackCreationShape(const KernelArgs &A) {
  std::vector<int64_t> Shape;
  for (const KernelTensor *T : {&A.In[0], &A.Out[0]}) {
    Shape.push_back(T->rank());
    for (int64_t D = 1; D < T->rank(); ++D)
      Shape.push_back(T->dim(D));
  }
  return Shape;
}

bool xnnpackAvailable() {
  static bool Available =
      xnn_initialize(xnnpackAllocator()) == xnn_status_success;
  return Available;
}

std::unique_ptr<Kernel> createXnnpackKernel(const KernelArgs &A,
                                            pthreadpool_t Pool) {
  if (!xnnpackAvailable())
    return nullptr;
  using K = fb::OpKind;
  if (A.Op.kind() == K::QUANTIZE || A.Op.kind() == K::DEQUANTIZE ||
      (!A.In.empty() && A.In[0].present() &&
       A.In[0].Desc->DType == fb::DType::I8 && A.In[0].Desc->isQuantized()))
    return createXnnpackInt8Kernel(A, Pool);
  switch (A.Op.kind()) {
  case K::CONV_2D: return conv2D(A, Pool);
  case K::DECONV_2D: return deconv2D(A, Pool);
  case K::FULLY_CONNECTED: return fullyConnected(A, Pool);
  case K::MAX_POOL_2D:
  case K::AVERAGE_POOL_2D: return pool2D(A, Pool);
  case K::GLOBAL_AVERAGE_POOL_2D: return globalAveragePool(A, Pool);
  case K::BINARY: return binary(A, Pool);
  case K::UNARY: return unary(A, Pool);
  case K::SOFTMAX: return softmax(A, Pool);
  case K::PRELU: return prelu(A, Pool);
  default: return nullptr;
  }
}

} // namespace kiln::rt

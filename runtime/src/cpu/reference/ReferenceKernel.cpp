// createReferenceKernel: the portable kernel for each operator kind.
#include "cpu/reference/ReferenceKernels.h"

namespace kiln::rt {

std::unique_ptr<Kernel> createReferenceKernel(const KernelArgs &A) {
  using K = fb::OpKind;
  ref::RunFn Fn;
  if (!A.In.empty() && A.In[0].present() &&
      A.In[0].Desc->DType == fb::DType::I8 && A.In[0].Desc->isQuantized()) {
    switch (A.Op.kind()) {
    case K::CONV_2D: Fn = ref::int8Conv2D(A); break;
    case K::FULLY_CONNECTED: Fn = ref::int8FullyConnected(A); break;
    case K::MATMUL: Fn = ref::int8MatMul(A); break;
    case K::BINARY: Fn = ref::int8Binary(A); break;
    case K::UNARY:
      return std::make_unique<PooledFunctionKernel>(ref::int8Unary(A));
    case K::MAX_POOL_2D: Fn = ref::int8MaxPool2D(A); break;
    case K::GLOBAL_AVERAGE_POOL_2D: Fn = ref::int8GlobalAveragePool2D(A); break;
    default: break;
    }
    if (Fn)
      return std::make_unique<FunctionKernel>(std::move(Fn));
  }
  switch (A.Op.kind()) {
  case K::CONV_2D: Fn = ref::conv2D(A); break;
  case K::DECONV_2D: Fn = ref::deconv2D(A); break;
  case K::FULLY_CONNECTED: Fn = ref::fullyConnected(A); break;
  case K::MAX_POOL_2D:
  case K::AVERAGE_POOL_2D: Fn = ref::pool2D(A); break;
  case K::GLOBAL_AVERAGE_POOL_2D:
  case K::GLOBAL_MAX_POOL_2D: Fn = ref::globalPool2D(A); break;
  case K::BINARY: Fn = ref::binary(A); break;
  case K::UNARY: Fn = ref::unary(A); break;
  case K::SOFTMAX: Fn = ref::softmax(A); break;
  case K::PRELU: Fn = ref::prelu(A); break;
  case K::TRANSPOSE: Fn = ref::transpose(A); break;
  case K::RESHAPE: Fn = ref::reshape(A); break;
  case K::CONCAT: Fn = ref::concat(A); break;
  case K::SLICE: Fn = ref::slice(A); break;
  case K::PAD: Fn = ref::pad(A); break;
  case K::REDUCE: Fn = ref::reduce(A); break;
  case K::MATMUL: Fn = ref::matMul(A); break;
  case K::BROADCAST: Fn = ref::broadcast(A); break;
  case K::GATHER: Fn = ref::gather(A); break;
  case K::CAST: Fn = ref::cast(A); break;
  case K::SELECT: Fn = ref::select(A); break;
  case K::ARG_REDUCE: Fn = ref::argReduce(A); break;
  case K::LAYER_NORM: Fn = ref::layerNorm(A); break;
  case K::RESIZE: Fn = ref::resize(A); break;
  case K::BOX_NMS: Fn = ref::boxNms(A); break;
  case K::LSTM: Fn = ref::lstm(A); break;
  case K::GRU: Fn = ref::gru(A); break;
  case K::QUANTIZE:
  case K::DEQUANTIZE: Fn = ref::quantizeOrDequantize(A); break;
  case K::PIXELS_TO_TENSOR:
    return std::make_unique<PooledFunctionKernel>(ref::pixelsToTensor(A));
  case K::UNKNOWN: return nullptr; // rejected by the loader
  }
  return std::make_unique<FunctionKernel>(std::move(Fn));
}

} // namespace kiln::rt

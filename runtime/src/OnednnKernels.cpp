// oneDNN kernels (x86): f32 convolutions on oneDNN's JIT kernels, which on
// AVX-512 machines run the dense convolutions of ResNet-like models about
// twice as fast as XNNPACK's (bench/conv_ceiling.cpp). The .kiln file stays
// the same: its weights are in XNNPACK's order (OHWI / HWO), which oneDNN
// reads through a memory descriptor and reorders once, into the blocked
// layout its kernel chose, when the session is created. Activations stay
// NHWC, so these kernels mix freely with XNNPACK's and the reference ones.
//
// oneDNN's CPU runtime here is OpenMP: each run sets the calling thread's
// OpenMP thread count to the session's.
#include "Kernel.h"

#include <oneapi/dnnl/dnnl.hpp>
#include <omp.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string>
#include <unordered_map>

namespace kiln::rt {

namespace {

using dnnl::memory;
using Tag = memory::format_tag;

const dnnl::engine &cpuEngine() {
  static const dnnl::engine Engine(dnnl::engine::kind::cpu, 0);
  return Engine;
}

class OnednnConvKernel : public Kernel {
public:
  OnednnConvKernel(dnnl::convolution_forward Conv,
                   std::unordered_map<int, memory> Args, int Threads)
      : Conv(std::move(Conv)), Args(std::move(Args)),
        Stream(cpuEngine()), Threads(Threads) {}

  Status run(pthreadpool_t) override {
    omp_set_num_threads(Threads);
    try {
      Conv.execute(Stream, Args);
      Stream.wait();
    } catch (const dnnl::error &E) {
      return runtimeError("oneDNN failed to run the convolution: ", E.what());
    }
    return Status::ok();
  }
  const char *engine() const override { return "onednn"; }

private:
  dnnl::convolution_forward Conv;
  std::unordered_map<int, memory> Args;
  dnnl::stream Stream;
  int Threads;
};

/// The fused activation (a clamp to [Min, Max]) as a oneDNN post-op.
dnnl::primitive_attr clampAttr(float Min, float Max) {
  dnnl::primitive_attr Attr;
  if (Min == -INFINITY && Max == INFINITY)
    return Attr;
  dnnl::post_ops Ops;
  if (Min == 0 && Max == INFINITY)
    Ops.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f);
  else
    Ops.append_eltwise(1.f, dnnl::algorithm::eltwise_clip,
                       std::max(Min, -FLT_MAX), std::min(Max, FLT_MAX));
  Attr.set_post_ops(Ops);
  return Attr;
}

memory::dims dims(std::initializer_list<int64_t> L) {
  return memory::dims(L.begin(), L.end());
}

std::unique_ptr<Kernel> conv2D(const KernelArgs &A, int Threads) {
  const auto &O = *A.Op.options_as_Conv2DOptions();
  const KernelTensor &X = A.In[0], &W = A.In[1], &Y = A.Out[0];
  const bool HasBias = A.In.size() > 2 && A.In[2].present();
  if (X.Desc->DType != fb::DType::F32 || W.Desc->DType != fb::DType::F32 ||
      Y.Desc->DType != fb::DType::F32 ||
      (HasBias && A.In[2].Desc->DType != fb::DType::F32))
    return nullptr;
  const int64_t G = O.groups(), Gi = O.group_input_channels(),
                Go = O.group_output_channels(), KH = O.kernel_height(),
                KW = O.kernel_width();
  // XNNPACK's weights are OHWI, or [G, Go, KH, KW, Gi] when grouped, which
  // is oneDNN's gohwi; depthwise HWO is hwigo with one input per group.
  memory::desc UserW =
      O.depthwise()
          ? memory::desc(dims({G, Go, 1, KH, KW}), memory::data_type::f32,
                         Tag::hwigo)
      : G == 1 ? memory::desc(dims({Go, Gi, KH, KW}), memory::data_type::f32,
                              Tag::ohwi)
               : memory::desc(dims({G, Go, Gi, KH, KW}),
                              memory::data_type::f32, Tag::gohwi);
  memory::desc AnyW(UserW.dims(), memory::data_type::f32, Tag::any);
  memory::desc Src(dims({X.dim(0), X.dim(3), X.dim(1), X.dim(2)}),
                   memory::data_type::f32, Tag::nhwc);
  memory::desc Dst(dims({Y.dim(0), Y.dim(3), Y.dim(1), Y.dim(2)}),
                   memory::data_type::f32, Tag::nhwc);
  memory::desc Bias(dims({G * Go}), memory::data_type::f32, Tag::x);
  memory::dims Strides = dims({O.stride_height(), O.stride_width()});
  memory::dims Dilations =
      dims({int64_t(O.dilation_height()) - 1, int64_t(O.dilation_width()) - 1});
  memory::dims PadL = dims({O.padding_top(), O.padding_left()});
  memory::dims PadR = dims({O.padding_bottom(), O.padding_right()});
  try {
    const dnnl::engine &E = cpuEngine();
    using Desc = dnnl::convolution_forward::desc;
    Desc D = HasBias ? Desc(dnnl::prop_kind::forward_inference,
                            dnnl::algorithm::convolution_direct, Src, AnyW,
                            Bias, Dst, Strides, Dilations, PadL, PadR)
                     : Desc(dnnl::prop_kind::forward_inference,
                            dnnl::algorithm::convolution_direct, Src, AnyW,
                            Dst, Strides, Dilations, PadL, PadR);
    dnnl::convolution_forward::primitive_desc PD(
        D, clampAttr(O.output_min(), O.output_max()), E);
    // oneDNN's reference implementation is far slower than XNNPACK: leave
    // the operator to XNNPACK when oneDNN has no optimized kernel for it.
    if (std::string(PD.impl_info_str()).rfind("ref", 0) == 0)
      return nullptr;
    memory UserWeights(UserW, E, W.Data);
    memory Weights = UserWeights;
    if (PD.weights_desc() != UserW) {
      Weights = memory(PD.weights_desc(), E);
      dnnl::stream S(E);
      omp_set_num_threads(Threads);
      dnnl::reorder(UserWeights, Weights).execute(S, UserWeights, Weights);
      S.wait();
    }
    std::unordered_map<int, memory> Args = {
        {DNNL_ARG_SRC, memory(Src, E, X.Data)},
        {DNNL_ARG_WEIGHTS, Weights},
        {DNNL_ARG_DST, memory(Dst, E, Y.Data)}};
    if (HasBias)
      Args.emplace(DNNL_ARG_BIAS, memory(Bias, E, A.In[2].Data));
    return std::make_unique<OnednnConvKernel>(dnnl::convolution_forward(PD),
                                              std::move(Args), Threads);
  } catch (const dnnl::error &) {
    return nullptr; // a configuration oneDNN does not take: XNNPACK's turn
  }
}

} // namespace

std::unique_ptr<Kernel> createOnednnKernel(const KernelArgs &A, int Threads) {
  if (A.Op.kind() != fb::OpKind::CONV_2D)
    return nullptr;
  // XNNPACK's depthwise kernels are as fast as oneDNN's: only the dense
  // and grouped convolutions move.
  if (A.Op.options_as_Conv2DOptions()->depthwise())
    return nullptr;
  return conv2D(A, Threads);
}

} // namespace kiln::rt

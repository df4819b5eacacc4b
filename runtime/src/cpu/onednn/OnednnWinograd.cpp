// Winograd convolutions on oneDNN (x86): its F(2x2, 3x3) kernel computes a
// 3x3 stride-1 convolution with 16 multiplies per 2x2 output tile and input
// channel instead of 36. At 1 thread on this AVX-512 machine it was
// measured faster than the direct kernel on ResNet's 3x3 convolutions with
// 64 or more channels on 28x28 or larger maps, the reorders of the
// activations into and out of its nChw16c layout included; its outputs
// differ from the direct kernel's by about 5e-7 relative. It loses below
// 64 channels and on small maps, where its weights, 16/9 the size, are
// what the time goes to. docs/benchmarks.md has the figures. oneDNN's
// F(4x4, 3x3) kernel, which it prefers for some larger shapes, is not used:
// its transforms lose more precision.
#include "cpu/onednn/OnednnCommon.h"
#include "RoundUp.h"
#include "cpu/onednn/WinogradWeights.h"

namespace kiln::rt::onednn {

namespace {

using dnnl::memory;
using Tag = memory::format_tag;

constexpr int64_t MinChannels = 64, MinOutputPixels = 28 * 28;

/// A's operands are f32 (the caller checked).
bool takesWinograd(const KernelArgs &A) {
  const auto &O = *A.Op.options_as_Conv2DOptions();
  const KernelTensor &Y = A.Out[0];
  return !A.In[1].Desc->Blocked && O.groups() == 1 && !O.depthwise() &&
         O.kernel_height() == 3 && O.kernel_width() == 3 &&
         O.stride_height() == 1 && O.stride_width() == 1 &&
         O.dilation_height() == 1 && O.dilation_width() == 1 &&
         std::min(O.group_input_channels(), O.group_output_channels()) >=
             MinChannels &&
         Y.dim(1) * Y.dim(2) >= MinOutputPixels;
}

/// The weights in the layout the primitive reads (Want): transformed here
/// when it is one transformWinogradWeights writes, else by oneDNN's reorder;
/// in Arena (convertedWeights). Empty when Arena has no memory left.
memory winogradWeights(const memory::desc &Want, const KernelTensor &W,
                       WeightArena &Arena) {
  return convertedWeights(Want, Arena, [&](memory &Weights) {
    const int64_t O = W.dim(0), I = W.dim(3);
    float *Out = static_cast<float *>(Weights.get_data_handle());
    if (!transformWinogradWeights(Want.data.format_desc.wino_desc,
                                  W.as<const float>(), O, I, Out))
      reorderToWinograd(Want, W.as<const float>(), O, I, Out);
  });
}

} // namespace

void reorderToWinograd(const memory::desc &Want, const float *Ohwi, int64_t O,
                       int64_t I, void *Out) {
  const dnnl::engine &E = cpuEngine();
  const auto F32 = memory::data_type::f32;
  memory From({dims({O, I, 3, 3}), F32, Tag::ohwi}, E,
              const_cast<float *>(Ohwi)),
      Hwio({dims({O, I, 3, 3}), F32, Tag::hwio}, E), To(Want, E, Out);
  dnnl::stream S(E);
  dnnl::reorder(From, Hwio).execute(S, From, Hwio);
  dnnl::reorder(Hwio, To).execute(S, Hwio, To);
  S.wait();
}

std::unique_ptr<Kernel> createWinogradKernel(const KernelArgs &A,
                                             WeightArena &Arena) {
  if (!takesWinograd(A))
    return nullptr;
  const auto &O = *A.Op.options_as_Conv2DOptions();
  const KernelTensor &X = A.In[0], &W = A.In[1], &Y = A.Out[0];
  const bool HasBias = A.In.size() > 2 && A.In[2].present();
  const auto F32 = memory::data_type::f32;
  const memory::dims XDims = dims({X.dim(0), X.dim(3), X.dim(1), X.dim(2)}),
                     YDims = dims({Y.dim(0), Y.dim(3), Y.dim(1), Y.dim(2)});
  memory::desc Src(XDims, F32, Tag::nChw16c), Dst(YDims, F32, Tag::nChw16c),
      AnyW(dims({W.dim(0), W.dim(3), 3, 3}), F32, Tag::any),
      Bias(dims({W.dim(0)}), F32, Tag::x);
  OneOpenMpThread One;
  try {
    const dnnl::engine &E = cpuEngine();
    using Desc = dnnl::convolution_forward::desc;
    const auto Inference = dnnl::prop_kind::forward_inference;
    const auto Winograd = dnnl::algorithm::convolution_winograd;
    const memory::dims Strides = dims({1, 1}), NoDilation = dims({0, 0}),
                       PadL = dims({O.padding_top(), O.padding_left()}),
                       PadR = dims({O.padding_bottom(), O.padding_right()});
    Desc D = HasBias ? Desc(Inference, Winograd, Src, AnyW, Bias, Dst, Strides,
                            NoDilation, PadL, PadR)
                     : Desc(Inference, Winograd, Src, AnyW, Dst, Strides,
                            NoDilation, PadL, PadR);
    dnnl::convolution_forward::primitive_desc PD(
        D, f32Attr(O.output_min(), O.output_max()), E);
    if (!seekImplementation(PD, named("wino_2x3")))
      return nullptr;
    // The NHWC input into an nChw16c copy, the convolution, its nChw16c
    // output back to NHWC. The two copies live in the session's scratch
    // buffer: the input's at 0, the output's after it, then the
    // convolution's scratchpad (its transformed tiles).
    memory UserX({XDims, F32, Tag::nhwc}, E, X.Data),
        BlockedX(PD.src_desc(), E, DNNL_MEMORY_NONE),
        BlockedY(PD.dst_desc(), E, DNNL_MEMORY_NONE),
        UserY({YDims, F32, Tag::nhwc}, E, Y.Data);
    const size_t OutputOffset = roundUp(PD.src_desc().get_size(), 64),
                 PadOffset = OutputOffset + roundUp(PD.dst_desc().get_size(), 64);
    memory Weights = winogradWeights(PD.weights_desc(), W, Arena);
    if (!Weights)
      return nullptr;
    std::unordered_map<int, memory> Args = {{DNNL_ARG_SRC, BlockedX},
                                            {DNNL_ARG_WEIGHTS, Weights},
                                            {DNNL_ARG_DST, BlockedY}};
    if (HasBias)
      Args.emplace(DNNL_ARG_BIAS, memory(Bias, E, A.In[2].Data));
    std::vector<ScratchMemory> Scratch = {{BlockedX, 0},
                                          {BlockedY, OutputOffset}};
    bindScratchpad(PD.scratchpad_desc(), PadOffset, Args, Scratch);
    std::vector<BoundPrimitive> Steps;
    Steps.push_back({dnnl::reorder(UserX, BlockedX),
                     {{DNNL_ARG_FROM, UserX}, {DNNL_ARG_TO, BlockedX}}});
    Steps.push_back({dnnl::convolution_forward(PD), std::move(Args)});
    Steps.push_back({dnnl::reorder(BlockedY, UserY),
                     {{DNNL_ARG_FROM, BlockedY}, {DNNL_ARG_TO, UserY}}});
    return std::make_unique<OnednnKernel>(std::move(Steps), std::nullopt,
                                          std::move(Scratch));
  } catch (const dnnl::error &) {
    return nullptr; // oneDNN has no Winograd kernel for it on this CPU
  }
}

} // namespace kiln::rt::onednn

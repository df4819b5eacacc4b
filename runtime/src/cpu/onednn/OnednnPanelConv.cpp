// f32 convolutions on PanelConv.h's kernel, with weights converted by
// oneDNN's reorder into the blocked layout that kernel reads (oneDNN's
// Acdb64a: 64 output channels innermost), which `--prepack native` files
// then store. Measured at 1 thread on the benchmark's AVX-512 machine with
// the weights rotated out of cache, against oneDNN's own kernel on the same
// weights, it is faster on 7x7 maps (2048 -> 512 1x1, 512 -> 512 3x3) in
// 64-channel panels, which overall beat 48- and 32-channel ones. On 14x14
// maps it is no faster than oneDNN's, so it runs only on the small maps
// (panelConvPrefers). docs/benchmarks.md has the figures.
#include "cpu/onednn/OnednnCommon.h"
#include "cpu/panel/PanelConv.h"

namespace kiln::rt::onednn {

namespace {

using dnnl::memory;

constexpr int64_t PanelBlock = 64;

class PanelConvKernel : public Kernel {
public:
  PanelConvKernel(const PanelConvProblem &P, memory Weights,
                  std::optional<ConvertedWeight> Converted)
      : P(P), Weights(std::move(Weights)), Converted(std::move(Converted)) {}

  Status run(pthreadpool_t) override {
    P.Weights = static_cast<const float *>(Weights.get_data_handle());
    runPanelConv(P, Scratch);
    return Status::ok();
  }
  const char *engine() const override { return "kiln"; }
  std::optional<PackedWeights> packedWeights() const override {
    if (!Converted)
      return std::nullopt;
    return packedWeightsOf(Weights, *Converted);
  }
  size_t scratchBytes() const override { return panelConvScratchBytes(P); }
  void bindScratch(uint8_t *Base) override { Scratch = Base; }

private:
  PanelConvProblem P;
  memory Weights;
  std::optional<ConvertedWeight> Converted;
  uint8_t *Scratch = nullptr;
};

/// The convolution of A as a PanelConvProblem, with its weights unset.
PanelConvProblem problemOf(const KernelArgs &A, const FusedAdd *Add) {
  const auto &O = *A.Op.options_as_Conv2DOptions();
  const KernelTensor &X = A.In[0], &Y = Add ? Add->Out : A.Out[0];
  PanelConvProblem P;
  P.X = X.as<const float>();
  P.IH = X.dim(1), P.IW = X.dim(2), P.IC = X.dim(3);
  P.Y = Y.as<float>();
  P.OH = Y.dim(1), P.OW = Y.dim(2), P.OC = Y.dim(3);
  P.KH = O.kernel_height(), P.KW = O.kernel_width();
  P.StrideH = O.stride_height(), P.StrideW = O.stride_width();
  P.PadTop = O.padding_top(), P.PadLeft = O.padding_left();
  P.Block = PanelBlock;
  if (A.In.size() > 2 && A.In[2].present())
    P.Bias = A.In[2].as<const float>();
  P.Min = O.output_min(), P.Max = O.output_max();
  if (Add) {
    P.Add = true;
    P.AddMin = Add->Min, P.AddMax = Add->Max;
  }
  return P;
}

} // namespace

std::unique_ptr<Kernel> createPanelConvKernel(const KernelArgs &A,
                                              const memory::desc &UserW,
                                              WeightArena &Arena,
                                              const FusedAdd *Add) {
  const auto &O = *A.Op.options_as_Conv2DOptions();
  if (O.groups() != 1 || O.depthwise() || O.dilation_height() != 1 ||
      O.dilation_width() != 1 || A.In[0].dim(0) != 1 || !panelConvRuns())
    return nullptr;
  PanelConvProblem P = problemOf(A, Add);
  if (!panelConvPrefers(P))
    return nullptr;
  try {
    memory::desc Want(UserW.dims(), memory::data_type::f32,
                      memory::format_tag::Acdb64a);
    OneOpenMpThread One;
    memory Weights = bindWeights(Want, UserW, A.In[1].Data, Arena);
    if (!Weights)
      return nullptr;
    std::optional<ConvertedWeight> Converted;
    if (Want != UserW)
      Converted = ConvertedWeight{&OhwiAxesOfOihw, UserW};
    return std::make_unique<PanelConvKernel>(P, std::move(Weights),
                                             std::move(Converted));
  } catch (const dnnl::error &) {
    return nullptr;
  }
}

} // namespace kiln::rt::onednn

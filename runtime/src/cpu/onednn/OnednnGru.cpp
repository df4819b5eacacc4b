// An f32 GRU as oneDNN's GRU primitive (gru_forward; with
// linear_before_reset, PyTorch's form, lbr_gru_forward), one layer, left to
// right. oneDNN's gates u, r, o are ONNX's z, r, h in the same order, and
// its LBR bias [u, r, o, u'] is the file's [4H] (u' the candidate's
// recurrent bias), so the file's w [3H, I] and r [3H, H] are ldgoi as they
// stand: they are reordered into the primitive's own layout in the
// session's weight arena once, when the session is created. x and y are
// tnc (time major) or ntc; h0, when the file gives it, and y_h are ldnc
// with one layer and one direction. The reference kernel (GruKernel.cpp) is
// the fallback where oneDNN declines.
#include "cpu/onednn/OnednnCommon.h"
#include "cpu/WeightArena.h"

#include <algorithm>

namespace kiln::rt::onednn {

namespace {

using memory = dnnl::memory;
using Tag = memory::format_tag;

/// The primitive's weights (Want) in Arena, from the file's [3H, Cols] rows.
memory gruWeights(const memory::desc &Want, const float *Rows, int64_t H,
                  int64_t Cols, WeightArena &Arena) {
  return convertedWeights(Want, Arena, [&](memory &Weights) {
    memory::desc UserDesc(memory::dims({1, 1, Cols, 3, H}),
                          memory::data_type::f32, Tag::ldgoi);
    memory Src(UserDesc, cpuEngine(), const_cast<float *>(Rows));
    dnnl::stream S(cpuEngine());
    dnnl::reorder(Src, Weights).execute(S, Src, Weights);
    S.wait();
  });
}

/// The GRU (Primitive: gru_forward or lbr_gru_forward) over A's tensors.
template <typename Primitive>
std::unique_ptr<Kernel> gruWith(const KernelArgs &A, WeightArena &Arena,
                                int64_t BiasGates) {
  const auto &O = *A.Op.options_as_GruOptions();
  const KernelTensor &X = A.In[0], &W = A.In[1], &R = A.In[2], &Y = A.Out[0];
  auto Present = [&](size_t I) { return I < A.In.size() && A.In[I].present(); };
  const bool TimeMajor = O.time_major(), HasYh = A.Out.size() > 1;
  const int64_t T = X.dim(TimeMajor ? 0 : 1), N = X.dim(TimeMajor ? 1 : 0),
                I = X.dim(2), H = O.hidden_size();
  const auto F32 = memory::data_type::f32;
  const Tag Seq = TimeMajor ? Tag::tnc : Tag::ntc;
  memory::desc Src(memory::dims({T, N, I}), F32, Seq);
  memory::desc Dst(memory::dims({T, N, H}), F32, Seq);
  memory::desc State(memory::dims({1, 1, N, H}), F32, Tag::ldnc);
  memory::desc AnyLayer(memory::dims({1, 1, I, 3, H}), F32, Tag::any);
  memory::desc AnyIter(memory::dims({1, 1, H, 3, H}), F32, Tag::any);
  memory::desc Bias(memory::dims({1, 1, BiasGates, H}), F32, Tag::ldgo);
  OneOpenMpThread One;
  try {
    typename Primitive::desc D(
        dnnl::prop_kind::forward_inference,
        dnnl::rnn_direction::unidirectional_left2right, Src,
        Present(4) ? State : memory::desc(), AnyLayer, AnyIter, Bias, Dst,
        HasYh ? State : memory::desc());
    typename Primitive::primitive_desc PD(
        D, withSessionScratchpad(dnnl::primitive_attr()), cpuEngine());
    memory Layer = gruWeights(PD.weights_layer_desc(), W.as<const float>(), H,
                              I, Arena);
    memory Iter = gruWeights(PD.weights_iter_desc(), R.as<const float>(), H,
                             H, Arena);
    if (!Layer || !Iter)
      return nullptr;
    // The bias (zeros without one), in memory the primitive's memory object
    // owns.
    const dnnl::engine &E = cpuEngine();
    memory BiasMemory(Bias, E);
    float *BiasValues = static_cast<float *>(BiasMemory.get_data_handle());
    if (Present(3))
      std::copy_n(A.In[3].as<const float>(), BiasGates * H, BiasValues);
    else
      std::fill_n(BiasValues, BiasGates * H, 0.0f);
    std::unordered_map<int, memory> Args = {
        {DNNL_ARG_SRC_LAYER, memory(Src, E, X.Data)},
        {DNNL_ARG_WEIGHTS_LAYER, Layer},
        {DNNL_ARG_WEIGHTS_ITER, Iter},
        {DNNL_ARG_BIAS, BiasMemory},
        {DNNL_ARG_DST_LAYER, memory(Dst, E, Y.Data)}};
    if (Present(4))
      Args.emplace(DNNL_ARG_SRC_ITER, memory(State, E, A.In[4].Data));
    if (HasYh)
      Args.emplace(DNNL_ARG_DST_ITER, memory(State, E, A.Out[1].Data));
    std::vector<ScratchMemory> Scratch;
    bindScratchpad(PD.scratchpad_desc(), 0, Args, Scratch);
    std::vector<BoundPrimitive> Steps;
    Steps.push_back({Primitive(PD), std::move(Args)});
    return std::make_unique<OnednnKernel>(std::move(Steps), std::nullopt,
                                          std::move(Scratch));
  } catch (const dnnl::error &) {
    return nullptr;
  }
}

} // namespace

std::unique_ptr<Kernel> gru(const KernelArgs &A, WeightArena &Arena) {
  if (A.Op.options_as_GruOptions()->linear_before_reset())
    return gruWith<dnnl::lbr_gru_forward>(A, Arena, 4);
  return gruWith<dnnl::gru_forward>(A, Arena, 3);
}

} // namespace kiln::rt::onednn

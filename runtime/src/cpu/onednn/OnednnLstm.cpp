// An f32 LSTM as oneDNN's LSTM primitive (lstm_forward, one layer, left to
// right). The file stores w [4H, I], r [4H, H] and b [4H] with ONNX's gate
// rows (i, o, f, c); oneDNN takes its gates in the order i, f, c, o, so the
// weights are written once, when the session is created, in that order
// (ldgoi: gate, output, input) and reordered into the primitive's own
// layout in the session's weight arena. x and y are tnc (time major) or
// ntc; the initial states, when the file gives them, and y_h are ldnc with
// one layer and one direction. The reference kernel (LstmKernel.cpp) is
// the fallback where oneDNN declines.
#include "cpu/onednn/OnednnCommon.h"
#include "cpu/WeightArena.h"

#include <algorithm>

namespace kiln::rt::onednn {

namespace {

using memory = dnnl::memory;
using Tag = memory::format_tag;

/// oneDNN's gate g (i, f, c, o) is the file's gate OnnxGate[g] (i, o, f, c).
constexpr int64_t OnnxGate[4] = {0, 2, 3, 1};

/// Rows [4H, Cols] in the file's gate order as ldgoi in oneDNN's: gate, then
/// the H outputs, then Cols inputs (a bias: Cols 1).
std::vector<float> oneDnnGates(const float *Rows, int64_t H, int64_t Cols) {
  std::vector<float> Out(size_t(4 * H * Cols));
  for (int64_t G = 0; G < 4; ++G)
    std::copy(Rows + OnnxGate[G] * H * Cols, Rows + (OnnxGate[G] + 1) * H * Cols,
              Out.begin() + G * H * Cols);
  return Out;
}

/// The primitive's weights (Want) in Arena, from the file's rows.
memory gateWeights(const memory::desc &Want, const float *Rows, int64_t H,
                   int64_t Cols, WeightArena &Arena) {
  return convertedWeights(Want, Arena, [&](memory &Weights) {
    std::vector<float> User = oneDnnGates(Rows, H, Cols);
    memory::desc UserDesc(memory::dims({1, 1, Cols, 4, H}),
                          memory::data_type::f32, Tag::ldgoi);
    memory Src(UserDesc, cpuEngine(), User.data());
    dnnl::stream S(cpuEngine());
    dnnl::reorder(Src, Weights).execute(S, Src, Weights);
    S.wait();
  });
}

} // namespace

std::unique_ptr<Kernel> lstm(const KernelArgs &A, WeightArena &Arena) {
  const auto &O = *A.Op.options_as_LstmOptions();
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
  memory::desc AnyLayer(memory::dims({1, 1, I, 4, H}), F32, Tag::any);
  memory::desc AnyIter(memory::dims({1, 1, H, 4, H}), F32, Tag::any);
  memory::desc Bias(memory::dims({1, 1, 4, H}), F32, Tag::ldgo);
  OneOpenMpThread One;
  try {
    dnnl::lstm_forward::desc D(
        dnnl::prop_kind::forward_inference,
        dnnl::rnn_direction::unidirectional_left2right, Src,
        Present(4) ? State : memory::desc(), Present(5) ? State : memory::desc(),
        AnyLayer, AnyIter, Bias, Dst, HasYh ? State : memory::desc(),
        memory::desc());
    dnnl::lstm_forward::primitive_desc PD(
        D, withSessionScratchpad(dnnl::primitive_attr()), cpuEngine());
    memory Layer = gateWeights(PD.weights_layer_desc(), W.as<const float>(), H,
                               I, Arena);
    memory Iter = gateWeights(PD.weights_iter_desc(), R.as<const float>(), H,
                              H, Arena);
    if (!Layer || !Iter)
      return nullptr;
    // The bias in oneDNN's gate order (zeros without one), in memory the
    // primitive's memory object owns.
    const dnnl::engine &E = cpuEngine();
    memory BiasMemory(Bias, E);
    std::vector<float> BiasValues =
        Present(3) ? oneDnnGates(A.In[3].as<const float>(), H, 1)
                   : std::vector<float>(size_t(4 * H), 0.0f);
    std::copy(BiasValues.begin(), BiasValues.end(),
              static_cast<float *>(BiasMemory.get_data_handle()));
    std::unordered_map<int, memory> Args = {
        {DNNL_ARG_SRC_LAYER, memory(Src, E, X.Data)},
        {DNNL_ARG_WEIGHTS_LAYER, Layer},
        {DNNL_ARG_WEIGHTS_ITER, Iter},
        {DNNL_ARG_BIAS, BiasMemory},
        {DNNL_ARG_DST_LAYER, memory(Dst, E, Y.Data)}};
    if (Present(4))
      Args.emplace(DNNL_ARG_SRC_ITER, memory(State, E, A.In[4].Data));
    if (Present(5))
      Args.emplace(DNNL_ARG_SRC_ITER_C, memory(State, E, A.In[5].Data));
    if (HasYh)
      Args.emplace(DNNL_ARG_DST_ITER, memory(State, E, A.Out[1].Data));
    std::vector<ScratchMemory> Scratch;
    bindScratchpad(PD.scratchpad_desc(), 0, Args, Scratch);
    std::vector<BoundPrimitive> Steps;
    Steps.push_back({dnnl::lstm_forward(PD), std::move(Args)});
    return std::make_unique<OnednnKernel>(std::move(Steps), std::nullopt,
                                          std::move(Scratch));
  } catch (const dnnl::error &) {
    return nullptr;
  }
}

} // namespace kiln::rt::onednn

// oneDNN kernels (x86): convolutions on oneDNN's JIT kernels. On AVX-512
// its f32 kernels were measured faster than XNNPACK's on ResNet's 3x3
// convolutions (bench/conv_ceiling.cpp), and with AMX its int8 kernels much
// faster than its f32 ones; docs/benchmarks.md has the figures. A portable
// .kiln file keeps its weights in XNNPACK's order (OHWI / HWO), which oneDNN
// reads through a memory descriptor and reorders once, into the blocked
// layout its kernel chose, when the session is created. A file converted
// with `--prepack native` holds the f32 weights in that blocked layout
// already (BlockedLayout.h): on the CPU it was made for they are used in
// place from the mapping, and elsewhere reordered from it. Activations stay
// NHWC, so these kernels mix freely with XNNPACK's and the reference ones.
// The 3x3 convolutions that run faster on oneDNN's Winograd kernel go there
// instead (OnednnWinograd.cpp).
//
// oneDNN's CPU runtime here is OpenMP, whose worker threads spin between
// parallel regions: next to XNNPACK's pthreadpool they fight it for the
// cores, which was measured to slow a multi-threaded run many times over
// (docs/benchmarks.md has the figures). So
// only single-threaded sessions use these kernels, and they run oneDNN with
// an OpenMP team of one (no OpenMP threads at all), setting the calling
// thread's OpenMP thread count for the call and restoring it after.
#include "loader/BlockedLayout.h"
#include "cpu/onednn/OnednnCommon.h"
#include "QuantBounds.h"

#if __has_include(<omp.h>)
#include <omp.h>
#else
// The OpenMP runtime's C API (libgomp is linked; clang without libomp-dev
// has no omp.h).
extern "C" {
int omp_get_max_threads(void);
void omp_set_num_threads(int);
}
#endif

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <optional>
#include <string>
#include <unordered_map>

namespace kiln::rt {

namespace onednn {

OneOpenMpThread::OneOpenMpThread() : Before(omp_get_max_threads()) {
  omp_set_num_threads(1);
}
OneOpenMpThread::~OneOpenMpThread() { omp_set_num_threads(Before); }

namespace {

/// Appends a clamp to [Min, Max] (a fused activation), if it clamps.
void appendClamp(dnnl::post_ops &Ops, float Min, float Max) {
  if (Min == -INFINITY && Max == INFINITY)
    return;
  if (Min == 0 && Max == INFINITY)
    Ops.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f);
  else
    Ops.append_eltwise(1.f, dnnl::algorithm::eltwise_clip,
                       std::max(Min, -FLT_MAX), std::min(Max, FLT_MAX));
}

} // namespace

/// The add's other operand is the destination's content: the session places
/// the add's output in its bytes. oneDNN's fastest kernels here (brgconv)
/// take a sum post-op but not a binary one.
dnnl::primitive_attr f32Attr(float Min, float Max, const FusedAdd *Add,
                             const FusedGelu *Gelu) {
  dnnl::post_ops Ops;
  appendClamp(Ops, Min, Max);
  if (Add) {
    Ops.append_sum(1.f);
    appendClamp(Ops, Add->Min, Add->Max);
  }
  if (Gelu)
    Ops.append_eltwise(1.f,
                       Gelu->Tanh ? dnnl::algorithm::eltwise_gelu_tanh
                                  : dnnl::algorithm::eltwise_gelu_erf,
                       0.f, 0.f);
  dnnl::primitive_attr Attr;
  Attr.set_post_ops(Ops);
  return withSessionScratchpad(std::move(Attr));
}

dnnl::primitive_attr withSessionScratchpad(dnnl::primitive_attr Attr) {
  Attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return Attr;
}

void bindScratchpad(const dnnl::memory::desc &Desc, size_t Offset,
                    std::unordered_map<int, dnnl::memory> &Args,
                    std::vector<ScratchMemory> &Scratch) {
  if (Desc.get_size() == 0)
    return;
  dnnl::memory Pad(Desc, cpuEngine(), DNNL_MEMORY_NONE);
  Args.emplace(DNNL_ARG_SCRATCHPAD, Pad);
  Scratch.push_back({Pad, Offset});
}

} // namespace onednn

namespace {

using dnnl::memory;
using Tag = memory::format_tag;
using namespace onednn;

} // namespace

namespace onednn {

const std::vector<int32_t> OhwiAxesOfOihw = {0, 3, 1, 2};

namespace {

/// oneDNN's dims {O, I} of an inner product's OI weight.
const std::vector<int32_t> OiAxesOfOi = {0, 1};

const char *isaName(dnnl::cpu_isa Isa) {
  using I = dnnl::cpu_isa;
  switch (Isa) {
  case I::sse41: return "sse41";
  case I::avx: return "avx";
  case I::avx2: return "avx2";
  case I::avx2_vnni: return "avx2_vnni";
  case I::avx512_core: return "avx512_core";
  case I::avx512_core_vnni: return "avx512_core_vnni";
  case I::avx512_core_bf16: return "avx512_core_bf16";
  case I::avx512_core_amx: return "avx512_core_amx";
  default: return "other";
  }
}

} // namespace

/// The oneDNN descriptor of an f32 weight stored BLOCKED, whose oneDNN
/// dims are the weight's axes Order, or nullopt when the layout orders them
/// otherwise.
std::optional<memory::desc>
blockedWeightsDesc(const TensorDesc &W, const std::vector<int32_t> &Order) {
  const BlockedDesc &L = *W.Blocked;
  if (L.Order != Order || L.InnerBlocks.size() > DNNL_MAX_NDIMS)
    return std::nullopt;
  dnnl_memory_desc_t C{};
  C.ndims = int(Order.size());
  C.data_type = dnnl_f32;
  C.format_kind = dnnl_blocked;
  for (size_t K = 0; K < Order.size(); ++K) {
    C.dims[K] = W.Shape[size_t(L.Order[K])];
    C.padded_dims[K] = L.Padded[K];
    C.format_desc.blocking.strides[K] = L.Strides[K];
  }
  C.format_desc.blocking.inner_nblks = int(L.InnerBlocks.size());
  for (size_t B = 0; B < L.InnerBlocks.size(); ++B) {
    C.format_desc.blocking.inner_blks[B] = L.InnerBlocks[B];
    C.format_desc.blocking.inner_idxs[B] = L.InnerDims[B];
  }
  memory::desc D(C);
  if (D.get_size() > W.StoredBytes) // the loader's size is oneDNN's; never
    return std::nullopt;            // read past the segment regardless
  return D;
}

/// An f32 weight in oneDNN's blocked layout, as the file stores it (its
/// oneDNN dims are the weight's axes W.Order), converted from W.Stored; or
/// nullopt when the layout is not a plain blocked one.
std::optional<PackedWeights> packedWeightsOf(const memory &Weights,
                                             const ConvertedWeight &W) {
  const memory::desc Want = Weights.get_desc();
  const dnnl_memory_desc_t &C = Want.data;
  if (C.ndims != int(W.Order->size()) || C.format_kind != dnnl_blocked ||
      C.offset0 != 0 || C.extra.flags != 0 || C.data_type != dnnl_f32)
    return std::nullopt;
  PackedWeights P;
  P.Layout.Library = "onednn";
  P.Layout.Isa = isaName(dnnl::get_effective_cpu_isa());
  P.Layout.Order = *W.Order;
  for (int K = 0; K < C.ndims; ++K) {
    if (C.padded_offsets[K] != 0)
      return std::nullopt;
    P.Layout.Padded.push_back(C.padded_dims[K]);
    P.Layout.Strides.push_back(C.format_desc.blocking.strides[K]);
  }
  for (int B = 0; B < C.format_desc.blocking.inner_nblks; ++B) {
    P.Layout.InnerBlocks.push_back(C.format_desc.blocking.inner_blks[B]);
    P.Layout.InnerDims.push_back(int32_t(C.format_desc.blocking.inner_idxs[B]));
  }
  P.Data = static_cast<const uint8_t *>(Weights.get_data_handle());
  P.Bytes = Want.get_size();
  OneOpenMpThread Creating;
  try { // the same conversion the session made, made again at will
    P.Pack = [Reorder = dnnl::reorder(dnnl::reorder::primitive_desc(
                  cpuEngine(), W.Stored, cpuEngine(), Want)),
              Stored = W.Stored, Want](const uint8_t *In, uint8_t *Out) {
      const dnnl::engine &E = cpuEngine();
      // oneDNN writes the padding too, as zeros (LayoutOnlySessionTest).
      memory From(Stored, E, const_cast<uint8_t *>(In)), To(Want, E, Out);
      OneOpenMpThread One;
      try {
        dnnl::stream S(E);
        Reorder.execute(S, From, To);
        S.wait();
      } catch (const dnnl::error &) {
        return false;
      }
      return true;
    };
  } catch (const dnnl::error &) {
    return std::nullopt;
  }
  return P;
}

/// The weights as the primitive reads them (Want): the file's bytes in
/// place when their layout (Have) is that one, else a reordered copy in
/// Arena (convertedWeights). Empty when Arena has no memory left.
memory bindWeights(const memory::desc &Want, const memory::desc &Have,
                   const uint8_t *Data, WeightArena &Arena) {
  const dnnl::engine &E = cpuEngine();
  memory Stored(Have, E, const_cast<uint8_t *>(Data));
  if (Want == Have)
    return Stored;
  return convertedWeights(Want, Arena, [&](memory &Weights) {
    dnnl::stream S(E);
    dnnl::reorder(Stored, Weights).execute(S, Stored, Weights);
    S.wait();
  });
}

} // namespace onednn

namespace {

using namespace onednn;

/// An int8 result's zero point, and the clamp [Min, Max] as a clip in the
/// scaled domain before oneDNN adds that zero point and saturates.
void setInt8Output(dnnl::primitive_attr &Attr, const TensorDesc &YD,
                   float Min, float Max) {
  const int32_t YZ = int32_t(YD.ZeroPoints[0]);
  Attr.set_zero_points(DNNL_ARG_DST, 0, {YZ});
  const int Lo = quantizedLower(Min, YD), Hi = quantizedUpper(Max, YD);
  if (Lo > -128 || Hi < 127) {
    dnnl::post_ops Ops;
    Ops.append_eltwise(1.f, dnnl::algorithm::eltwise_clip, float(Lo - YZ),
                       float(Hi - YZ));
    Attr.set_post_ops(Ops);
  }
}

/// The int8 convolution's requantization as oneDNN attributes: the source
/// and destination zero points, per-output-channel scales x_scale *
/// w_scale[c] / y_scale applied to the int32 sum (bias included), and the
/// fused activation as a clip in the scaled domain, before oneDNN adds the
/// destination zero point and saturates.
dnnl::primitive_attr int8Attr(const KernelArgs &A) {
  const auto &O = *A.Op.options_as_Conv2DOptions();
  const TensorDesc &XD = *A.In[0].Desc, &WD = *A.In[1].Desc,
                   &YD = *A.Out[0].Desc;
  std::vector<float> Scales(size_t(A.Out[0].dim(3)));
  for (size_t C = 0; C < Scales.size(); ++C)
    Scales[C] = XD.Scales[0] * WD.Scales[WD.Scales.size() == 1 ? 0 : C] /
                YD.Scales[0];
  dnnl::primitive_attr Attr;
  Attr.set_output_scales(1 << 1, Scales);
  Attr.set_zero_points(DNNL_ARG_SRC, 0, {int32_t(XD.ZeroPoints[0])});
  setInt8Output(Attr, YD, O.output_min(), O.output_max());
  return withSessionScratchpad(std::move(Attr));
}

/// Whether an int8 convolution should skip oneDNN's AMX kernels for its
/// AVX-512 VNNI ones: a small pointwise convolution on a 14x14 or larger map.
/// oneDNN 2.6 runs those with its AMX 1x1 kernel, which has a fixed cost per
/// call however little it computes. Measured per layer on an AMX Xeon core
/// (MobileNetV2 and ResNet-18/50 int8): VNNI is faster than AMX below about
/// 11 million multiply-adds and slower above it; on 7x7 maps oneDNN's other
/// AMX kernel has no such floor. docs/benchmarks.md has the figures. On CPUs
/// without AMX there is nothing to choose.
bool prefersVnniOverAmx(const fb::Conv2DOptions &O, const KernelTensor &Y) {
  constexpr int64_t MaxMultiplyAdds = 11'000'000, MinOutputPixels = 14 * 14;
  if (O.kernel_height() != 1 || O.kernel_width() != 1 || O.groups() != 1 ||
      O.stride_height() != 1 || O.stride_width() != 1)
    return false;
  int64_t Pixels = Y.dim(1) * Y.dim(2);
  return Pixels >= MinOutputPixels &&
         Pixels * O.group_input_channels() * O.group_output_channels() <
             MaxMultiplyAdds;
}

/// Whether oneDNN's int8 kernel runs on weights it stores at a reduced
/// scale (memory_extra_flag_scale_adjust). Without VNNI, oneDNN multiplies
/// u8 x s8 pairs into 16-bit sums that saturate (vpmaddubsw), and its
/// remedy is to halve every weight when it reorders them, which rounds away
/// the last bit of each odd weight: the outputs then land up to 27 quanta
/// from exact arithmetic (Int8KernelTest). XNNPACK's qc8 kernels are exact
/// on those CPUs, so such a convolution is left to XNNPACK. Decided from
/// the kernel oneDNN picks for this CPU (or the ISA ONEDNN_MAX_CPU_ISA caps
/// it to) when the session is created.
bool scalesWeightsDown(const dnnl::convolution_forward::primitive_desc &PD) {
  const dnnl_memory_desc_t &W = PD.weights_desc().data;
  return (W.extra.flags & dnnl_memory_extra_flag_scale_adjust) != 0 &&
         W.extra.scale_adjust != 1.f;
}

bool isAmx(const dnnl::convolution_forward::primitive_desc &PD) {
  return named("amx")(PD.impl_info_str());
}

/// The first of oneDNN's implementations for D that does not use AMX, if it
/// is an optimized one.
std::optional<dnnl::convolution_forward::primitive_desc>
nonAmxImplementation(const dnnl::convolution_forward::desc &D,
                     const dnnl::primitive_attr &Attr,
                     const dnnl::engine &E) {
  dnnl::convolution_forward::primitive_desc PD(D, Attr, E);
  auto NotAmx = [](const std::string &Impl) { return !named("amx")(Impl); };
  if (!seekImplementation(PD, NotAmx) || isReference(PD.impl_info_str()))
    return std::nullopt;
  return PD;
}

/// An activation or bias operand: its descriptor and bytes (null: absent).
struct Operand {
  memory::desc Desc;
  uint8_t *Data;
};

/// The kernel running Prim on Src, the weights and the bias (when present),
/// writing Dst, with its scratchpad (Scratchpad, maybe empty) at the start
/// of the session's scratch buffer.
std::unique_ptr<Kernel> boundKernel(dnnl::primitive Prim,
                                    const memory::desc &Scratchpad,
                                    const Operand &Src, memory Weights,
                                    const Operand &Bias,
                                    const Operand &Dst,
                                    std::optional<ConvertedWeight> Converted) {
  const dnnl::engine &E = cpuEngine();
  std::unordered_map<int, memory> Args = {
      {DNNL_ARG_SRC, memory(Src.Desc, E, Src.Data)},
      {DNNL_ARG_WEIGHTS, std::move(Weights)},
      {DNNL_ARG_DST, memory(Dst.Desc, E, Dst.Data)}};
  if (Bias.Data)
    Args.emplace(DNNL_ARG_BIAS, memory(Bias.Desc, E, Bias.Data));
  std::vector<ScratchMemory> Scratch;
  bindScratchpad(Scratchpad, 0, Args, Scratch);
  std::vector<BoundPrimitive> Steps;
  Steps.push_back({std::move(Prim), std::move(Args)});
  return std::make_unique<OnednnKernel>(std::move(Steps), std::move(Converted),
                                        std::move(Scratch));
}

/// Weights above this many bytes outgrow L2 between runs, so a one-row fully
/// connected layer streams them from memory every run.
constexpr uint64_t GemvMinWeightBytes = uint64_t(1) << 20;

/// oneDNN's implementation for D: its GEMV (x64:gemm:jit) when Gemv and it
/// has one, else its first. At one row, GEMV reads the weights in their
/// plain OI order, which brgemm would copy into a blocked layout, and was
/// measured to stream them faster when they come from memory (single thread,
/// weights rotated out of cache); brgemm is faster on weights L2 keeps.
/// docs/benchmarks.md has the figures.
dnnl::inner_product_forward::primitive_desc
innerProductImplementation(const dnnl::inner_product_forward::desc &D,
                           const dnnl::primitive_attr &Attr, bool Gemv) {
  dnnl::inner_product_forward::primitive_desc PD(D, Attr, cpuEngine());
  if (Gemv && !seekImplementation(PD, named("gemm:jit")))
    PD = dnnl::inner_product_forward::primitive_desc(D, Attr, cpuEngine());
  return PD;
}

/// An f32 FULLY_CONNECTED as oneDNN's inner product: the rows of x (all its
/// dims but the last) times the weight [O, I], plus the bias, clamped, and
/// with Gelu the GELU after it (a post-op) into Gelu's output. The
/// weight is read in place when the file stores it in the layout the
/// primitive wants (plain OI for GEMV, or BLOCKED).
std::unique_ptr<Kernel> fullyConnected(const KernelArgs &A, WeightArena &Arena,
                                       const FusedGelu *Gelu) {
  const auto &O = *A.Op.options_as_FullyConnectedOptions();
  const KernelTensor &X = A.In[0], &W = A.In[1],
                     &Y = Gelu ? Gelu->Out : A.Out[0];
  const bool HasBias = A.In.size() > 2 && A.In[2].present();
  const auto F32 = fb::DType::F32;
  if (X.Desc->DType != F32 || W.Desc->DType != F32 || Y.Desc->DType != F32 ||
      (HasBias && A.In[2].Desc->DType != F32))
    return nullptr;
  const int64_t Outputs = W.dim(0), Inputs = W.dim(1);
  if (Outputs == 0 || Inputs == 0 || X.elements() == 0)
    return nullptr;
  const int64_t Rows = int64_t(X.elements()) / Inputs;
  const auto Type = memory::data_type::f32;
  memory::desc UserW(dims({Outputs, Inputs}), Type, Tag::oi);
  if (W.Desc->Blocked) {
    auto Blocked = blockedWeightsDesc(*W.Desc, OiAxesOfOi);
    if (!Blocked)
      return nullptr;
    UserW = *Blocked;
  }
  memory::desc Src(dims({Rows, Inputs}), Type, Tag::nc);
  memory::desc Dst(dims({Rows, Outputs}), Type, Tag::nc);
  memory::desc AnyW(UserW.dims(), Type, Tag::any);
  memory::desc Bias(dims({Outputs}), Type, Tag::x);
  OneOpenMpThread One;
  try {
    using Desc = dnnl::inner_product_forward::desc;
    const auto Inference = dnnl::prop_kind::forward_inference;
    Desc D = HasBias ? Desc(Inference, Src, AnyW, Bias, Dst)
                     : Desc(Inference, Src, AnyW, Dst);
    const bool Gemv = Rows == 1 && !W.Desc->Blocked &&
                      W.Desc->Bytes > GemvMinWeightBytes;
    auto PD = innerProductImplementation(
        D, f32Attr(O.output_min(), O.output_max(), nullptr, Gelu), Gemv);
    if (isReference(PD.impl_info_str()))
      return nullptr;
    memory Weights = bindWeights(PD.weights_desc(), UserW, W.Data, Arena);
    if (!Weights)
      return nullptr;
    std::optional<ConvertedWeight> Converted;
    if (Weights.get_desc() != UserW)
      Converted = ConvertedWeight{&OiAxesOfOi, UserW};
    return boundKernel(dnnl::inner_product_forward(PD), PD.scratchpad_desc(),
                       {Src, X.Data}, Weights,
                       {Bias, HasBias ? A.In[2].Data : nullptr},
                       {Dst, Y.Data}, std::move(Converted));
  } catch (const dnnl::error &) {
    return nullptr;
  }
}

/// One primitive over Args, with its scratchpad from the session's buffer.
std::unique_ptr<Kernel> singleStep(dnnl::primitive Prim,
                                   const memory::desc &Scratchpad,
                                   std::unordered_map<int, memory> Args) {
  std::vector<ScratchMemory> Scratch;
  bindScratchpad(Scratchpad, 0, Args, Scratch);
  std::vector<BoundPrimitive> Steps;
  Steps.push_back({std::move(Prim), std::move(Args)});
  return std::make_unique<OnednnKernel>(std::move(Steps), std::nullopt,
                                        std::move(Scratch));
}

/// The int8 MATMUL's requantization as oneDNN attributes: both operands'
/// zero points, the scale a_scale * b_scale / y_scale on the int32 sum, and
/// the clamp as a clip in the scaled domain before the destination zero
/// point (the reference kernel's arithmetic, Int8Kernels.cpp).
dnnl::primitive_attr int8MatMulAttr(const KernelArgs &A) {
  const auto &O = *A.Op.options_as_MatMulOptions();
  const TensorDesc &AD = *A.In[0].Desc, &BD = *A.In[1].Desc, &YD = *A.Out[0].Desc;
  dnnl::primitive_attr Attr;
  Attr.set_output_scales(0, {AD.Scales[0] * BD.Scales[0] / YD.Scales[0]});
  Attr.set_zero_points(DNNL_ARG_SRC, 0, {int32_t(AD.ZeroPoints[0])});
  Attr.set_zero_points(DNNL_ARG_WEIGHTS, 0, {int32_t(BD.ZeroPoints[0])});
  setInt8Output(Attr, YD, O.output_min(), O.output_max());
  return Attr;
}

/// A MATMUL of two activations (attention's q k^T and p v) as oneDNN's
/// batched matmul: [P, M, K] x [P or 1, K, N] -> [P, M, N], f32 clamped or
/// int8 requantized. Other batch broadcasts stay on the reference kernel.
std::unique_ptr<Kernel> matMul(const KernelArgs &A) {
  const auto &O = *A.Op.options_as_MatMulOptions();
  const KernelTensor &X = A.In[0], &W = A.In[1], &Y = A.Out[0];
  const fb::DType T = X.Desc->DType;
  if ((T != fb::DType::F32 && T != fb::DType::I8) || W.Desc->DType != T ||
      Y.Desc->DType != T || X.rank() < 2 || W.rank() < 2 || Y.elements() == 0)
    return nullptr;
  const int64_t M = X.dim(X.rank() - 2), K = X.dim(X.rank() - 1),
                N = W.dim(W.rank() - 1);
  if (M * K == 0 || K * N == 0)
    return nullptr;
  const int64_t P = int64_t(Y.elements()) / (M * N),
                PX = int64_t(X.elements()) / (M * K),
                PW = int64_t(W.elements()) / (K * N);
  if (PX != P || (PW != P && PW != 1))
    return nullptr;
  const bool Int8 = T == fb::DType::I8;
  const auto Type = Int8 ? memory::data_type::s8 : memory::data_type::f32;
  memory::desc Src(dims({P, M, K}), Type, Tag::abc);
  memory::desc Wei(dims({PW, K, N}), Type, Tag::abc);
  memory::desc Dst(dims({P, M, N}), Type, Tag::abc);
  OneOpenMpThread One;
  try {
    dnnl::matmul::desc D(Src, Wei, Dst);
    dnnl::matmul::primitive_desc PD(
        D,
        Int8 ? withSessionScratchpad(int8MatMulAttr(A))
             : f32Attr(O.output_min(), O.output_max()),
        cpuEngine());
    if (isReference(PD.impl_info_str()))
      return nullptr;
    const dnnl::engine &E = cpuEngine();
    return singleStep(dnnl::matmul(PD), PD.scratchpad_desc(),
                      {{DNNL_ARG_SRC, memory(Src, E, X.Data)},
                       {DNNL_ARG_WEIGHTS, memory(Wei, E, W.Data)},
                       {DNNL_ARG_DST, memory(Dst, E, Y.Data)}});
  } catch (const dnnl::error &) {
    return nullptr;
  }
}

/// An f32 GELU (exact or tanh) as oneDNN's eltwise primitive over the whole
/// tensor (XNNPACK has no GELU).
std::unique_ptr<Kernel> gelu(const KernelArgs &A) {
  const auto &O = *A.Op.options_as_UnaryOptions();
  const KernelTensor &X = A.In[0], &Y = A.Out[0];
  if (X.Desc->DType != fb::DType::F32 || Y.Desc->DType != fb::DType::F32 ||
      X.elements() == 0 || X.elements() != Y.elements())
    return nullptr;
  auto Alg = O.op() == fb::UnaryOp::GELU ? dnnl::algorithm::eltwise_gelu_erf
                                         : dnnl::algorithm::eltwise_gelu_tanh;
  memory::desc Flat(dims({int64_t(X.elements())}), memory::data_type::f32,
                    Tag::a);
  OneOpenMpThread One;
  try {
    dnnl::eltwise_forward::desc D(dnnl::prop_kind::forward_inference, Alg,
                                  Flat, 0.f, 0.f);
    dnnl::eltwise_forward::primitive_desc PD(
        D, withSessionScratchpad(dnnl::primitive_attr()), cpuEngine());
    if (isReference(PD.impl_info_str()))
      return nullptr;
    const dnnl::engine &E = cpuEngine();
    return singleStep(dnnl::eltwise_forward(PD), PD.scratchpad_desc(),
                      {{DNNL_ARG_SRC, memory(Flat, E, X.Data)},
                       {DNNL_ARG_DST, memory(Flat, E, Y.Data)}});
  } catch (const dnnl::error &) {
    return nullptr;
  }
}

/// An f32 LAYER_NORM as oneDNN's layer normalization: x seen as [rows, N]
/// (N: the normalized axes), weight and bias of N values.
/// SOFTMAX over any axis, or log-softmax (the compiler leaves the last
/// axis's plain softmax to XNNPACK): x viewed as [outer, len, inner],
/// softmax_forward or logsoftmax_forward along the middle axis.
std::unique_ptr<Kernel> softmaxAnyAxis(const KernelArgs &A) {
  const auto &O = *A.Op.options_as_SoftmaxOptions();
  const KernelTensor &X = A.In[0], &Y = A.Out[0];
  if (X.Desc->DType != fb::DType::F32 || Y.Desc->DType != fb::DType::F32 ||
      X.elements() == 0 || O.axis() < 0 || O.axis() >= X.rank())
    return nullptr;
  int64_t Outer = 1, Len = X.dim(O.axis()), Inner = 1;
  for (int64_t I = 0; I < O.axis(); ++I)
    Outer *= X.dim(I);
  for (int64_t I = O.axis() + 1; I < X.rank(); ++I)
    Inner *= X.dim(I);
  memory::desc Data(dims({Outer, Len, Inner}), memory::data_type::f32,
                    Tag::abc);
  OneOpenMpThread One;
  try {
    const dnnl::engine &E = cpuEngine();
    std::unordered_map<int, memory> Args = {{DNNL_ARG_SRC, memory(Data, E, X.Data)},
                                            {DNNL_ARG_DST, memory(Data, E, Y.Data)}};
    auto Attr = withSessionScratchpad(dnnl::primitive_attr());
    if (O.log()) {
      dnnl::logsoftmax_forward::desc D(dnnl::prop_kind::forward_inference,
                                       Data, 1);
      dnnl::logsoftmax_forward::primitive_desc PD(D, Attr, E);
      if (isReference(PD.impl_info_str()))
        return nullptr;
      return singleStep(dnnl::logsoftmax_forward(PD), PD.scratchpad_desc(),
                        std::move(Args));
    }
    dnnl::softmax_forward::desc D(dnnl::prop_kind::forward_inference, Data, 1);
    dnnl::softmax_forward::primitive_desc PD(D, Attr, E);
    if (isReference(PD.impl_info_str()))
      return nullptr;
    return singleStep(dnnl::softmax_forward(PD), PD.scratchpad_desc(),
                      std::move(Args));
  } catch (const dnnl::error &) {
    return nullptr;
  }
}

std::unique_ptr<Kernel> layerNorm(const KernelArgs &A) {
  const auto &O = *A.Op.options_as_LayerNormOptions();
  const KernelTensor &X = A.In[0], &W = A.In[1], &Y = A.Out[0];
  const bool HasBias = A.In.size() > 2 && A.In[2].present();
  const auto F32 = fb::DType::F32;
  if (X.Desc->DType != F32 || W.Desc->DType != F32 || Y.Desc->DType != F32 ||
      (HasBias && A.In[2].Desc->DType != F32) || X.elements() == 0 ||
      O.axis() < 0 || O.axis() >= X.rank())
    return nullptr;
  int64_t N = 1;
  for (int64_t I = O.axis(); I < X.rank(); ++I)
    N *= X.dim(I);
  if (int64_t(W.elements()) != N ||
      (HasBias && int64_t(A.In[2].elements()) != N))
    return nullptr;
  const auto Type = memory::data_type::f32;
  memory::desc Data(dims({int64_t(X.elements()) / N, N}), Type, Tag::ab);
  memory::desc Vec(dims({N}), Type, Tag::a);
  auto Flags = dnnl::normalization_flags::use_scale;
  if (HasBias)
    Flags = Flags | dnnl::normalization_flags::use_shift;
  OneOpenMpThread One;
  try {
    dnnl::layer_normalization_forward::desc D(
        dnnl::prop_kind::forward_inference, Data, O.epsilon(), Flags);
    dnnl::layer_normalization_forward::primitive_desc PD(
        D, withSessionScratchpad(dnnl::primitive_attr()), cpuEngine());
    if (isReference(PD.impl_info_str()))
      return nullptr;
    const dnnl::engine &E = cpuEngine();
    std::unordered_map<int, memory> Args = {
        {DNNL_ARG_SRC, memory(Data, E, X.Data)},
        {DNNL_ARG_DST, memory(Data, E, Y.Data)},
        {DNNL_ARG_SCALE, memory(Vec, E, W.Data)}};
    if (HasBias)
      Args.emplace(DNNL_ARG_SHIFT, memory(Vec, E, A.In[2].Data));
    return singleStep(dnnl::layer_normalization_forward(PD),
                      PD.scratchpad_desc(), std::move(Args));
  } catch (const dnnl::error &) {
    return nullptr;
  }
}

/// An f32 TRANSPOSE as oneDNN's reorder: x's bytes described with y's dims
/// and x's strides permuted, copied into y's plain layout.
std::unique_ptr<Kernel> transpose(const KernelArgs &A) {
  const auto &O = *A.Op.options_as_TransposeOptions();
  const KernelTensor &X = A.In[0], &Y = A.Out[0];
  const int64_t R = X.rank();
  if (X.Desc->DType != fb::DType::F32 || Y.Desc->DType != fb::DType::F32 ||
      X.elements() == 0 || R < 1 || R > DNNL_MAX_NDIMS || !O.perm() ||
      int64_t(O.perm()->size()) != R)
    return nullptr;
  const size_t Rank = static_cast<size_t>(R);
  memory::dims XStrides(Rank, 1), YDims(Rank), SrcStrides(Rank);
  for (int64_t I = R - 2; I >= 0; --I)
    XStrides[size_t(I)] = XStrides[size_t(I + 1)] * X.dim(I + 1);
  for (int64_t I = 0; I < R; ++I) {
    int32_t P = O.perm()->Get(unsigned(I));
    if (P < 0 || P >= R)
      return nullptr;
    YDims[size_t(I)] = X.dim(P);
    SrcStrides[size_t(I)] = XStrides[size_t(P)];
  }
  const auto Type = memory::data_type::f32;
  memory::desc Src(YDims, Type, SrcStrides);
  memory::dims YStrides(Rank, 1);
  for (int64_t I = R - 2; I >= 0; --I)
    YStrides[size_t(I)] = YStrides[size_t(I + 1)] * YDims[size_t(I + 1)];
  memory::desc Dst(YDims, Type, YStrides);
  OneOpenMpThread One;
  try {
    const dnnl::engine &E = cpuEngine();
    dnnl::reorder::primitive_desc PD(
        E, Src, E, Dst, withSessionScratchpad(dnnl::primitive_attr()));
    if (isReference(PD.impl_info_str()))
      return nullptr;
    return singleStep(dnnl::reorder(PD), PD.scratchpad_desc(),
                      {{DNNL_ARG_FROM, memory(Src, E, X.Data)},
                       {DNNL_ARG_TO, memory(Dst, E, Y.Data)}});
  } catch (const dnnl::error &) {
    return nullptr;
  }
}

/// f32 everywhere, or the int8 scheme: i8 input and output quantized per
/// tensor, i8 weights per tensor or per output channel, i32 bias.
bool takesTypes(const KernelArgs &A, bool &Int8) {
  const TensorDesc &XD = *A.In[0].Desc, &WD = *A.In[1].Desc,
                   &YD = *A.Out[0].Desc;
  const TensorDesc *BD = A.In.size() > 2 && A.In[2].present() ? A.In[2].Desc
                                                              : nullptr;
  Int8 = XD.DType == fb::DType::I8;
  if (!Int8)
    return WD.DType == fb::DType::F32 && YD.DType == fb::DType::F32 &&
           (!BD || BD->DType == fb::DType::F32);
  return WD.DType == fb::DType::I8 && YD.DType == fb::DType::I8 &&
         (!BD || BD->DType == fb::DType::I32) && XD.Scales.size() == 1 &&
         XD.ZeroPoints.size() == 1 && YD.Scales.size() == 1 &&
         YD.ZeroPoints.size() == 1 &&
         (WD.Scales.size() == 1 || int64_t(WD.Scales.size()) == A.Out[0].dim(3));
}

std::unique_ptr<Kernel> conv2D(const KernelArgs &A, WeightArena &Arena,
                               const FusedAdd *Add) {
  const auto &O = *A.Op.options_as_Conv2DOptions();
  const KernelTensor &X = A.In[0], &W = A.In[1], &Y = Add ? Add->Out : A.Out[0];
  const bool HasBias = A.In.size() > 2 && A.In[2].present();
  bool Int8 = false;
  if (!takesTypes(A, Int8) || (Add && (Int8 || Add->Other.Data != Y.Data)))
    return nullptr;
  if (!Int8 && !Add)
    if (auto Winograd = createWinogradKernel(A, Arena))
      return Winograd;
  const auto Type = Int8 ? memory::data_type::s8 : memory::data_type::f32;
  const int64_t G = O.groups(), Gi = O.group_input_channels(),
                Go = O.group_output_channels(), KH = O.kernel_height(),
                KW = O.kernel_width();
  // XNNPACK's weights are OHWI, or [G, Go, KH, KW, Gi] when grouped, which
  // is oneDNN's gohwi; depthwise HWO is hwigo with one input per group.
  memory::desc UserW =
      O.depthwise()
          ? memory::desc(dims({G, Go, 1, KH, KW}), Type, Tag::hwigo)
      : G == 1 ? memory::desc(dims({Go, Gi, KH, KW}), Type, Tag::ohwi)
               : memory::desc(dims({G, Go, Gi, KH, KW}), Type, Tag::gohwi);
  if (W.Desc->Blocked) { // the validator allows it on dense f32 convs only
    auto Blocked = blockedWeightsDesc(*W.Desc, OhwiAxesOfOihw);
    if (!Blocked)
      return nullptr; // the session unpacks it for XNNPACK
    UserW = *Blocked;
  }
  if (!Int8)
    if (auto Panel = createPanelConvKernel(A, UserW, Arena, Add))
      return Panel;
  memory::desc AnyW(UserW.dims(), Type, Tag::any);
  memory::desc Src(dims({X.dim(0), X.dim(3), X.dim(1), X.dim(2)}), Type,
                   Tag::nhwc);
  memory::desc Dst(dims({Y.dim(0), Y.dim(3), Y.dim(1), Y.dim(2)}), Type,
                   Tag::nhwc);
  memory::desc Bias(dims({G * Go}),
                    Int8 ? memory::data_type::s32 : memory::data_type::f32,
                    Tag::x);
  memory::dims Strides = dims({O.stride_height(), O.stride_width()});
  memory::dims Dilations =
      dims({int64_t(O.dilation_height()) - 1, int64_t(O.dilation_width()) - 1});
  memory::dims PadL = dims({O.padding_top(), O.padding_left()});
  memory::dims PadR = dims({O.padding_bottom(), O.padding_right()});
  OneOpenMpThread One;
  try {
    const dnnl::engine &E = cpuEngine();
    using Desc = dnnl::convolution_forward::desc;
    Desc D = HasBias ? Desc(dnnl::prop_kind::forward_inference,
                            dnnl::algorithm::convolution_direct, Src, AnyW,
                            Bias, Dst, Strides, Dilations, PadL, PadR)
                     : Desc(dnnl::prop_kind::forward_inference,
                            dnnl::algorithm::convolution_direct, Src, AnyW,
                            Dst, Strides, Dilations, PadL, PadR);
    dnnl::primitive_attr Attr =
        Int8 ? int8Attr(A) : f32Attr(O.output_min(), O.output_max(), Add);
    dnnl::convolution_forward::primitive_desc PD(D, Attr, E);
    if (Int8 && isAmx(PD) && prefersVnniOverAmx(O, Y))
      if (auto Vnni = nonAmxImplementation(D, Attr, E))
        PD = *Vnni;
    // oneDNN's reference implementation is far slower than XNNPACK, and an
    // int8 kernel on halved weights is inexact: leave those operators to
    // XNNPACK.
    if (isReference(PD.impl_info_str()) || (Int8 && scalesWeightsDown(PD)))
      return nullptr;
    memory Weights = bindWeights(PD.weights_desc(), UserW, W.Data, Arena);
    if (!Weights)
      return nullptr;
    std::optional<ConvertedWeight> Converted;
    if (Weights.get_desc() != UserW && !Int8 && G == 1 && !O.depthwise())
      Converted = ConvertedWeight{&OhwiAxesOfOihw, UserW};
    return boundKernel(dnnl::convolution_forward(PD), PD.scratchpad_desc(),
                       {Src, X.Data}, Weights,
                       {Bias, HasBias ? A.In[2].Data : nullptr}, {Dst, Y.Data},
                       std::move(Converted));
  } catch (const dnnl::error &) {
    return nullptr; // a configuration oneDNN does not take: XNNPACK's turn
  }
}

/// A 1x1 convolution over at most 32 input channels: at most 32 multiply-adds
/// per output, so both libraries run it at memory speed, while oneDNN must
/// first generate its kernel for each shape when the session is created. On
/// MobileNetV2 at 1 thread XNNPACK ran these layers about as fast as oneDNN,
/// and leaving its seven such layers to XNNPACK was measured to make a
/// session noticeably faster to create at a negligible cost per run;
/// docs/benchmarks.md has the figures.
bool isNarrowPointwise(const fb::Conv2DOptions &O) {
  return O.kernel_height() == 1 && O.kernel_width() == 1 && O.groups() == 1 &&
         O.group_input_channels() <= 32;
}

} // namespace

size_t onednn::OnednnKernel::scratchBytes() const {
  size_t Need = 0;
  for (const ScratchMemory &M : Scratch)
    Need = std::max(Need, M.Offset + M.Memory.get_desc().get_size());
  return Need;
}

void onednn::OnednnKernel::bindScratch(uint8_t *Base) {
  for (ScratchMemory &M : Scratch)
    M.Memory.set_data_handle(Base + M.Offset);
}

Status onednn::OnednnKernel::run(pthreadpool_t) {
  OneOpenMpThread One;
  try {
    for (BoundPrimitive &S : Steps)
      S.Prim.execute(Stream, S.Args);
    Stream.wait();
  } catch (const dnnl::error &E) {
    return runtimeError("oneDNN failed to run the operator: ", E.what());
  }
  return Status::ok();
}

std::optional<PackedWeights> onednn::OnednnKernel::packedWeights() const {
  if (!Converted)
    return std::nullopt;
  return packedWeightsOf(Steps.front().Args.at(DNNL_ARG_WEIGHTS), *Converted);
}

bool onednnBuilt() { return true; }

std::unique_ptr<Kernel> createOnednnKernel(const KernelArgs &A,
                                           WeightArena &Weights,
                                           const FusedAdd *Add,
                                           const FusedGelu *Gelu) {
  if (A.Op.kind() == fb::OpKind::FULLY_CONNECTED)
    return Add ? nullptr : fullyConnected(A, Weights, Gelu);
  if (Gelu)
    return nullptr;
  if (A.Op.kind() == fb::OpKind::MATMUL)
    return Add ? nullptr : matMul(A);
  if (A.Op.kind() == fb::OpKind::LAYER_NORM)
    return Add ? nullptr : layerNorm(A);
  if (A.Op.kind() == fb::OpKind::SOFTMAX && A.Op.engine() == fb::Engine::ANY)
    return Add ? nullptr : softmaxAnyAxis(A);
  if (A.Op.kind() == fb::OpKind::LSTM)
    return Add ? nullptr : onednn::lstm(A, Weights);
  if (A.Op.kind() == fb::OpKind::GRU)
    return Add ? nullptr : onednn::gru(A, Weights);
  if (A.Op.kind() == fb::OpKind::TRANSPOSE)
    return Add ? nullptr : transpose(A);
  if (A.Op.kind() == fb::OpKind::UNARY) {
    auto U = A.Op.options_as_UnaryOptions()->op();
    return !Add && (U == fb::UnaryOp::GELU || U == fb::UnaryOp::GELU_TANH)
               ? gelu(A)
               : nullptr;
  }
  if (A.Op.kind() != fb::OpKind::CONV_2D)
    return nullptr;
  // In f32, XNNPACK's depthwise kernels were measured as fast as oneDNN's
  // on 3x3 and 5x5 windows (MobileNetV2 and V3 at 1 thread), so those stay;
  // in int8, oneDNN's were measured faster. Past 25 taps Debian's XNNPACK
  // (2022-02) has no depthwise kernel and runs a grouped GEMM per channel:
  // ConvNeXt-T's 7x7 depthwise convolutions took 48 ms there, 2.1 ms on
  // oneDNN. docs/benchmarks.md has the figures.
  const fb::Conv2DOptions &O = *A.Op.options_as_Conv2DOptions();
  bool F32 = A.In[0].Desc->DType != fb::DType::I8;
  constexpr int32_t XnnpackMaxDepthwiseTaps = 25;
  if (O.depthwise() && F32 &&
      O.kernel_height() * O.kernel_width() <= XnnpackMaxDepthwiseTaps)
    return nullptr;
  if (F32 && isNarrowPointwise(O) && !Add)
    return nullptr;
  return conv2D(A, Weights, Add);
}

} // namespace kiln::rt

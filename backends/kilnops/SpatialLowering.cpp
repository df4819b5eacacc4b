// conv, conv_transpose and pooling on 4-D f32 tensors -> NHWC runtime
// operators (XNNPACK). Weights are packed here (WeightPacking.h); fused
// activations become output_min/output_max; ceil_mode pooling becomes extra
// bottom/right padding, which gives the same windows.
#include "backends/kilnops/KilnOpRules.h"
#include "backends/kilnops/QuantLowering.h"
#include "backends/kilnops/WeightPacking.h"

#include "IR/ShapeInference.h"

namespace kiln {

namespace {

struct Window2D {
  int64_t KH, KW, SH = 1, SW = 1, DH = 1, DW = 1;
  int64_t PT = 0, PL = 0, PB = 0, PR = 0;
};

/// Strides, dilations and pads of a 2-D conv or pool (attributes verified).
Window2D windowOf(const Node &N, int64_t KH, int64_t KW) {
  Window2D W{KH, KW};
  auto S = spatialAttr(N, "strides", 2, 1);
  auto D = N.def().findAttr("dilations") ? spatialAttr(N, "dilations", 2, 1)
                                         : std::vector<int64_t>{1, 1};
  auto P = padsAttr(N, 2);
  if (S && D && P) {
    W.SH = (*S)[0], W.SW = (*S)[1];
    W.DH = (*D)[0], W.DW = (*D)[1];
    W.PT = (*P)[0], W.PL = (*P)[1], W.PB = (*P)[2], W.PR = (*P)[3];
  } else {
    llvm::consumeError(S.takeError());
    llvm::consumeError(D.takeError());
    llvm::consumeError(P.takeError());
  }
  return W;
}

int64_t dimOf(const Value *V, size_t I) { return V->type().Dims[I].size(); }

KilnOpSupport check4D(const Node &N, const char *What) {
  if (N.operand(0)->type().rank() != 4)
    return notSupported("{0} only on 4-D (NCHW) tensors, got {1}", What,
                        toString(N.operand(0)->type()));
  return requireF32(N);
}

KilnOpSupport checkConv(const Node &N) {
  if (N.operand(0)->type().rank() == 3)
    return notSupported("1-D convolution; -O2 turns it into a 2-D one");
  for (KilnOpSupport S : {check4D(N, "2-D convolution"),
                       requireConstant(N, 1, "weight")})
    if (!S.Supported)
      return S;
  if (N.numOperands() > 2 && N.operand(2))
    return requireConstant(N, 2, "bias");
  return supported();
}

/// The bias operand as a canonical constant tensor, or -1.
int32_t biasTensor(const Node &N, LoweringContext &Ctx) {
  return N.numOperands() > 2 && N.operand(2) ? Ctx.canonical(N.operand(2)) : -1;
}

llvm::Error lowerConv(const Node &N, LoweringContext &Ctx) {
  const Value *X = N.operand(0), *Wv = N.operand(1);
  int64_t C = dimOf(X, 1), M = dimOf(Wv, 0), GroupIn = dimOf(Wv, 1),
          KH = dimOf(Wv, 2), KW = dimOf(Wv, 3), Groups = N.getInt("group");
  Window2D W = windowOf(N, KH, KW);
  bool Depthwise = Groups > 1 && GroupIn == 1 && Groups == C;
  fb::Conv2DOptionsT O;
  O.padding_top = uint32_t(W.PT), O.padding_left = uint32_t(W.PL);
  O.padding_bottom = uint32_t(W.PB), O.padding_right = uint32_t(W.PR);
  O.kernel_height = uint32_t(KH), O.kernel_width = uint32_t(KW);
  O.stride_height = uint32_t(W.SH), O.stride_width = uint32_t(W.SW);
  O.dilation_height = uint32_t(W.DH), O.dilation_width = uint32_t(W.DW);
  O.groups = uint32_t(Groups);
  O.group_input_channels = uint32_t(GroupIn);
  O.group_output_channels = uint32_t(M / Groups);
  O.depthwise = Depthwise;
  OutputActivation Act = outputActivation(N);
  O.output_min = Act.Min, O.output_max = Act.Max;

  // Int8 (qc8) or a narrow (f16/int8) weight the runtime widens at load.
  bool Int8 = isInt8Pattern(N, Ctx.options());
  if (auto Narrow = narrowWeightOf(Wv)) {
    int32_t Packed = packedNarrowConvWeight(Ctx, Wv, *Narrow, Depthwise);
    int32_t Bias = -1;
    if (N.numOperands() > 2 && N.operand(2)) {
      auto NB = narrowWeightOf(N.operand(2));
      Bias = !NB   ? Ctx.canonical(N.operand(2))
             : Int8 ? int8Bias(Ctx, N.operand(2), *NB)
                    : narrowConstant(Ctx, N.operand(2), *NB, fb::Layout::PLAIN);
    }
    if (Int8) {
      int32_t In = int8Operand(Ctx, X, true);
      int32_t Out = int8Result(Ctx, N, true);
      Ctx.addOp(fb::OpKind::CONV_2D, {In, Packed, Bias}, {Out}, optionsOf(O),
                fb::Engine::XNNPACK);
      return llvm::Error::success();
    }
    int32_t In = Ctx.nhwc(X);
    emitWithActivation(Ctx, N.result(), true, Act, [&](int32_t Out) {
      Ctx.addOp(fb::OpKind::CONV_2D, {In, Packed, Bias}, {Out}, optionsOf(O),
                fb::Engine::XNNPACK);
    });
    return llvm::Error::success();
  }
  const Tensor &Weights = *Ctx.constantOf(Wv);
  std::string Name = (Wv->name().empty() ? "weight" : Wv->name()) +
                     (Depthwise ? ".hwo" : ".ohwi");
  std::vector<int64_t> Shape = Depthwise ? std::vector<int64_t>{1, KH, KW, M}
                                         : std::vector<int64_t>{M, KH, KW, GroupIn};
  fb::Layout Layout = Depthwise ? fb::Layout::HWO : fb::Layout::OHWI;
  int32_t Packed;
  if (KH * KW == 1) // the packed layout is the source's bytes
    Packed = Ctx.addConstant(Name, ElementType::F32, Shape, Layout,
                             Weights.buffer());
  else // packed as the file is written; the lambda keeps the source alive
    Packed = Ctx.addPackedFloatConstant(
        Name, Shape, Layout,
        [Source = Weights.buffer(), Depthwise, M, GroupIn, KH, KW](float *Out) {
          if (Depthwise)
            packDepthwiseHWO(FloatSource(Source.data()), M, KH, KW, Out);
          else
            packConvOHWI(FloatSource(Source.data()), M, GroupIn, KH, KW, Out);
        });
  int32_t In = Ctx.nhwc(X), Bias = biasTensor(N, Ctx);
  emitWithActivation(Ctx, N.result(), true, Act, [&](int32_t Out) {
    Ctx.addOp(fb::OpKind::CONV_2D, {In, Packed, Bias}, {Out}, optionsOf(O),
              fb::Engine::XNNPACK);
  });
  return llvm::Error::success();
}

KilnOpSupport checkConvTranspose(const Node &N) {
  if (KilnOpSupport S = checkConv(N); !S.Supported)
    return S;
  auto Pad = spatialAttr(N, "output_padding", 2, 0);
  auto Strides = spatialAttr(N, "strides", 2, 1);
  if (!Pad || !Strides) {
    llvm::consumeError(Pad.takeError());
    llvm::consumeError(Strides.takeError());
    return notSupported("bad output_padding or strides");
  }
  for (int I = 0; I < 2; ++I)
    if ((*Pad)[size_t(I)] >= (*Strides)[size_t(I)])
      return notSupported("output_padding {0} is not smaller than the stride "
                          "{1}",
                          (*Pad)[size_t(I)], (*Strides)[size_t(I)]);
  return supported();
}

llvm::Error lowerConvTranspose(const Node &N, LoweringContext &Ctx) {
  const Value *X = N.operand(0), *Wv = N.operand(1);
  int64_t Groups = N.getInt("group"), C = dimOf(X, 1),
          GroupIn = C / Groups, GroupOut = dimOf(Wv, 1), KH = dimOf(Wv, 2),
          KW = dimOf(Wv, 3);
  Window2D W = windowOf(N, KH, KW);
  auto Adjust = spatialAttr(N, "output_padding", 2, 0);
  if (!Adjust)
    return Adjust.takeError();
  fb::Deconv2DOptionsT O;
  O.padding_top = uint32_t(W.PT), O.padding_left = uint32_t(W.PL);
  O.padding_bottom = uint32_t(W.PB), O.padding_right = uint32_t(W.PR);
  O.adjustment_height = uint32_t((*Adjust)[0]);
  O.adjustment_width = uint32_t((*Adjust)[1]);
  O.kernel_height = uint32_t(KH), O.kernel_width = uint32_t(KW);
  O.stride_height = uint32_t(W.SH), O.stride_width = uint32_t(W.SW);
  O.dilation_height = uint32_t(W.DH), O.dilation_width = uint32_t(W.DW);
  O.groups = uint32_t(Groups);
  O.group_input_channels = uint32_t(GroupIn);
  O.group_output_channels = uint32_t(GroupOut);
  OutputActivation Act = outputActivation(N);
  O.output_min = Act.Min, O.output_max = Act.Max;
  std::string Name = Wv->name().empty() ? "weight" : Wv->name();
  int32_t Packed = Ctx.addPackedFloatConstant(
      Name + ".ohwi", {Groups * GroupOut, KH, KW, GroupIn}, fb::Layout::OHWI,
      [Source = Ctx.constantOf(Wv)->buffer(), Groups, GroupIn, GroupOut, KH,
       KW](float *Out) {
        packDeconvOHWI(FloatSource(Source.data()), Groups, GroupIn, GroupOut,
                       KH, KW, Out);
      });
  int32_t In = Ctx.nhwc(X), Bias = biasTensor(N, Ctx);
  emitWithActivation(Ctx, N.result(), true, Act, [&](int32_t Out) {
    Ctx.addOp(fb::OpKind::DECONV_2D, {In, Packed, Bias}, {Out}, optionsOf(O),
              fb::Engine::XNNPACK);
  });
  return llvm::Error::success();
}

/// The pool window with ceil_mode folded into extra bottom/right padding:
/// enough that floor((in + pads - window) / stride) + 1 gives the IR's size.
Window2D poolWindow(const Node &N) {
  const std::vector<int64_t> &K = N.getInts("kernel");
  Window2D W = windowOf(N, K[0], K[1]);
  const Value *X = N.operand(0), *Y = N.result();
  auto Extra = [](int64_t In, int64_t Out, int64_t Kernel, int64_t Stride,
                  int64_t Dil, int64_t Pads) {
    int64_t Need = (Out - 1) * Stride + Dil * (Kernel - 1) + 1;
    return std::max<int64_t>(0, Need - (In + Pads));
  };
  W.PB += Extra(dimOf(X, 2), dimOf(Y, 2), W.KH, W.SH, W.DH, W.PT + W.PB);
  W.PR += Extra(dimOf(X, 3), dimOf(Y, 3), W.KW, W.SW, W.DW, W.PL + W.PR);
  return W;
}

KilnOpSupport checkPool(const Node &N) {
  if (KilnOpSupport S = check4D(N, "2-D pooling"); !S.Supported)
    return S;
  if (N.numResults() != 1)
    return notSupported("max_pool with indices");
  if (N.getInts("kernel").size() != 2)
    return notSupported("pooling kernel must be 2-D");
  if (N.isOp("avg_pool") && N.getInt("count_include_pad") &&
      N.getInt("ceil_mode")) {
    Window2D W = poolWindow(N), Plain = windowOf(N, W.KH, W.KW);
    if (W.PB != Plain.PB || W.PR != Plain.PR)
      return notSupported("count_include_pad with a ceil_mode window past "
                          "the padding");
  }
  return supported();
}

llvm::Error lowerPool(const Node &N, LoweringContext &Ctx) {
  Window2D W = poolWindow(N);
  fb::Pool2DOptionsT O;
  O.padding_top = uint32_t(W.PT), O.padding_left = uint32_t(W.PL);
  O.padding_bottom = uint32_t(W.PB), O.padding_right = uint32_t(W.PR);
  O.kernel_height = uint32_t(W.KH), O.kernel_width = uint32_t(W.KW);
  O.stride_height = uint32_t(W.SH), O.stride_width = uint32_t(W.SW);
  O.dilation_height = uint32_t(W.DH), O.dilation_width = uint32_t(W.DW);
  bool IsMax = N.isOp("max_pool");
  O.count_include_pad = !IsMax && N.getInt("count_include_pad") != 0;
  bool Padded = W.PT || W.PL || W.PB || W.PR;
  // XNNPACK averages over the real pixels only.
  fb::Engine E = (O.count_include_pad && Padded) ? fb::Engine::REFERENCE
                                                 : fb::Engine::XNNPACK;
  if (isInt8Pattern(N, Ctx.options())) { // int8 max pooling (same parameters in and out)
    int32_t In = int8Operand(Ctx, N.operand(0), true);
    int32_t Out = int8Result(Ctx, N, true);
    Ctx.addOp(fb::OpKind::MAX_POOL_2D, {In}, {Out}, optionsOf(O), E);
    return llvm::Error::success();
  }
  int32_t In = Ctx.nhwc(N.operand(0));
  int32_t Out = Ctx.resultTensor(N.result(), true);
  Ctx.addOp(IsMax ? fb::OpKind::MAX_POOL_2D : fb::OpKind::AVERAGE_POOL_2D,
            {In}, {Out}, optionsOf(O), E);
  Ctx.define(N.result(), Out, true);
  return llvm::Error::success();
}

KilnOpSupport checkGlobalPool(const Node &N) {
  if (N.operand(0)->type().rank() < 3)
    return notSupported("global pooling needs a rank >= 3 input");
  return requireF32(N);
}

llvm::Error lowerGlobalPool(const Node &N, LoweringContext &Ctx) {
  bool IsMax = N.isOp("global_max_pool");
  const Value *X = N.operand(0);
  if (X->type().rank() == 4 && isInt8Pattern(N, Ctx.options())) {
    int32_t In = int8Operand(Ctx, X, true);
    int32_t Out = int8Result(Ctx, N, true);
    Ctx.addOp(fb::OpKind::GLOBAL_AVERAGE_POOL_2D, {In}, {Out},
              optionsOf(fb::Pool2DOptionsT()), fb::Engine::XNNPACK);
    return llvm::Error::success();
  }
  if (X->type().rank() == 4) {
    int32_t In = Ctx.nhwc(X);
    int32_t Out = Ctx.resultTensor(N.result(), true);
    Ctx.addOp(IsMax ? fb::OpKind::GLOBAL_MAX_POOL_2D
                    : fb::OpKind::GLOBAL_AVERAGE_POOL_2D,
              {In}, {Out}, optionsOf(fb::Pool2DOptionsT()),
              IsMax ? fb::Engine::REFERENCE : fb::Engine::XNNPACK);
    Ctx.define(N.result(), Out, true);
    return llvm::Error::success();
  }
  // Other ranks: a reduction over every spatial axis, keeping them.
  fb::ReduceOptionsT O;
  O.op = IsMax ? fb::ReduceOp::MAXIMUM : fb::ReduceOp::MEAN;
  for (int32_t A = 2; A < int32_t(X->type().rank()); ++A)
    O.axes.push_back(A);
  int32_t In = Ctx.canonical(X);
  int32_t Out = Ctx.resultTensor(N.result(), false);
  Ctx.addOp(fb::OpKind::REDUCE, {In}, {Out}, optionsOf(O),
            fb::Engine::REFERENCE);
  Ctx.define(N.result(), Out, false);
  return llvm::Error::success();
}

const CpuOpRule Rules[] = {
    {"conv", checkConv, lowerConv},
    {"conv_transpose", checkConvTranspose, lowerConvTranspose},
    {"max_pool", checkPool, lowerPool},
    {"avg_pool", checkPool, lowerPool},
    {"global_avg_pool", checkGlobalPool, lowerGlobalPool},
    {"global_max_pool", checkGlobalPool, lowerGlobalPool},
};

} // namespace

llvm::ArrayRef<CpuOpRule> spatialRules() { return Rules; }

} // namespace kiln

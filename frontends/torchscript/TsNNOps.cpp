// aten neural-network ops -> canonical IR: convolutions (every overload,
// padding='same'/'valid' resolved to explicit pads), batch/layer norm,
// pooling (adaptive pooling when the output divides the input), linear
// algebra, dropout (kept: the pass pipeline removes it), softmax,
// upsampling (PyTorch's coordinate rules expressed as Resize modes) and
// ShuffleNet's channel_shuffle.
#include "frontends/torchscript/TsConverter.h"

namespace kiln::ts_import {

namespace {

/// PyTorch gives one pad per spatial axis (both sides); IR pads are all
/// begins then all ends.
std::vector<int64_t> symmetricPads(std::vector<int64_t> P, size_t NS) {
  if (P.size() == 1)
    P.assign(NS, P[0]);
  std::vector<int64_t> R = P;
  R.insert(R.end(), P.begin(), P.end());
  return R;
}

std::vector<int64_t> perAxis(std::vector<int64_t> V, size_t NS,
                             int64_t Default) {
  if (V.empty())
    return std::vector<int64_t>(NS, Default);
  if (V.size() == 1)
    return std::vector<int64_t>(NS, V[0]);
  return V;
}

} // namespace

llvm::Error emitConv(NodeConverter &C, ConvArgs A) {
  if (!A.X || !A.W)
    return C.takeError();
  size_t NS = size_t(std::max<int64_t>(A.W->type().rank() - 2, 0));
  auto Stride = perAxis(A.Stride, NS, 1);
  auto Dilation = perAxis(A.Dilation, NS, 1);
  std::vector<int64_t> Pads;
  if (A.PaddingMode == "valid") {
    Pads.assign(2 * NS, 0);
  } else if (A.PaddingMode == "same") {
    // PyTorch pads the extra element of an odd total at the end.
    auto WD = C.staticDims(A.W);
    if (!WD)
      return WD.takeError();
    Pads.assign(2 * NS, 0);
    for (size_t I = 0; I < NS; ++I) {
      int64_t Total = Dilation[I] * ((*WD)[2 + I] - 1);
      Pads[I] = Total / 2;
      Pads[NS + I] = Total - Total / 2;
    }
  } else if (!A.PaddingMode.empty()) {
    return C.fail("unknown padding mode '{0}'", A.PaddingMode);
  } else {
    Pads = symmetricPads(perAxis(A.Padding, NS, 0), NS);
  }
  AttrMap Attrs{{"strides", Stride},
                {"pads", Pads},
                {"dilations", Dilation},
                {"group", A.Groups}};
  if (A.Transposed) {
    auto OP = perAxis(A.OutputPadding, NS, 0);
    if (llvm::any_of(OP, [](int64_t X) { return X != 0; }))
      Attrs["output_padding"] = OP;
    return finish(C, C.emit("conv_transpose", {A.X, A.W, A.B}, std::move(Attrs)));
  }
  return finish(C, C.emit("conv", {A.X, A.W, A.B}, std::move(Attrs)));
}

namespace {

// aten::_convolution(input, weight, bias, stride, padding, dilation,
//                    transposed, output_padding, groups, ...)
llvm::Error convertUnderscoreConvolution(NodeConverter &C) {
  ConvArgs A;
  A.X = C.tensor(0);
  A.W = C.tensor(1);
  A.B = C.optionalTensor(2);
  A.Stride = C.getInts(3);
  A.Padding = C.getInts(4);
  A.Dilation = C.getInts(5);
  A.Transposed = C.getBool(6);
  A.OutputPadding = C.getInts(7);
  A.Groups = C.getInt(8);
  return emitConv(C, std::move(A));
}

// aten::conv{1,2,3}d(input, weight, bias, stride, padding, dilation, groups);
// padding is an int list or, in the .padding overload, "same"/"valid".
llvm::Error convertConvNd(NodeConverter &C) {
  ConvArgs A;
  A.X = C.tensor(0);
  A.W = C.tensor(1);
  A.B = C.optionalTensor(2);
  A.Stride = C.getInts(3);
  if (C.in(4).isConst() && C.in(4).C.isString())
    A.PaddingMode = C.getString(4);
  else
    A.Padding = C.getInts(4);
  A.Dilation = C.getInts(5);
  A.Groups = C.getInt(6);
  return emitConv(C, std::move(A));
}

// aten::conv_transpose{1,2,3}d(input, weight, bias, stride, padding,
//                              output_padding, groups, dilation)
llvm::Error convertConvTransposeNd(NodeConverter &C) {
  ConvArgs A;
  A.X = C.tensor(0);
  A.W = C.tensor(1);
  A.B = C.optionalTensor(2);
  A.Stride = C.getInts(3);
  A.Padding = C.getInts(4);
  A.OutputPadding = C.getInts(5);
  A.Groups = C.getInt(6);
  A.Dilation = C.getInts(7);
  A.Transposed = true;
  return emitConv(C, std::move(A));
}

/// A per-channel constant of N elements all equal to V (f32).
Value *filled(NodeConverter &C, int64_t N, float V) {
  std::vector<float> D(size_t(N), V);
  return C.constant(
      Tensor::fromValues<float>(ElementType::F32, {Dim(N)}, D));
}

// aten::batch_norm(input, weight, bias, running_mean, running_var, training,
//                  momentum, eps, cudnn_enabled)
llvm::Error convertBatchNorm(NodeConverter &C) {
  Value *X = C.tensor(0);
  if (!X)
    return C.takeError();
  if (C.isNone(3) || C.isNone(4))
    return C.fail("batch_norm without running statistics (track_running_stats"
                  "=False) normalizes with batch statistics, which kiln does "
                  "not import");
  if (C.getBool(5))
    return C.fail("batch_norm in training mode; call model.eval() before "
                  "saving, or kiln imports the eval-mode graph only");
  Value *Mean = C.tensor(3), *Var = C.tensor(4);
  if (!Mean || !Var)
    return C.takeError();
  auto MD = C.staticDims(Mean);
  if (!MD)
    return MD.takeError();
  int64_t Ch = MD->empty() ? 1 : (*MD)[0];
  Value *Scale = C.isNone(1) ? filled(C, Ch, 1.0f) : C.tensor(1);
  Value *Bias = C.isNone(2) ? filled(C, Ch, 0.0f) : C.tensor(2);
  return finish(C, C.emit("batch_norm", {X, Scale, Bias, Mean, Var},
                          {{"epsilon", C.getDouble(7)}}));
}

// aten::layer_norm(input, normalized_shape, weight, bias, eps, cudnn_enable)
llvm::Error convertLayerNorm(NodeConverter &C) {
  Value *X = C.tensor(0);
  if (!X)
    return C.takeError();
  auto Norm = C.getInts(1);
  int64_t Axis = X->type().rank() - int64_t(Norm.size());
  Value *Scale = C.isNone(2) ? nullptr : C.tensor(2);
  Value *Bias = C.optionalTensor(3);
  if (!Scale) {
    std::vector<float> Ones;
    int64_t N = 1;
    for (int64_t D : Norm)
      N *= D;
    Ones.assign(size_t(N), 1.0f);
    Shape S;
    for (int64_t D : Norm)
      S.push_back(Dim(D));
    Scale = C.constant(Tensor::fromValues<float>(ElementType::F32, S, Ones));
  }
  return finish(C, C.emit("layer_norm", {X, Scale, Bias},
                          {{"axis", Axis}, {"epsilon", C.getDouble(4)}}));
}

// aten::max_pool{1,2,3}d(input, kernel, stride, padding, dilation, ceil_mode)
llvm::Error convertMaxPool(NodeConverter &C) {
  Value *X = C.tensor(0);
  auto Kernel = C.getInts(1);
  size_t NS = Kernel.size();
  auto Stride = C.getInts(2);
  if (Stride.empty())
    Stride = Kernel;
  AttrMap A{{"kernel", Kernel},
            {"strides", perAxis(Stride, NS, 1)},
            {"pads", symmetricPads(perAxis(C.getInts(3), NS, 0), NS)},
            {"dilations", perAxis(C.getInts(4), NS, 1)},
            {"ceil_mode", int64_t(C.getBool(5))}};
  return finish(C, C.emit("max_pool", {X}, std::move(A)));
}

// aten::avg_pool{1,2,3}d(input, kernel, stride, padding, ceil_mode,
//                        count_include_pad, divisor_override)
llvm::Error convertAvgPool(NodeConverter &C) {
  Value *X = C.tensor(0);
  auto Kernel = C.getInts(1);
  size_t NS = Kernel.size();
  auto Stride = C.getInts(2);
  if (Stride.empty())
    Stride = Kernel;
  if (C.numInputs() > 6 && !C.isNone(6))
    return C.fail("avg_pool with divisor_override is not supported");
  AttrMap A{{"kernel", Kernel},
            {"strides", perAxis(Stride, NS, 1)},
            {"pads", symmetricPads(perAxis(C.getInts(3), NS, 0), NS)},
            {"ceil_mode", int64_t(C.getBool(4))},
            {"count_include_pad", int64_t(C.getBool(5))}};
  return finish(C, C.emit("avg_pool", {X}, std::move(A)));
}

/// aten::adaptive_{avg,max}_pool{1,2}d(input, output_size): global pooling
/// for output 1, else a plain pool when every output size divides its input.
llvm::Error convertAdaptivePool(NodeConverter &C, bool Max) {
  Value *X = C.tensor(0);
  if (!X)
    return C.takeError();
  auto Out = C.getInts(1);
  auto D = C.staticDims(X);
  if (!D)
    return D.takeError();
  size_t NS = Out.size();
  if (D->size() < NS)
    return C.fail("output_size has {0} dims for a rank-{1} input", NS, D->size());
  if (llvm::all_of(Out, [](int64_t O) { return O == 1; }) && D->size() == NS + 2)
    return finish(C, C.emit(Max ? "global_max_pool" : "global_avg_pool", {X}));
  std::vector<int64_t> Kernel;
  for (size_t I = 0; I < NS; ++I) {
    int64_t In = (*D)[D->size() - NS + I];
    int64_t O = Out[I] < 0 ? In : Out[I]; // None keeps the input size
    if (O <= 0 || In % O != 0)
      return C.fail("adaptive pooling from {0} to {1} (not a whole factor) is "
                    "not supported",
                    In, O);
    Kernel.push_back(In / O);
  }
  AttrMap A{{"kernel", Kernel}, {"strides", Kernel}};
  return finish(C, C.emit(Max ? "max_pool" : "avg_pool", {X}, std::move(A)));
}

llvm::Error convertAdaptiveAvgPool(NodeConverter &C) {
  return convertAdaptivePool(C, false);
}

// aten::linear(input, weight, bias)
llvm::Error convertLinear(NodeConverter &C) {
  return finish(C, C.emit("linear", {C.tensor(0), C.tensor(1), C.optionalTensor(2)}));
}

// aten::addmm(self, mat1, mat2, beta, alpha) = beta*self + alpha*(mat1@mat2)
llvm::Error convertAddmm(NodeConverter &C) {
  Value *Bias = C.tensor(0);
  Value *A = C.tensor(1), *B = C.tensor(2);
  return finish(C, C.emit("gemm", {A, B, Bias},
                          {{"beta", C.getDouble(3)}, {"alpha", C.getDouble(4)}}));
}

llvm::Error convertMatmul(NodeConverter &C) {
  return finish(C, C.emit("matmul", {C.tensor(0), C.tensor(1)}));
}

// aten::dropout(input, p, train) and the feature/alpha variants: kept as a
// dropout op (inference), which the remove-dropout pass deletes.
// Training mode with p = 0 drops nothing (torchvision's Swin calls F.dropout
// without training=).
llvm::Error convertDropout(NodeConverter &C) {
  Value *X = C.tensor(0);
  double P = C.getDouble(1);
  if (C.getBool(2) && P == 0)
    return finish(C, X);
  if (C.getBool(2))
    return C.fail("dropout in training mode; call model.eval() before saving");
  return finish(C, C.emit("dropout", {X}, {{"ratio", P}}));
}

// aten::embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse):
// rows of the weight at integer ids (padding_idx only matters to training).
llvm::Error convertEmbedding(NodeConverter &C) {
  Value *W = C.tensor(0), *Ids = C.tensor(1);
  if (!W || !Ids)
    return C.takeError();
  if (!isIntegerType(Ids->type().Elem))
    return C.fail("embedding ids must be integers, got {0}",
                  toString(Ids->type()));
  return finish(C, C.emit("gather", {W, Ids}, {{"axis", int64_t(0)}}));
}

// aten::pad(input, pad, mode, value) and aten::constant_pad_nd(input, pad,
// value): pad lists (begin, end) pairs from the last axis backwards.
llvm::Error convertPad(NodeConverter &C) {
  Value *X = C.tensor(0);
  std::vector<int64_t> P = C.getInts(1);
  if (!X)
    return C.takeError();
  bool ConstantPadNd = C.kind() == "aten::constant_pad_nd";
  std::string Mode = ConstantPadNd || C.isNone(2) ? "constant" : C.getString(2);
  std::optional<double> Value =
      ConstantPadNd ? std::optional<double>(C.getDouble(2))
                    : (C.numInputs() > 3 ? C.getOptionalDouble(3) : std::nullopt);
  int64_t Rank = X->type().rank();
  if (P.size() % 2 || int64_t(P.size()) > 2 * Rank)
    return C.fail("pad of {0} values for a rank-{1} input", P.size(), Rank);
  if (Mode == "replicate")
    Mode = "edge";
  if (Mode != "constant" && Mode != "reflect" && Mode != "edge")
    return C.fail("pad mode '{0}' is not supported", Mode);
  std::vector<int64_t> Pads(size_t(2 * Rank), 0);
  for (size_t I = 0; I < P.size() / 2; ++I) {
    size_t Axis = size_t(Rank) - 1 - I;
    Pads[Axis] = P[2 * I];
    Pads[Axis + size_t(Rank)] = P[2 * I + 1];
  }
  return finish(C, C.emit("pad", {X, C.constInts(Pads),
                                  C.constScalar(X->type().Elem, Value.value_or(0))},
                          {{"mode", Mode}}));
}

/// aten::softmax / log_softmax(input, dim, dtype)
llvm::Error convertSoftmaxLike(NodeConverter &C, const char *Op) {
  Value *X = C.tensor(0);
  int64_t Axis = C.getInt(1);
  if (C.numInputs() > 2 && !C.isNone(2))
    return C.fail("a dtype argument to {0} is not supported", Op);
  return finish(C, C.emit(Op, {X}, {{"axis", Axis}}));
}
llvm::Error convertSoftmax(NodeConverter &C) { return convertSoftmaxLike(C, "softmax"); }
llvm::Error convertLogSoftmax(NodeConverter &C) {
  return convertSoftmaxLike(C, "log_softmax");
}

/// Upsampling. Overloads: (input, output_size, [align_corners,] scales...)
/// with one optional double per axis, and .vec (input, output_size?,
/// [align_corners,] scale_factors?). PyTorch computes source coordinates
/// from the given scale when there is one, as Resize does with `scales`.
llvm::Error convertUpsample(NodeConverter &C, bool Linear) {
  Value *X = C.tensor(0);
  if (!X)
    return C.takeError();
  auto D = C.staticDims(X);
  if (!D)
    return D.takeError();
  size_t NS = D->size() - 2;
  unsigned Next = 1;
  std::vector<int64_t> Sizes = C.getOptionalInts(Next++);
  bool AlignCorners = Linear ? C.getBool(Next++) : false;
  std::vector<double> Scales;
  const torch::jit::Node *N = C.node();
  bool Vec = N->maybeSchema() && N->schema().overload_name() == "vec";
  if (Vec) {
    if (!C.isNone(Next))
      for (const TsValue &V : C.getList(Next))
        Scales.push_back(V.isConst() ? V.C.toDouble() : 0.0);
  } else {
    for (size_t I = 0; I < NS; ++I, ++Next)
      if (auto S = C.getOptionalDouble(Next))
        Scales.push_back(*S);
    if (Scales.size() != NS)
      Scales.clear();
  }
  AttrMap A;
  if (Linear) {
    A["mode"] = std::string("linear");
    A["coordinate_transformation_mode"] =
        std::string(AlignCorners ? "align_corners" : "pytorch_half_pixel");
  } else {
    A["mode"] = std::string("nearest");
    A["coordinate_transformation_mode"] = std::string("asymmetric");
    A["nearest_mode"] = std::string("floor");
  }
  if (!Scales.empty() && Sizes.empty() && !AlignCorners) {
    std::vector<float> S = {1.0f, 1.0f};
    for (double F : Scales)
      S.push_back(float(F));
    Value *SV = C.constant(Tensor::fromValues<float>(
        ElementType::F32, {Dim(int64_t(S.size()))}, S));
    return finish(C, C.emit("resize", {X, nullptr, SV}, std::move(A)));
  }
  if (Sizes.empty())
    for (size_t I = 0; I < NS && I < Scales.size(); ++I)
      Sizes.push_back(int64_t(double((*D)[2 + I]) * Scales[I]));
  if (Sizes.size() != NS)
    return C.fail("neither output_size nor scale factors for {0} axes", NS);
  std::vector<int64_t> Full = {(*D)[0], (*D)[1]};
  Full.insert(Full.end(), Sizes.begin(), Sizes.end());
  return finish(C, C.emit("resize", {X, nullptr, nullptr, C.constInts(Full)},
                          std::move(A)));
}
llvm::Error convertUpsampleBilinear(NodeConverter &C) { return convertUpsample(C, true); }
llvm::Error convertUpsampleNearest(NodeConverter &C) { return convertUpsample(C, false); }

// aten::channel_shuffle(input, groups): [N, g*k, ...] -> view [N, g, k, ...]
// -> swap g and k -> view back, as ShuffleNet's Python code does.
llvm::Error convertChannelShuffle(NodeConverter &C) {
  Value *X = C.tensor(0);
  int64_t G = C.getInt(1);
  if (!X)
    return C.takeError();
  auto D = C.staticDims(X);
  if (!D)
    return D.takeError();
  if (D->size() < 2 || G <= 0 || (*D)[1] % G != 0)
    return C.fail("{0} groups do not divide the channels of {1}", G,
                  toString(X->type()));
  std::vector<int64_t> Split = {(*D)[0], G, (*D)[1] / G};
  Split.insert(Split.end(), D->begin() + 2, D->end());
  auto R = C.emit("reshape", {X, C.constInts(Split)});
  if (!R)
    return R.takeError();
  std::vector<int64_t> Perm(Split.size());
  for (size_t I = 0; I < Perm.size(); ++I)
    Perm[I] = int64_t(I);
  std::swap(Perm[1], Perm[2]);
  auto T = C.emit("transpose", {*R}, {{"perm", Perm}});
  if (!T)
    return T.takeError();
  return finish(C, C.emit("reshape", {*T, C.constInts(*D)}));
}

const OpConverter Table[] = {
    {"aten::_convolution", convertUnderscoreConvolution},
    {"aten::conv1d", convertConvNd},
    {"aten::conv2d", convertConvNd},
    {"aten::conv3d", convertConvNd},
    {"aten::conv_transpose1d", convertConvTransposeNd},
    {"aten::conv_transpose2d", convertConvTransposeNd},
    {"aten::conv_transpose3d", convertConvTransposeNd},
    {"aten::batch_norm", convertBatchNorm},
    {"aten::layer_norm", convertLayerNorm},
    {"aten::max_pool1d", convertMaxPool},
    {"aten::max_pool2d", convertMaxPool},
    {"aten::max_pool3d", convertMaxPool},
    {"aten::avg_pool1d", convertAvgPool},
    {"aten::avg_pool2d", convertAvgPool},
    {"aten::avg_pool3d", convertAvgPool},
    {"aten::adaptive_avg_pool1d", convertAdaptiveAvgPool},
    {"aten::adaptive_avg_pool2d", convertAdaptiveAvgPool},
    {"aten::linear", convertLinear},
    {"aten::addmm", convertAddmm},
    {"aten::matmul", convertMatmul},
    {"aten::mm", convertMatmul},
    {"aten::bmm", convertMatmul},
    {"aten::dropout", convertDropout},
    {"aten::embedding", convertEmbedding},
    {"aten::pad", convertPad},
    {"aten::constant_pad_nd", convertPad},
    {"aten::feature_dropout", convertDropout},
    {"aten::alpha_dropout", convertDropout},
    {"aten::feature_alpha_dropout", convertDropout},
    {"aten::softmax", convertSoftmax},
    {"aten::log_softmax", convertLogSoftmax},
    {"aten::upsample_bilinear2d", convertUpsampleBilinear},
    {"aten::upsample_nearest2d", convertUpsampleNearest},
    {"aten::channel_shuffle", convertChannelShuffle},
};

} // namespace

llvm::ArrayRef<OpConverter> nnConverters() { return Table; }

} // namespace kiln::ts_import

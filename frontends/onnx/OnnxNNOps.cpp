// ONNX neural-network ops -> canonical IR: Conv/ConvTranspose and pooling
// (auto_pad and ConvTranspose output_shape resolved into explicit pads and
// output_padding, which needs static spatial dims), normalizations (including
// BatchNormalization training mode), Softmax/LogSoftmax (opset < 13 coerces
// to 2-D at `axis`, written as flatten -> softmax(-1) -> reshape), MatMul,
// Gemm, Dropout and depth/space rearrangements.
#include "frontends/onnx/OnnxNodeImporter.h"

#include "IR/ShapeInference.h"

namespace kiln::onnx_import {

namespace {

/// Spatial geometry shared by conv, conv_transpose and pooling.
struct Window {
  std::vector<int64_t> Kernel, Strides, Dilations, Pads;
};

/// Reads kernel/strides/dilations/pads and resolves auto_pad for conv and
/// pooling (output = ceil(in / stride) for SAME_*). Kernel: the kernel sizes
/// (from the weight for conv, kernel_shape for pooling).
llvm::Expected<Window> readWindow(NodeImporter &N, const Value *X,
                                  std::vector<int64_t> Kernel) {
  size_t NS = Kernel.size();
  Window W;
  W.Kernel = std::move(Kernel);
  W.Strides = N.attrInts("strides", std::vector<int64_t>(NS, 1));
  W.Dilations = N.attrInts("dilations", std::vector<int64_t>(NS, 1));
  W.Pads = N.attrInts("pads", std::vector<int64_t>(2 * NS, 0));
  if (W.Strides.size() != NS || W.Dilations.size() != NS ||
      W.Pads.size() != 2 * NS)
    return N.fail("strides/dilations/pads do not match {0} spatial axes", NS);
  for (size_t I = 0; I < NS; ++I)
    if (W.Strides[I] < 1 || W.Dilations[I] < 1)
      return N.fail("strides and dilations must be >= 1");
  std::string AutoPad = N.attrString("auto_pad", "NOTSET");
  if (AutoPad == "NOTSET")
    return W;
  if (AutoPad == "VALID") {
    W.Pads.assign(2 * NS, 0);
    return W;
  }
  if (AutoPad != "SAME_UPPER" && AutoPad != "SAME_LOWER")
    return N.fail("unknown auto_pad '{0}'", AutoPad);
  const TensorType &T = X->type();
  for (size_t I = 0; I < NS; ++I) {
    const Dim &In = T.Dims[2 + I];
    if (!In.isStatic() || W.Kernel[I] < 0)
      return N.fail("auto_pad={0} needs static spatial dims, input is {1}; "
                    "fix them with --input-shape",
                    AutoPad, toString(T));
    int64_t Out = (In.size() + W.Strides[I] - 1) / W.Strides[I];
    int64_t Total = std::max<int64_t>(
        0, (Out - 1) * W.Strides[I] + (W.Kernel[I] - 1) * W.Dilations[I] + 1 -
               In.size());
    int64_t Small = Total / 2, Big = Total - Small;
    W.Pads[I] = AutoPad == "SAME_UPPER" ? Small : Big;
    W.Pads[NS + I] = AutoPad == "SAME_UPPER" ? Big : Small;
  }
  return W;
}

/// Kernel sizes from a weight [M, C/g, k...] (-1 where not static).
std::vector<int64_t> weightKernel(const Value *W) {
  std::vector<int64_t> K;
  for (size_t I = 2; I < W->type().Dims.size(); ++I)
    K.push_back(W->type().Dims[I].isStatic() ? W->type().Dims[I].size() : -1);
  return K;
}

} // namespace

llvm::Expected<Node *> emitConv(NodeImporter &N, Value *X, Value *W, Value *B) {
  const TensorType &XT = X->type(), &WT = W->type();
  if (XT.rank() < 3 || WT.rank() != XT.rank())
    return N.fail("input {0} and weight {1} must have the same rank >= 3",
                  toString(XT), toString(WT));
  int64_t Group = N.attrInt("group", 1);
  if (Group < 1)
    return N.fail("group={0} must be >= 1", Group);
  const Dim &C = XT.Dims[1];
  if (C.isStatic() && C.size() % Group != 0)
    return N.fail("group={0} does not divide {1} input channels", Group,
                  C.size());
  auto Win = readWindow(N, X, N.attrInts("kernel_shape", weightKernel(W)));
  if (!Win)
    return Win.takeError();
  return N.emitNode("conv", {X, W, B},
                    {{"strides", Win->Strides},
                     {"pads", Win->Pads},
                     {"dilations", Win->Dilations},
                     {"group", Group}});
}

namespace {

llvm::Error convertConv(NodeImporter &N) {
  auto X = N.required(0), W = N.required(1);
  if (!X) return X.takeError();
  if (!W) return W.takeError();
  return finish(N, emitConv(N, *X, *W, N.input(2)));
}

/// ConvTranspose: output_shape (or SAME_* auto_pad) is turned into pads and
/// output_padding, following ONNX Runtime: total = stride*(in-1) + outpad +
/// (k-1)*dil + 1 - out; a negative total becomes extra output_padding.
llvm::Error convertConvTranspose(NodeImporter &N) {
  auto X = N.required(0), W = N.required(1);
  if (!X) return X.takeError();
  if (!W) return W.takeError();
  const TensorType &XT = (*X)->type();
  if (XT.rank() < 3 || (*W)->type().rank() != XT.rank())
    return N.fail("input {0} and weight {1} must have the same rank >= 3",
                  toString(XT), toString((*W)->type()));
  size_t NS = size_t(XT.rank() - 2);
  std::vector<int64_t> K = N.attrInts("kernel_shape", weightKernel(*W));
  std::vector<int64_t> Strides = N.attrInts("strides", std::vector<int64_t>(NS, 1));
  std::vector<int64_t> Dil = N.attrInts("dilations", std::vector<int64_t>(NS, 1));
  std::vector<int64_t> Pads = N.attrInts("pads", std::vector<int64_t>(2 * NS, 0));
  std::vector<int64_t> OutPad =
      N.attrInts("output_padding", std::vector<int64_t>(NS, 0));
  std::vector<int64_t> OutShape = N.attrInts("output_shape");
  std::string AutoPad = N.attrString("auto_pad", "NOTSET");
  if (K.size() != NS || Strides.size() != NS || Dil.size() != NS ||
      Pads.size() != 2 * NS || OutPad.size() != NS)
    return N.fail("kernel_shape/strides/dilations/pads/output_padding do not "
                  "match {0} spatial axes",
                  NS);
  if (OutShape.size() > NS) // output_shape may include N and C
    OutShape.erase(OutShape.begin(), OutShape.end() - NS);
  bool Same = AutoPad == "SAME_UPPER" || AutoPad == "SAME_LOWER";
  if (AutoPad == "VALID")
    Pads.assign(2 * NS, 0);
  if (!OutShape.empty() || Same) {
    for (size_t I = 0; I < NS; ++I) {
      const Dim &In = XT.Dims[2 + I];
      if (!In.isStatic() || K[I] < 0)
        return N.fail("output_shape/auto_pad need static spatial dims, input "
                      "is {0}",
                      toString(XT));
      int64_t Out = OutShape.empty() ? In.size() * Strides[I] : OutShape[I];
      int64_t Total = Strides[I] * (In.size() - 1) + OutPad[I] +
                      (K[I] - 1) * Dil[I] + 1 - Out;
      if (Total < 0) {
        OutPad[I] -= Total;
        Total = 0;
      }
      bool HeadBig = OutShape.empty() ? AutoPad == "SAME_LOWER"
                                      : AutoPad == "SAME_UPPER";
      Pads[I] = HeadBig ? Total - Total / 2 : Total / 2;
      Pads[NS + I] = Total - Pads[I];
    }
  }
  return finish(N, N.emitNode("conv_transpose", {*X, *W, N.input(2)},
                              {{"strides", Strides},
                               {"pads", Pads},
                               {"dilations", Dil},
                               {"output_padding", OutPad},
                               {"group", N.attrInt("group", 1)}}));
}

llvm::Error convertPool(NodeImporter &N, bool IsMax) {
  auto X = N.required(0);
  if (!X) return X.takeError();
  if ((*X)->type().rank() < 3)
    return N.fail("input must have rank >= 3, got {0}", toString((*X)->type()));
  std::vector<int64_t> K = N.attrInts("kernel_shape");
  if (K.size() != size_t((*X)->type().rank() - 2))
    return N.fail("kernel_shape has {0} values for {1} spatial axes", K.size(),
                  (*X)->type().rank() - 2);
  auto Win = readWindow(N, *X, K);
  if (!Win)
    return Win.takeError();
  AttrMap A = {{"kernel", Win->Kernel},
               {"strides", Win->Strides},
               {"pads", Win->Pads},
               {"ceil_mode", N.attrInt("ceil_mode", 0)}};
  if (IsMax) {
    A["dilations"] = Win->Dilations;
    A["storage_order"] = N.attrInt("storage_order", 0);
    return finish(N, N.emitNode("max_pool", {*X}, std::move(A),
                                N.hasOutput(1) ? 2 : 1));
  }
  A["count_include_pad"] = N.attrInt("count_include_pad", 0);
  return finish(N, N.emitNode("avg_pool", {*X}, std::move(A)));
}
llvm::Error convertMaxPool(NodeImporter &N) { return convertPool(N, true); }
llvm::Error convertAveragePool(NodeImporter &N) { return convertPool(N, false); }

llvm::Error globalPool(NodeImporter &N, llvm::StringRef Op) {
  auto X = N.required(0);
  if (!X) return X.takeError();
  return finish(N, N.emitNode(Op, {*X}));
}
llvm::Error convertGlobalAveragePool(NodeImporter &N) {
  return globalPool(N, "global_avg_pool");
}
llvm::Error convertGlobalMaxPool(NodeImporter &N) {
  return globalPool(N, "global_max_pool");
}

/// Results up to the last present ONNX output, at least 1, at most Max.
unsigned presentOutputs(const NodeImporter &N, unsigned Max) {
  unsigned R = 1;
  for (unsigned I = 1; I < std::min(N.numOutputs(), Max); ++I)
    if (N.hasOutput(I))
      R = I + 1;
  return R;
}

/// BatchNormalization: training_mode (opset 14+) or, before 14, the presence
/// of the running mean/var outputs selects training mode. The saved
/// mean/inv-std outputs of opsets 7-13 have no canonical counterpart.
llvm::Error convertBatchNorm(NodeImporter &N) {
  std::vector<Value *> Ops;
  for (unsigned I = 0; I < 5; ++I) {
    auto V = N.required(I);
    if (!V) return V.takeError();
    Ops.push_back(*V);
  }
  if (N.opset() < 9 && N.attrInt("spatial", 1) != 1)
    return N.fail("spatial=0 (per-activation statistics) is not supported");
  if (N.hasOutput(3) || N.hasOutput(4))
    return N.fail("the saved_mean/saved_var outputs are not supported");
  unsigned Results = presentOutputs(N, 3);
  int64_t Training =
      N.opset() >= 14 ? N.attrInt("training_mode", 0) : int64_t(Results > 1);
  if (!Training)
    Results = 1;
  return finish(N, N.emitNode("batch_norm", Ops,
                              {{"epsilon", N.attrFloat("epsilon", 1e-5)},
                               {"momentum", N.attrFloat("momentum", 0.9)},
                               {"training", Training}},
                              Results));
}

llvm::Error convertInstanceNorm(NodeImporter &N) {
  auto X = N.required(0), S = N.required(1), B = N.required(2);
  if (!X) return X.takeError();
  if (!S) return S.takeError();
  if (!B) return B.takeError();
  return finish(N, N.emitNode("instance_norm", {*X, *S, *B},
                              {{"epsilon", N.attrFloat("epsilon", 1e-5)}}));
}

llvm::Error convertLayerNorm(NodeImporter &N) {
  auto X = N.required(0), S = N.required(1);
  if (!X) return X.takeError();
  if (!S) return S.takeError();
  return finish(N, N.emitNode("layer_norm", {*X, *S, N.input(2)},
                              {{"axis", N.attrInt("axis", -1)},
                               {"epsilon", N.attrFloat("epsilon", 1e-5)},
                               {"stash_type", N.attrInt("stash_type", 1)}},
                              presentOutputs(N, 3)));
}

llvm::Error convertLRN(NodeImporter &N) {
  auto X = N.required(0);
  if (!X) return X.takeError();
  if (!N.hasAttr("size"))
    return N.fail("attribute 'size' is required");
  return finish(N, N.emitNode("lrn", {*X},
                              {{"size", N.attrInt("size", 1)},
                               {"alpha", N.attrFloat("alpha", 1e-4)},
                               {"beta", N.attrFloat("beta", 0.75)},
                               {"bias", N.attrFloat("bias", 1.0)}}));
}

/// Softmax-13+ works along one axis. Older versions flatten the input to 2-D
/// at `axis` (default 1) and normalize each row; unless axis is the last one,
/// that is flatten -> softmax(-1) -> reshape back.
llvm::Error softmax(NodeImporter &N, llvm::StringRef Op) {
  auto X = N.required(0);
  if (!X) return X.takeError();
  int64_t Rank = (*X)->type().rank();
  if (N.opset() >= 13)
    return finish(N, N.emitNode(Op, {*X}, {{"axis", N.attrInt("axis", -1)}}));
  auto Axis = normalizeAxis(N.attrInt("axis", 1), std::max<int64_t>(Rank, 1));
  if (!Axis)
    return N.fail("{0}", llvm::toString(Axis.takeError()));
  if (*Axis == Rank - 1 || Rank <= 1)
    return finish(N, N.emitNode(Op, {*X}, {{"axis", int64_t(-1)}}));
  auto Flat = N.emit("flatten", {*X}, {{"axis", *Axis}});
  if (!Flat) return Flat.takeError();
  auto Soft = N.emit(Op, {*Flat}, {{"axis", int64_t(-1)}});
  if (!Soft) return Soft.takeError();
  Value *ShapeV;
  if ((*X)->type().isStatic()) {
    ShapeV = N.constInts(staticSizes((*X)->type().Dims));
  } else {
    auto S = N.emit("shape", {*X});
    if (!S) return S.takeError();
    ShapeV = *S;
  }
  auto R = N.emit("reshape", {*Soft, ShapeV});
  if (!R) return R.takeError();
  N.bind(0, *R);
  return N.takeError();
}
llvm::Error convertSoftmax(NodeImporter &N) { return softmax(N, "softmax"); }
llvm::Error convertLogSoftmax(NodeImporter &N) {
  return softmax(N, "log_softmax");
}

llvm::Error convertMatMul(NodeImporter &N) {
  auto A = N.required(0), B = N.required(1);
  if (!A) return A.takeError();
  if (!B) return B.takeError();
  return finish(N, N.emitNode("matmul", {*A, *B}));
}

llvm::Error convertGemm(NodeImporter &N) {
  auto A = N.required(0), B = N.required(1);
  if (!A) return A.takeError();
  if (!B) return B.takeError();
  return finish(N, N.emitNode("gemm", {*A, *B, N.input(2)},
                              {{"alpha", N.attrFloat("alpha", 1.0)},
                               {"beta", N.attrFloat("beta", 1.0)},
                               {"trans_a", N.attrInt("transA", 0)},
                               {"trans_b", N.attrInt("transB", 0)}}));
}

/// Dropout: ratio is an attribute before opset 12 and an optional input from
/// 12 on (a constant one becomes the attribute); training_mode stays an
/// operand; the mask is the optional second result.
llvm::Error convertDropout(NodeImporter &N) {
  auto X = N.required(0);
  if (!X) return X.takeError();
  AttrMap A = {{"seed", N.attrInt("seed", 0)}};
  Value *Ratio = nullptr, *Training = nullptr;
  if (N.opset() < 12) {
    A["ratio"] = N.attrFloat("ratio", 0.5);
  } else {
    Ratio = N.input(1);
    Training = N.input(2);
    if (auto C = Ratio ? constantFloats(Ratio) : llvm::None;
        C && C->size() == 1) {
      A["ratio"] = (*C)[0];
      Ratio = nullptr;
    }
  }
  std::vector<Value *> Ops = {*X, Ratio, Training};
  while (Ops.size() > 1 && !Ops.back())
    Ops.pop_back();
  return finish(N, N.emitNode("dropout", Ops, std::move(A),
                              N.hasOutput(1) ? 2 : 1));
}

llvm::Error convertDepthToSpace(NodeImporter &N) {
  auto X = N.required(0);
  if (!X) return X.takeError();
  return finish(N, N.emitNode("depth_to_space", {*X},
                              {{"blocksize", N.attrInt("blocksize", 0)},
                               {"mode", N.attrString("mode", "DCR")}}));
}

llvm::Error convertSpaceToDepth(NodeImporter &N) {
  auto X = N.required(0);
  if (!X) return X.takeError();
  return finish(N, N.emitNode("space_to_depth", {*X},
                              {{"blocksize", N.attrInt("blocksize", 0)}}));
}

const OpConverter Converters[] = {
    {"Conv", convertConv, 1},
    {"ConvTranspose", convertConvTranspose, 1},
    {"MaxPool", convertMaxPool, 1},
    {"AveragePool", convertAveragePool, 7},
    {"GlobalAveragePool", convertGlobalAveragePool, 1},
    {"GlobalMaxPool", convertGlobalMaxPool, 1},
    {"BatchNormalization", convertBatchNorm, 7},
    {"InstanceNormalization", convertInstanceNorm, 6},
    {"LayerNormalization", convertLayerNorm, 17},
    {"LRN", convertLRN, 1},
    {"Softmax", convertSoftmax, 1},
    {"LogSoftmax", convertLogSoftmax, 1},
    {"MatMul", convertMatMul, 1},
    {"Gemm", convertGemm, 7},
    {"Dropout", convertDropout, 7},
    {"DepthToSpace", convertDepthToSpace, 1},
    {"SpaceToDepth", convertSpaceToDepth, 1},
};

} // namespace

llvm::ArrayRef<OpConverter> nnConverters() { return Converters; }

} // namespace kiln::onnx_import

// Neural-network ops: convolution, normalization, pooling, resize, softmax,
// matrix products. Layout is NCHW (N, C, spatial...) throughout. conv,
// conv_transpose, matmul, gemm and linear carry a fused activation
// (FusedActivation.h), applied to the result after any bias.
#include "IR/Graph.h"
#include "IR/ShapeInference.h"
#include "IR/ops/OpBuilder.h"
#include "Support/Error.h"
#include "Support/Limits.h"

#include <cmath>

namespace kiln {

using Types = llvm::Expected<std::vector<TensorType>>;

static llvm::Error requireRankAtLeast(const Value *V, int64_t Rank,
                                      llvm::StringRef What) {
  if (V->type().rank() < Rank)
    return inputError("{0} must have rank >= {1}, got {2}", What, Rank,
                      toString(V->type()));
  return llvm::Error::success();
}

static Types inferConv(const Node &N) {
  const TensorType &X = N.operand(0)->type(), &W = N.operand(1)->type();
  if (auto E = requireRankAtLeast(N.operand(0), 3, "conv input"))
    return E;
  if (W.rank() != X.rank())
    return inputError("conv weight {0} and input {1} differ in rank",
                      toString(W), toString(X));
  size_t NS = size_t(X.rank() - 2);
  auto Strides = spatialAttr(N, "strides", NS, 1);
  auto Dil = spatialAttr(N, "dilations", NS, 1);
  auto Pads = padsAttr(N, NS);
  if (!Strides) return Strides.takeError();
  if (!Dil) return Dil.takeError();
  if (!Pads) return Pads.takeError();
  int64_t Group = N.getInt("group");
  if (Group < 1)
    return inputError("group must be >= 1, got {0}", Group);
  const Dim &C = X.Dims[1], &WC = W.Dims[1], &M = W.Dims[0];
  if (C.isStatic() && WC.isStatic() && C.size() != WC.size() * Group)
    return inputError("input has {0} channels but weight expects {1} x group "
                      "{2}",
                      C.size(), WC.size(), Group);
  if (M.isStatic() && M.size() % Group != 0)
    return inputError("group={0} does not divide {1} output channels", Group,
                      M.size());
  if (N.numOperands() > 2 && N.operand(2)) {
    const TensorType &B = N.operand(2)->type();
    if (B.rank() != 1 || (B.Dims[0].isStatic() && M.isStatic() &&
                          B.Dims[0].size() != M.size()))
      return inputError("bias {0} does not match {1} output channels",
                        toString(B), toString(W.Dims));
  }
  Shape Out = {X.Dims[0], M};
  for (size_t I = 0; I < NS; ++I) {
    const Dim &In = X.Dims[2 + I], &K = W.Dims[2 + I];
    if (In.isStatic() && K.isStatic()) {
      int64_t O = slidingOutputSize(In.size(), K.size(), (*Strides)[I],
                                    (*Pads)[I], (*Pads)[NS + I], (*Dil)[I],
                                    false);
      if (O <= 0)
        return inputError("kernel {0} does not fit input size {1} on spatial "
                          "axis {2}",
                          K.size(), In.size(), I);
      Out.push_back(O);
    } else {
      Out.push_back(Dim());
    }
  }
  return std::vector<TensorType>{withShape(X, Out)};
}

static Types inferConvTranspose(const Node &N) {
  const TensorType &X = N.operand(0)->type(), &W = N.operand(1)->type();
  if (auto E = requireRankAtLeast(N.operand(0), 3, "conv_transpose input"))
    return E;
  if (W.rank() != X.rank())
    return inputError("weight {0} and input {1} differ in rank", toString(W),
                      toString(X));
  size_t NS = size_t(X.rank() - 2);
  auto Strides = spatialAttr(N, "strides", NS, 1);
  auto Dil = spatialAttr(N, "dilations", NS, 1);
  auto OutPad = spatialAttr(N, "output_padding", NS, 0);
  auto Pads = padsAttr(N, NS);
  if (!Strides) return Strides.takeError();
  if (!Dil) return Dil.takeError();
  if (!OutPad) return OutPad.takeError();
  if (!Pads) return Pads.takeError();
  int64_t Group = N.getInt("group");
  if (Group < 1)
    return inputError("group must be >= 1, got {0}", Group);
  Dim M = W.Dims[1].isStatic() ? Dim(W.Dims[1].size() * Group) : Dim();
  Shape Out = {X.Dims[0], M};
  for (size_t I = 0; I < NS; ++I) {
    const Dim &In = X.Dims[2 + I], &K = W.Dims[2 + I];
    if (In.isStatic() && K.isStatic()) {
      int64_t Spread, Dilated;
      if (__builtin_mul_overflow((*Strides)[I], In.size() - 1, &Spread) ||
          __builtin_mul_overflow(K.size() - 1, (*Dil)[I], &Dilated) ||
          Spread > limits::MaxDim || Dilated > limits::MaxDim)
        return inputError("the output is larger than the limit of {0} on "
                          "spatial axis {1}",
                          limits::MaxDim, I);
      int64_t O = Spread + (*OutPad)[I] + Dilated + 1 - (*Pads)[I] -
                  (*Pads)[NS + I];
      if (In.size() < 1 || O <= 0)
        return inputError("pads {0} and {1} leave no output from input size "
                          "{2} on spatial axis {3}",
                          (*Pads)[I], (*Pads)[NS + I], In.size(), I);
      Out.push_back(O);
    } else {
      Out.push_back(Dim());
    }
  }
  return std::vector<TensorType>{withShape(X, Out)};
}

static Types inferSameAsInput(const Node &N) {
  std::vector<TensorType> R(N.numResults(), N.operand(0)->type());
  return R;
}

static Types inferBatchNorm(const Node &N) {
  if (auto E = requireRankAtLeast(N.operand(0), 2, "batch_norm input"))
    return E;
  for (unsigned I = 1; I < 5; ++I)
    if (N.operand(I)->type().rank() != 1)
      return inputError("batch_norm parameter {0} must be 1-D, got {1}", I,
                        toString(N.operand(I)->type()));
  std::vector<TensorType> R = {N.operand(0)->type()};
  for (unsigned I = 1; I < N.numResults(); ++I)
    R.push_back(N.operand(3)->type()); // running mean / var (training mode)
  return R;
}

static Types inferLayerNorm(const Node &N) {
  const TensorType &X = N.operand(0)->type();
  auto Axis = normalizeAxis(N.getInt("axis"), X.rank());
  if (!Axis)
    return Axis.takeError();
  std::vector<TensorType> R = {X};
  Shape Stat = X.Dims;
  for (size_t I = size_t(*Axis); I < Stat.size(); ++I)
    Stat[I] = Dim(1);
  for (unsigned I = 1; I < N.numResults(); ++I)
    R.push_back(TensorType(ElementType::F32, Stat));
  return R;
}

static Types inferPool(const Node &N) {
  const TensorType &X = N.operand(0)->type();
  if (auto E = requireRankAtLeast(N.operand(0), 3, "pooling input"))
    return E;
  size_t NS = size_t(X.rank() - 2);
  const std::vector<int64_t> &K = N.getInts("kernel");
  if (K.size() != NS)
    return inputError("'kernel' has {0} values, expected {1}", K.size(), NS);
  auto Strides = spatialAttr(N, "strides", NS, 1);
  auto Dil = N.def().findAttr("dilations") ? spatialAttr(N, "dilations", NS, 1)
                                           : std::vector<int64_t>(NS, 1);
  auto Pads = padsAttr(N, NS);
  if (!Strides) return Strides.takeError();
  if (!Dil) return Dil.takeError();
  if (!Pads) return Pads.takeError();
  bool Ceil = N.getInt("ceil_mode") != 0;
  Shape Out = {X.Dims[0], X.Dims[1]};
  for (size_t I = 0; I < NS; ++I) {
    if (K[I] < 1 || K[I] > limits::MaxSpatialParam)
      return inputError("'kernel' has the value {0}, expected 1 to {1}", K[I],
                        limits::MaxSpatialParam);
    const Dim &In = X.Dims[2 + I];
    if (!In.isStatic()) {
      Out.push_back(Dim());
      continue;
    }
    // An empty output is refused here rather than at run time, where the
    // backends' kernels assert on it.
    int64_t O = slidingOutputSize(In.size(), K[I], (*Strides)[I], (*Pads)[I],
                                  (*Pads)[NS + I], (*Dil)[I], Ceil);
    if (O <= 0)
      return inputError("pooling window {0} (dilation {1}) is larger than "
                        "the padded input size {2} on spatial axis {3}",
                        K[I], (*Dil)[I],
                        In.size() + (*Pads)[I] + (*Pads)[NS + I], I);
    Out.push_back(O);
  }
  std::vector<TensorType> R = {withShape(X, Out)};
  if (N.numResults() > 1)
    R.push_back(TensorType(ElementType::I64, Out));
  return R;
}

static Types inferGlobalPool(const Node &N) {
  const TensorType &X = N.operand(0)->type();
  if (auto E = requireRankAtLeast(N.operand(0), 3, "pooling input"))
    return E;
  Shape Out = X.Dims;
  for (size_t I = 2; I < Out.size(); ++I)
    Out[I] = Dim(1);
  return std::vector<TensorType>{withShape(X, Out)};
}

static Types inferDepthToSpace(const Node &N) {
  const TensorType &X = N.operand(0)->type();
  if (X.rank() != 4)
    return inputError("input must be 4-D NCHW, got {0}", toString(X));
  int64_t B = N.getInt("blocksize");
  if (B < 1)
    return inputError("blocksize must be >= 1");
  bool ToSpace = N.isOp("depth_to_space");
  auto Scale = [&](const Dim &D, bool Mul) -> Dim {
    if (!D.isStatic())
      return Dim();
    return Mul ? Dim(D.size() * B) : Dim(D.size() / B);
  };
  const Dim &C = X.Dims[1];
  if (ToSpace && C.isStatic() && C.size() % (B * B))
    return inputError("{0} channels not divisible by blocksize^2={1}", C.size(),
                      B * B);
  if (!ToSpace)
    for (int I = 2; I < 4; ++I)
      if (X.Dims[I].isStatic() && X.Dims[I].size() % B)
        return inputError("spatial size {0} not divisible by blocksize {1}",
                          X.Dims[I].size(), B);
  Shape Out = {X.Dims[0],
               C.isStatic() ? Dim(ToSpace ? C.size() / (B * B) : C.size() * B * B)
                            : Dim(),
               Scale(X.Dims[2], ToSpace), Scale(X.Dims[3], ToSpace)};
  return std::vector<TensorType>{withShape(X, Out)};
}

/// LRN's window across channels: at least one channel (0 divides alpha).
static Types inferLrn(const Node &N) {
  int64_t Size = N.getInt("size");
  if (Size < 1 || Size > limits::MaxSpatialParam)
    return inputError("lrn size is {0}, expected 1 to {1}", Size,
                      limits::MaxSpatialParam);
  return inferSameAsInput(N);
}

static Types inferResize(const Node &N) {
  const TensorType &X = N.operand(0)->type();
  Shape Out = unknownShape(X.rank());
  const Value *Scales = N.numOperands() > 2 ? N.operand(2) : nullptr;
  const Value *Sizes = N.numOperands() > 3 ? N.operand(3) : nullptr;
  if (auto S = constantInts(Sizes); S && S->size() == size_t(X.rank())) {
    for (size_t I = 0; I < S->size(); ++I)
      if ((*S)[I] < 0)
        return inputError("resize size {0} on axis {1} is negative", (*S)[I],
                          I);
    Out = makeShape(*S);
  } else if (auto F = constantFloats(Scales);
             F && F->size() == size_t(X.rank())) {
    for (size_t I = 0; I < Out.size(); ++I) {
      // A scale sizes the output: NaN, infinite, zero or negative has none.
      double Scale = (*F)[I];
      if (!(Scale > 0) || !std::isfinite(Scale) ||
          Scale > double(limits::MaxSpatialParam))
        return inputError("resize scale {0} on axis {1} is not a finite "
                          "number in (0, {2}]",
                          Scale, I, limits::MaxSpatialParam);
      if (X.Dims[I].isStatic()) {
        double Size = double(X.Dims[I].size()) * Scale;
        if (Size > double(limits::MaxDim))
          return inputError("resize scale {0} takes axis {1} of size {2} "
                            "beyond the largest dim, {3}",
                            Scale, I, X.Dims[I].size(), limits::MaxDim);
        Out[I] = Dim(int64_t(Size));
      }
    }
  }
  return std::vector<TensorType>{withShape(X, Out)};
}

static Types inferMatMul(const Node &N) {
  const TensorType &A = N.operand(0)->type(), &B = N.operand(1)->type();
  if (A.rank() < 1 || B.rank() < 1)
    return inputError("matmul operands must have rank >= 1");
  Shape SA = A.Dims, SB = B.Dims;
  bool VecA = SA.size() == 1, VecB = SB.size() == 1;
  if (VecA) SA.insert(SA.begin(), Dim(1));
  if (VecB) SB.push_back(Dim(1));
  const Dim &K1 = SA.back(), &K2 = SB[SB.size() - 2];
  if (K1.isStatic() && K2.isStatic() && K1.size() != K2.size())
    return inputError("matmul inner dims differ: {0} vs {1}", toString(A),
                      toString(B));
  Shape BA(SA.begin(), SA.end() - 2), BB(SB.begin(), SB.end() - 2);
  auto Batch = broadcastShapes(BA, BB);
  if (!Batch)
    return Batch.takeError();
  Shape Out = *Batch;
  if (!VecA) Out.push_back(SA[SA.size() - 2]);
  if (!VecB) Out.push_back(SB.back());
  return std::vector<TensorType>{withShape(A, Out)};
}

static Types inferGemm(const Node &N) {
  const TensorType &A = N.operand(0)->type(), &B = N.operand(1)->type();
  if (A.rank() != 2 || B.rank() != 2)
    return inputError("gemm operands must be 2-D, got {0} and {1}", toString(A),
                      toString(B));
  Dim M = N.getInt("trans_a") ? A.Dims[1] : A.Dims[0];
  Dim KA = N.getInt("trans_a") ? A.Dims[0] : A.Dims[1];
  Dim KB = N.getInt("trans_b") ? B.Dims[1] : B.Dims[0];
  Dim Nn = N.getInt("trans_b") ? B.Dims[0] : B.Dims[1];
  if (KA.isStatic() && KB.isStatic() && KA.size() != KB.size())
    return inputError("gemm inner dims differ: {0} vs {1}", KA.size(), KB.size());
  return std::vector<TensorType>{withShape(A, {M, Nn})};
}

static Types inferLinear(const Node &N) {
  const TensorType &X = N.operand(0)->type(), &W = N.operand(1)->type();
  if (X.rank() < 1 || W.rank() != 2)
    return inputError("linear needs x of rank >= 1 and a 2-D weight [out,in], "
                      "got {0} and {1}",
                      toString(X), toString(W));
  if (X.Dims.back().isStatic() && W.Dims[1].isStatic() &&
      X.Dims.back().size() != W.Dims[1].size())
    return inputError("linear input has {0} features, weight expects {1}",
                      X.Dims.back().size(), W.Dims[1].size());
  Shape Out = X.Dims;
  Out.back() = W.Dims[0];
  return std::vector<TensorType>{withShape(X, Out)};
}

static Types inferSoftmax(const Node &N) {
  if (auto A = normalizeAxis(N.getInt("axis"), N.operand(0)->type().rank());
      !A)
    return A.takeError();
  return std::vector<TensorType>{N.operand(0)->type()};
}

void registerConvOps(OpRegistry &R) {
  OpBuilder("conv", "nn", "N-d convolution, NCHW; weight [M, C/group, k...]")
      .operand("x").operand("w").optional("b")
      .attr("strides", AttrKind::Ints, Ints{}, "per spatial axis; empty = 1")
      .attr("pads", AttrKind::Ints, Ints{}, "begins then ends; empty = 0")
      .attr("dilations", AttrKind::Ints, Ints{}, "per spatial axis; empty = 1")
      .attr("group", AttrKind::Int, int64_t(1))
      .fusedActivation()
      .verify(verifyFusedActivation)
      .infer(inferConv).into(R);
  OpBuilder("conv_transpose", "nn", "N-d transposed convolution; weight [C, M/group, k...]")
      .operand("x").operand("w").optional("b")
      .attr("strides", AttrKind::Ints, Ints{})
      .attr("pads", AttrKind::Ints, Ints{})
      .attr("dilations", AttrKind::Ints, Ints{})
      .attr("output_padding", AttrKind::Ints, Ints{})
      .attr("group", AttrKind::Int, int64_t(1))
      .fusedActivation()
      .verify(verifyFusedActivation)
      .infer(inferConvTranspose).into(R);
  OpBuilder("batch_norm", "nn", "y = (x - mean) / sqrt(var + eps) * scale + bias, per channel")
      .operand("x").operand("scale").operand("bias").operand("mean").operand("var")
      .results(1, 3)
      .attr("epsilon", AttrKind::Float, 1e-5)
      .attr("momentum", AttrKind::Float, 0.9, "training mode only")
      .attr("training", AttrKind::Int, int64_t(0), "1: normalize with batch statistics")
      .infer(inferBatchNorm).into(R);
  OpBuilder("instance_norm", "nn", "per-instance, per-channel normalization")
      .operand("x").operand("scale").operand("bias")
      .attr("epsilon", AttrKind::Float, 1e-5)
      .infer(inferSameAsInput).into(R);
  OpBuilder("layer_norm", "nn", "normalization over the axes from 'axis' on")
      .operand("x").operand("scale").optional("bias")
      .results(1, 3)
      .attr("axis", AttrKind::Int, int64_t(-1))
      .attr("epsilon", AttrKind::Float, 1e-5)
      .attr("stash_type", AttrKind::Int, int64_t(1), "element type of mean/inv_std results")
      .infer(inferLayerNorm).into(R);
  OpBuilder("lrn", "nn", "local response normalization across channels")
      .operand("x")
      .required("size", AttrKind::Int)
      .attr("alpha", AttrKind::Float, 1e-4)
      .attr("beta", AttrKind::Float, 0.75)
      .attr("bias", AttrKind::Float, 1.0)
      .infer(inferLrn).into(R);
  OpBuilder("max_pool", "nn", "N-d max pooling; optional second result: flat indices")
      .operand("x").results(1, 2)
      .required("kernel", AttrKind::Ints)
      .attr("strides", AttrKind::Ints, Ints{})
      .attr("pads", AttrKind::Ints, Ints{})
      .attr("dilations", AttrKind::Ints, Ints{})
      .attr("ceil_mode", AttrKind::Int, int64_t(0))
      .attr("storage_order", AttrKind::Int, int64_t(0), "indices: 0 row-major, 1 column-major")
      .infer(inferPool).into(R);
  OpBuilder("avg_pool", "nn", "N-d average pooling")
      .operand("x")
      .required("kernel", AttrKind::Ints)
      .attr("strides", AttrKind::Ints, Ints{})
      .attr("pads", AttrKind::Ints, Ints{})
      .attr("ceil_mode", AttrKind::Int, int64_t(0))
      .attr("count_include_pad", AttrKind::Int, int64_t(0))
      .infer(inferPool).into(R);
  OpBuilder("global_avg_pool", "nn", "mean over all spatial axes, kept as size 1")
      .operand("x").infer(inferGlobalPool).into(R);
  OpBuilder("global_max_pool", "nn", "max over all spatial axes, kept as size 1")
      .operand("x").infer(inferGlobalPool).into(R);
  OpBuilder("depth_to_space", "nn", "moves channel blocks into spatial blocks")
      .operand("x")
      .required("blocksize", AttrKind::Int)
      .attr("mode", AttrKind::String, std::string("DCR"), "DCR or CRD")
      .infer(inferDepthToSpace).into(R);
  OpBuilder("space_to_depth", "nn", "moves spatial blocks into channels")
      .operand("x")
      .required("blocksize", AttrKind::Int)
      .infer(inferDepthToSpace).into(R);
  OpBuilder("resize", "nn", "N-d resize (ONNX Resize semantics); scales or sizes")
      .operand("x").optional("roi").optional("scales").optional("sizes")
      .attr("mode", AttrKind::String, std::string("nearest"), "nearest, linear or cubic")
      .attr("coordinate_transformation_mode", AttrKind::String, std::string("half_pixel"))
      .attr("nearest_mode", AttrKind::String, std::string("round_prefer_floor"))
      .attr("cubic_coeff_a", AttrKind::Float, -0.75)
      .attr("exclude_outside", AttrKind::Int, int64_t(0))
      .attr("extrapolation_value", AttrKind::Float, 0.0)
      .infer(inferResize).into(R);
  OpBuilder("softmax", "nn", "exp(x) / sum(exp(x)) along one axis")
      .operand("x").attr("axis", AttrKind::Int, int64_t(-1))
      .infer(inferSoftmax).into(R);
  OpBuilder("log_softmax", "nn", "log(softmax(x)) along one axis")
      .operand("x").attr("axis", AttrKind::Int, int64_t(-1))
      .infer(inferSoftmax).into(R);
  OpBuilder("matmul", "nn", "numpy matmul with batch broadcasting")
      .operand("a").operand("b")
      .fusedActivation()
      .verify(verifyFusedActivation)
      .infer(inferMatMul).into(R);
  OpBuilder("gemm", "nn", "alpha * op(a) . op(b) + beta * c, 2-D")
      .operand("a").operand("b").optional("c")
      .attr("alpha", AttrKind::Float, 1.0)
      .attr("beta", AttrKind::Float, 1.0)
      .attr("trans_a", AttrKind::Int, int64_t(0))
      .attr("trans_b", AttrKind::Int, int64_t(0))
      .fusedActivation()
      .verify(verifyFusedActivation)
      .infer(inferGemm).into(R);
  OpBuilder("linear", "nn", "y = x . w^T + b; w is [out, in] (PyTorch/XNNPACK layout)")
      .operand("x").operand("w").optional("b")
      .fusedActivation()
      .verify(verifyFusedActivation)
      .infer(inferLinear).into(R);
  OpBuilder("dropout", "nn", "identity in inference; training mode drops with 'ratio'")
      .operand("x").optional("ratio").optional("training").results(1, 2)
      .attr("ratio", AttrKind::Float, 0.5)
      .attr("seed", AttrKind::Int, int64_t(0))
      .infer([](const Node &N) -> Types {
        std::vector<TensorType> Out = {N.operand(0)->type()};
        if (N.numResults() > 1)
          Out.push_back(TensorType(ElementType::Bool, N.operand(0)->type().Dims));
        return Out;
      }).into(R);
}

} // namespace kiln

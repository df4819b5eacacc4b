// ONNX constants, reductions and resizing -> canonical IR.
// Constant's value/value_float(s)/value_int(s) become `const`; reduction axes
// given as attributes (before opset 13 for ReduceSum, 18 for the others)
// become an i64 operand; ReduceL1/L2/SumSquare/LogSum/LogSumExp are written
// with reduce_sum. Upsample and Resize-10 become resize with ONNX's legacy
// asymmetric/floor sampling; empty roi/scales placeholders are dropped.
#include "frontends/onnx/OnnxNodeImporter.h"

#include "IR/ShapeInference.h"

#include <onnx/onnx_pb.h>

namespace kiln::onnx_import {

namespace {

llvm::Error bindValue(NodeImporter &N, llvm::Expected<Value *> V) {
  if (!V)
    return V.takeError();
  N.bind(0, *V);
  return N.takeError();
}

llvm::Error convertConstant(NodeImporter &N) {
  const auto &P = N.proto();
  if (P.attribute_size() != 1)
    return N.fail("needs exactly one value attribute, has {0}",
                  P.attribute_size());
  const std::string &Kind = P.attribute(0).name();
  Tensor T;
  if (Kind == "value") {
    auto V = N.attrTensor("value");
    if (!V)
      return V.takeError();
    T = std::move(*V);
  } else if (Kind == "value_float") {
    T = Tensor::fromValues<float>(ElementType::F32, {},
                                  {float(N.attrFloat(Kind, 0))});
  } else if (Kind == "value_int") {
    T = Tensor::fromValues<int64_t>(ElementType::I64, {},
                                    {N.attrInt(Kind, 0)});
  } else if (Kind == "value_floats") {
    std::vector<float> F;
    for (double D : N.attrFloats(Kind))
      F.push_back(float(D));
    T = Tensor::fromValues<float>(ElementType::F32, {Dim(int64_t(F.size()))},
                                  F);
  } else if (Kind == "value_ints") {
    std::vector<int64_t> I = N.attrInts(Kind);
    T = Tensor::fromValues<int64_t>(ElementType::I64, {Dim(int64_t(I.size()))},
                                    I);
  } else {
    return N.fail("constant attribute '{0}' is not supported (sparse and "
                  "string constants are not)",
                  Kind);
  }
  if (llvm::Error E = N.takeError())
    return E;
  N.bind(0, N.constant(std::move(T)));
  return llvm::Error::success();
}

llvm::Error convertConstantOfShape(NodeImporter &N) {
  auto S = N.required(0);
  if (!S)
    return S.takeError();
  AttrMap A;
  if (N.hasAttr("value")) {
    auto V = N.attrTensor("value");
    if (!V)
      return V.takeError();
    if (V->numElements() != 1)
      return N.fail("'value' must hold one element, has {0}",
                    V->numElements());
    A["value"] = std::move(*V);
  }
  return finish(N, N.emitNode("constant_of_shape", {*S}, std::move(A)));
}

/// Reduction axes: an input from AxesInputOpset on, an attribute before.
llvm::Expected<Value *> reduce(NodeImporter &N, llvm::StringRef Op, Value *X,
                               int64_t AxesInputOpset) {
  Value *Axes = nullptr;
  if (N.opset() >= AxesInputOpset)
    Axes = N.input(1);
  else if (N.hasAttr("axes"))
    Axes = N.constInts(N.attrInts("axes"));
  return N.emit(Op, {X, Axes},
                {{"keepdims", N.attrInt("keepdims", 1)},
                 {"noop_with_empty_axes", N.attrInt("noop_with_empty_axes", 0)}});
}

template <const char *Op, int AxesInputOpset>
llvm::Error convertReduce(NodeImporter &N) {
  auto X = N.required(0);
  if (!X)
    return X.takeError();
  return bindValue(N, reduce(N, Op, *X, AxesInputOpset));
}

constexpr char ReduceSum[] = "reduce_sum", ReduceMean[] = "reduce_mean",
               ReduceMax[] = "reduce_max", ReduceMin[] = "reduce_min";

/// Before: elementwise op applied to x (or none); After: applied to the sum.
llvm::Error sumBased(NodeImporter &N, llvm::StringRef Before,
                     llvm::StringRef After) {
  auto X = N.required(0);
  if (!X)
    return X.takeError();
  Value *V = *X;
  if (Before == "square") {
    auto Sq = N.emit("mul", {V, V});
    if (!Sq)
      return Sq.takeError();
    V = *Sq;
  } else if (!Before.empty()) {
    auto B = N.emit(Before, {V});
    if (!B)
      return B.takeError();
    V = *B;
  }
  auto S = reduce(N, "reduce_sum", V, 18);
  if (!S || After.empty())
    return bindValue(N, std::move(S));
  return bindValue(N, N.emit(After, {*S}));
}
llvm::Error convertReduceL1(NodeImporter &N) { return sumBased(N, "abs", ""); }
llvm::Error convertReduceL2(NodeImporter &N) {
  return sumBased(N, "square", "sqrt");
}
llvm::Error convertReduceSumSquare(NodeImporter &N) {
  return sumBased(N, "square", "");
}
llvm::Error convertReduceLogSum(NodeImporter &N) {
  return sumBased(N, "", "log");
}
llvm::Error convertReduceLogSumExp(NodeImporter &N) {
  return sumBased(N, "exp", "log");
}

/// An operand that is a constant with no elements stands for "absent".
Value *nonEmpty(Value *V) {
  if (V && V->constant() && V->constant()->numElements() == 0)
    return nullptr;
  return V;
}

/// Upsample (all versions) and Resize-10: asymmetric coordinates and, for
/// nearest, floor rounding.
llvm::Error legacyResize(NodeImporter &N, Value *Scales) {
  auto X = N.required(0);
  if (!X)
    return X.takeError();
  std::string Mode = N.attrString("mode", "nearest");
  if (Mode == "bilinear")
    Mode = "linear";
  return finish(N, N.emitNode("resize", {*X, nullptr, Scales},
                              {{"mode", Mode},
                               {"coordinate_transformation_mode",
                                std::string("asymmetric")},
                               {"nearest_mode", std::string("floor")}}));
}

llvm::Error convertUpsample(NodeImporter &N) {
  if (N.opset() >= 9) {
    auto S = N.required(1);
    if (!S)
      return S.takeError();
    return legacyResize(N, *S);
  }
  std::vector<float> F;
  for (double D : N.attrFloats("scales"))
    F.push_back(float(D));
  return legacyResize(N, N.constant(Tensor::fromValues<float>(
                             ElementType::F32, {Dim(int64_t(F.size()))}, F)));
}

llvm::Error convertResize(NodeImporter &N) {
  if (N.opset() < 11) {
    auto S = N.required(1);
    if (!S)
      return S.takeError();
    return legacyResize(N, *S);
  }
  auto X = N.required(0);
  if (!X)
    return X.takeError();
  if (N.hasAttr("antialias") || N.hasAttr("axes") ||
      N.hasAttr("keep_aspect_ratio_policy"))
    return N.fail("the opset-18 attributes antialias/axes/"
                  "keep_aspect_ratio_policy are not supported");
  AttrMap A = {
      {"mode", N.attrString("mode", "nearest")},
      {"coordinate_transformation_mode",
       N.attrString("coordinate_transformation_mode", "half_pixel")},
      {"nearest_mode", N.attrString("nearest_mode", "round_prefer_floor")},
      {"cubic_coeff_a", N.attrFloat("cubic_coeff_a", -0.75)},
      {"exclude_outside", N.attrInt("exclude_outside", 0)},
      {"extrapolation_value", N.attrFloat("extrapolation_value", 0.0)}};
  Value *Roi = nonEmpty(N.input(1)), *Scales = nonEmpty(N.input(2)),
        *Sizes = nonEmpty(N.input(3));
  if (!Scales && !Sizes)
    return N.fail("needs either scales or sizes");
  return finish(N, N.emitNode("resize", {*X, Roi, Scales, Sizes}, std::move(A)));
}

const OpConverter Converters[] = {
    {"Constant", convertConstant, 1},
    {"ConstantOfShape", convertConstantOfShape, 9},
    {"ReduceSum", convertReduce<ReduceSum, 13>, 1},
    {"ReduceMean", convertReduce<ReduceMean, 18>, 1},
    {"ReduceMax", convertReduce<ReduceMax, 18>, 1},
    {"ReduceMin", convertReduce<ReduceMin, 18>, 1},
    {"ReduceL1", convertReduceL1, 1},
    {"ReduceL2", convertReduceL2, 1},
    {"ReduceSumSquare", convertReduceSumSquare, 1},
    {"ReduceLogSum", convertReduceLogSum, 1},
    {"ReduceLogSumExp", convertReduceLogSumExp, 1},
    {"Upsample", convertUpsample, 7},
    {"Resize", convertResize, 10},
};

} // namespace

llvm::ArrayRef<OpConverter> miscConverters() { return Converters; }

} // namespace kiln::onnx_import

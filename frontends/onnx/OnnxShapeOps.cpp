// ONNX data-movement ops -> canonical IR. Attributes that later opsets turned
// into inputs (Split split, Squeeze/Unsqueeze axes, Slice starts/ends before
// opset 10, Pad pads/value before 11, TopK k before 10) become i64 constant
// operands, so the IR has one form whatever the opset. Constant split sizes
// go back into the canonical `split` attribute.
#include "frontends/onnx/OnnxNodeImporter.h"

#include "IR/ShapeInference.h"

namespace kiln::onnx_import {

namespace {

/// Converters that pass operands [0, Count) through (absent optional ones as
/// null) with the attributes built by the caller.
llvm::Error passThrough(NodeImporter &N, llvm::StringRef Op, unsigned Required,
                        unsigned Count, AttrMap Attrs = {},
                        unsigned Results = 1) {
  std::vector<Value *> Ops;
  for (unsigned I = 0; I < Count; ++I) {
    if (I < Required) {
      auto V = N.required(I);
      if (!V)
        return V.takeError();
      Ops.push_back(*V);
    } else {
      Ops.push_back(N.input(I));
    }
  }
  return finish(N, N.emitNode(Op, Ops, std::move(Attrs), Results));
}

llvm::Error convertReshape(NodeImporter &N) {
  return passThrough(N, "reshape", 2, 2,
                     {{"allowzero", N.attrInt("allowzero", 0)}});
}

llvm::Error convertTranspose(NodeImporter &N) {
  return passThrough(N, "transpose", 1, 1, {{"perm", N.attrInts("perm")}});
}

llvm::Error convertConcat(NodeImporter &N) {
  if (!N.hasAttr("axis"))
    return N.fail("attribute 'axis' is required");
  std::vector<Value *> Ops;
  for (unsigned I = 0; I < N.numInputs(); ++I) {
    auto V = N.required(I);
    if (!V)
      return V.takeError();
    Ops.push_back(*V);
  }
  return finish(N, N.emitNode("concat", Ops, {{"axis", N.attrInt("axis", 0)}}));
}

llvm::Error convertSplit(NodeImporter &N) {
  auto X = N.required(0);
  if (!X)
    return X.takeError();
  AttrMap A = {{"axis", N.attrInt("axis", 0)}};
  Value *SplitV = nullptr;
  if (N.opset() < 13) {
    A["split"] = N.attrInts("split");
  } else if (Value *S = N.input(1)) {
    if (auto C = constantInts(S))
      A["split"] = *C;
    else
      SplitV = S;
  }
  if (N.numOutputs() == 0)
    return N.fail("has no outputs");
  return finish(N, N.emitNode("split", {*X, SplitV}, std::move(A),
                              N.numOutputs()));
}

llvm::Error convertSlice(NodeImporter &N) {
  if (N.opset() >= 10)
    return passThrough(N, "slice", 3, 5);
  auto X = N.required(0);
  if (!X)
    return X.takeError();
  std::vector<Value *> Ops = {*X, N.constInts(N.attrInts("starts")),
                              N.constInts(N.attrInts("ends"))};
  if (N.hasAttr("axes"))
    Ops.push_back(N.constInts(N.attrInts("axes")));
  return finish(N, N.emitNode("slice", Ops));
}

llvm::Error convertSqueeze(NodeImporter &N) {
  if (N.opset() >= 13)
    return passThrough(N, "squeeze", 1, 2);
  auto X = N.required(0);
  if (!X)
    return X.takeError();
  Value *Axes = N.hasAttr("axes") ? N.constInts(N.attrInts("axes")) : nullptr;
  return finish(N, N.emitNode("squeeze", {*X, Axes}));
}

llvm::Error convertUnsqueeze(NodeImporter &N) {
  if (N.opset() >= 13)
    return passThrough(N, "unsqueeze", 2, 2);
  auto X = N.required(0);
  if (!X)
    return X.takeError();
  if (!N.hasAttr("axes"))
    return N.fail("attribute 'axes' is required");
  return finish(N,
                N.emitNode("unsqueeze", {*X, N.constInts(N.attrInts("axes"))}));
}

llvm::Error convertFlatten(NodeImporter &N) {
  return passThrough(N, "flatten", 1, 1, {{"axis", N.attrInt("axis", 1)}});
}

/// Pad-2..10: pads, mode and value attributes; Pad-11+: pads and
/// constant_value inputs.
llvm::Error convertPad(NodeImporter &N) {
  AttrMap A = {{"mode", N.attrString("mode", "constant")}};
  if (N.opset() >= 11) {
    if (N.input(3))
      return N.fail("the 'axes' input is not supported");
    return passThrough(N, "pad", 2, 3, std::move(A));
  }
  auto X = N.required(0);
  if (!X)
    return X.takeError();
  Value *Pads = N.constInts(N.attrInts("pads"));
  Value *Val = N.constScalar((*X)->type().Elem, N.attrFloat("value", 0.0));
  return finish(N, N.emitNode("pad", {*X, Pads, Val}, std::move(A)));
}

llvm::Error convertExpand(NodeImporter &N) {
  return passThrough(N, "expand", 2, 2);
}

llvm::Error convertTile(NodeImporter &N) { return passThrough(N, "tile", 2, 2); }

llvm::Error convertShape(NodeImporter &N) {
  AttrMap A = {{"start", N.attrInt("start", 0)}};
  if (N.hasAttr("end"))
    A["end"] = N.attrInt("end", 0);
  return passThrough(N, "shape", 1, 1, std::move(A));
}

llvm::Error convertSize(NodeImporter &N) { return passThrough(N, "size", 1, 1); }

llvm::Error convertGather(NodeImporter &N) {
  return passThrough(N, "gather", 2, 2, {{"axis", N.attrInt("axis", 0)}});
}

llvm::Error convertScatterND(NodeImporter &N) {
  if (N.attrString("reduction", "none") != "none")
    return N.fail("reduction '{0}' is not supported (only 'none')",
                  N.attrString("reduction", "none"));
  return passThrough(N, "scatter_nd", 3, 3);
}

llvm::Error convertRange(NodeImporter &N) {
  return passThrough(N, "range", 3, 3);
}

llvm::Error argReduce(NodeImporter &N, llvm::StringRef Op) {
  return passThrough(N, Op, 1, 1,
                     {{"axis", N.attrInt("axis", 0)},
                      {"keepdims", N.attrInt("keepdims", 1)},
                      {"select_last_index", N.attrInt("select_last_index", 0)}});
}
llvm::Error convertArgMax(NodeImporter &N) { return argReduce(N, "argmax"); }
llvm::Error convertArgMin(NodeImporter &N) { return argReduce(N, "argmin"); }

llvm::Error convertTopK(NodeImporter &N) {
  AttrMap A = {{"axis", N.attrInt("axis", -1)},
               {"largest", N.attrInt("largest", 1)},
               {"sorted", N.attrInt("sorted", 1)}};
  if (N.opset() >= 10)
    return passThrough(N, "topk", 2, 2, std::move(A), 2);
  auto X = N.required(0);
  if (!X)
    return X.takeError();
  if (!N.hasAttr("k"))
    return N.fail("attribute 'k' is required");
  return finish(N, N.emitNode("topk", {*X, N.constInts({N.attrInt("k", 1)})},
                              std::move(A), 2));
}

const OpConverter Converters[] = {
    {"Reshape", convertReshape, 5},
    {"Transpose", convertTranspose, 1},
    {"Concat", convertConcat, 4},
    {"Split", convertSplit, 2},
    {"Slice", convertSlice, 1},
    {"Squeeze", convertSqueeze, 1},
    {"Unsqueeze", convertUnsqueeze, 1},
    {"Flatten", convertFlatten, 1},
    {"Pad", convertPad, 2},
    {"Expand", convertExpand, 8},
    {"ScatterND", convertScatterND, 11},
    {"Tile", convertTile, 6},
    {"Shape", convertShape, 1},
    {"Size", convertSize, 1},
    {"Gather", convertGather, 1},
    {"Range", convertRange, 11},
    {"ArgMax", convertArgMax, 1},
    {"ArgMin", convertArgMin, 1},
    {"TopK", convertTopK, 1},
};

} // namespace

llvm::ArrayRef<OpConverter> shapeConverters() { return Converters; }

} // namespace kiln::onnx_import

// Data movement (reshape, transpose, concat, slice, pad, gather),
// reductions, and quantize/dequantize.
#include "backends/nnapi/NnapiLowering.h"
#include "schema/nnapi/NeuralNetworksApi.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

namespace kiln::nnapi {

namespace {

/// The size-1 axes that the operands of a tensor above rank 4 lost
/// (nnapiDroppedAxes), when every tensor of operator \p Op lost the same
/// ones; nullopt (after L.fail) otherwise. An operator with axis attributes
/// then renumbers them past the dropped axes. (None of those is a concat or
/// slice axis: such an axis has size 1 in every operand, a copy.)
std::optional<std::vector<bool>> commonDroppedAxes(Lowering &L, int32_t Op) {
  const fb::OperatorT &O = L.op(Op);
  std::vector<bool> Dropped = nnapiDroppedAxes(L.tensor(O.outputs[0]).shape);
  for (const std::vector<int32_t> *List : {&O.inputs, &O.outputs})
    for (int32_t T : *List)
      if (T >= 0 && nnapiDroppedAxes(L.tensor(T).shape) != Dropped) {
        L.fail(Op, "tensor '" + L.tensor(T).name + "' loses other size-1 "
                   "axes than the operator's other tensors on NNAPI's way "
                   "down to rank 4");
        return std::nullopt;
      }
  return Dropped;
}

/// \p Axis counted among the axes that are not \p Dropped.
int32_t keptAxis(const std::vector<bool> &Dropped, int64_t Axis) {
  return int32_t(Axis - std::count(Dropped.begin(), Dropped.begin() + Axis, true));
}

void lowerSlice(Lowering &L, int32_t Op, uint32_t X, int32_t OutT) {
  const fb::OperatorT &O = L.op(Op);
  const fb::SliceOptionsT &C = *O.options.AsSliceOptions();
  const auto &YShape = L.tensor(OutT).shape;
  // A dropped axis has size 1 on both sides, so its slice is the whole axis.
  std::optional<std::vector<bool>> Dropped = commonDroppedAxes(L, Op);
  if (!Dropped)
    return;
  std::vector<int32_t> Begin, End, Strides;
  int32_t EndMask = 0;
  for (size_t I = 0; I < YShape.size(); ++I) {
    if ((*Dropped)[I])
      continue;
    int64_t Start = C.starts[I], Step = C.steps[I], Count = YShape[I];
    if (Count == 0)
      return L.fail(Op, "an empty slice");
    int64_t Last = Start + Step * (Count - 1);
    int64_t Stop = Step > 0 ? Last + 1 : Last - 1;
    if (Stop < 0) {
      EndMask |= 1 << Begin.size();
      Stop = 0;
    }
    Begin.push_back(int32_t(Start));
    End.push_back(int32_t(Stop));
    Strides.push_back(int32_t(Step));
  }
  uint32_t Out = L.outputLike(X, OutT);
  L.emit(STRIDED_SLICE,
         {X, L.tensorI32(Begin), L.tensorI32(End), L.tensorI32(Strides),
          L.scalarI32(0), L.scalarI32(EndMask), L.scalarI32(0)},
         {Out}, Op);
  L.finishOutput(Out, OutT, Op);
}

void lowerPad(Lowering &L, int32_t Op, uint32_t X, int32_t OutT) {
  const fb::OperatorT &O = L.op(Op);
  const fb::PadOptionsT &C = *O.options.AsPadOptions();
  if (C.mode != fb::PadMode::CONSTANT)
    return L.fail(Op, "NNAPI pads with a constant only");
  size_t Rank = C.pads.size() / 2;
  std::vector<int32_t> Pads;
  for (size_t I = 0; I < Rank; ++I) {
    Pads.push_back(int32_t(C.pads[I]));
    Pads.push_back(int32_t(C.pads[Rank + I]));
  }
  uint32_t Paddings = L.tensorI32(Pads, {uint32_t(Rank), 2});
  uint32_t Out = L.outputLike(X, OutT);
  if (C.value == 0.f) {
    L.emit(PAD, {X, Paddings}, {Out}, Op);
  } else if (L.operand(X).type == TENSOR_FLOAT32) {
    L.emit(PAD_V2, {X, Paddings, L.scalarF32(C.value)}, {Out}, Op);
  } else {
    const fb::NnapiOperandT &Q = L.operand(X);
    int32_t V = int32_t(std::lround(C.value / Q.scale)) + Q.zero_point;
    L.emit(PAD_V2, {X, Paddings, L.scalarI32(V)}, {Out}, Op);
  }
  L.finishOutput(Out, OutT, Op);
}

} // namespace

void lowerMovement(Lowering &L, int32_t Op) {
  const fb::OperatorT &O = L.op(Op);
  uint32_t X = L.operandOf(O.inputs[0]);
  int32_t OutT = O.outputs[0];
  switch (O.kind) {
  case fb::OpKind::RESHAPE: {
    uint32_t Out = L.outputLike(X, OutT);
    std::vector<int32_t> Shape(L.operand(Out).dimensions.begin(),
                               L.operand(Out).dimensions.end());
    L.emit(RESHAPE, {X, L.tensorI32(Shape)}, {Out}, Op);
    return L.finishOutput(Out, OutT, Op);
  }
  case fb::OpKind::TRANSPOSE: {
    uint32_t Out = L.outputLike(X, OutT);
    std::vector<int32_t> Perm = O.options.AsTransposeOptions()->perm;
    const auto &XShape = L.tensor(O.inputs[0]).shape;
    if (L.operand(X).dimensions.size() != XShape.size()) {
      // The operands lost some of the tensor's 1s (nnapiDims): so does the
      // perm.
      std::vector<bool> Dropped = nnapiDroppedAxes(XShape);
      std::vector<int32_t> Kept(XShape.size(), -1), Reduced;
      int32_t Next = 0;
      for (size_t A = 0; A < XShape.size(); ++A)
        if (!Dropped[A])
          Kept[A] = Next++;
      for (int32_t P : Perm)
        if (Kept[size_t(P)] >= 0)
          Reduced.push_back(Kept[size_t(P)]);
      Perm = Reduced;
    }
    if (Perm.size() > 4)
      return L.fail(Op, "NNAPI transposes tensors of rank 4 at most");
    // The input and output must have lost the same 1s.
    const auto &XDims = L.operand(X).dimensions, &YDims = L.operand(Out).dimensions;
    bool Consistent = Perm.size() == XDims.size() && YDims.size() == Perm.size();
    for (size_t I = 0; Consistent && I < Perm.size(); ++I)
      Consistent = Perm[I] >= 0 && size_t(Perm[I]) < XDims.size() &&
                   XDims[size_t(Perm[I])] == YDims[I];
    if (!Consistent)
      return L.fail(Op, "a transpose above rank 4 whose size-1 axes NNAPI "
                        "cannot drop alike on both sides");
    L.emit(TRANSPOSE, {X, L.tensorI32(Perm)}, {Out}, Op);
    return L.finishOutput(Out, OutT, Op);
  }
  case fb::OpKind::CONCAT: {
    std::vector<uint32_t> In;
    uint32_t Out = L.operandOf(OutT);
    bool SameParams = true;
    for (int32_t T : O.inputs) {
      In.push_back(L.operandOf(T));
      SameParams &= L.operand(In.back()).scale == L.operand(Out).scale &&
                    L.operand(In.back()).zero_point ==
                        L.operand(Out).zero_point;
    }
    if (!SameParams && L.quantized(OutT) &&
        !L.need(29, "a quantized concat of inputs with other scales", Op))
      return;
    const int64_t Axis = O.options.AsConcatOptions()->axis;
    std::optional<std::vector<bool>> Dropped = commonDroppedAxes(L, Op);
    if (!Dropped)
      return;
    In.push_back(L.scalarI32(keptAxis(*Dropped, Axis)));
    return L.emit(CONCATENATION, In, {Out}, Op);
  }
  case fb::OpKind::SLICE:
    return lowerSlice(L, Op, X, OutT);
  case fb::OpKind::PAD:
    return lowerPad(L, Op, X, OutT);
  case fb::OpKind::GATHER: {
    const fb::TensorT &Idx = L.tensor(O.inputs[1]);
    if (Idx.buffer < 0 && Idx.dtype != fb::DType::I32)
      return L.fail(Op, "NNAPI's GATHER takes int32 indices");
    uint32_t Out = L.outputLike(X, OutT);
    L.emit(GATHER,
           {X, L.scalarI32(O.options.AsGatherOptions()->axis),
            L.operandOf(O.inputs[1])},
           {Out}, Op);
    return L.finishOutput(Out, OutT, Op);
  }
  default:
    return L.fail(Op, "no NNAPI lowering for this operator");
  }
}

void lowerReduce(Lowering &L, int32_t Op) {
  const fb::OperatorT &O = L.op(Op);
  const fb::ReduceOptionsT &C = *O.options.AsReduceOptions();
  uint32_t X = L.operandOf(O.inputs[0]);
  uint32_t Out = L.operandOf(O.outputs[0]);
  bool Keep = L.tensor(O.outputs[0]).shape.size() ==
              L.tensor(O.inputs[0]).shape.size();
  uint32_t Axes = L.tensorI32(C.axes);
  switch (C.op) {
  case fb::ReduceOp::MEAN: {
    // A quantized MEAN keeps its input's scale and zero point (AOSP sets
    // them on the output); other output parameters are an ADD away.
    uint32_t Written = L.outputLike(X, O.outputs[0]);
    L.emit(MEAN, {X, Axes, L.scalarI32(Keep)}, {Written}, Op);
    return L.finishOutput(Written, O.outputs[0], Op);
  }
  case fb::ReduceOp::SUM:
    return L.emit(REDUCE_SUM, {X, Axes, L.scalarBool(Keep)}, {Out}, Op);
  case fb::ReduceOp::MAXIMUM:
    return L.emit(REDUCE_MAX, {X, Axes, L.scalarBool(Keep)}, {Out}, Op);
  case fb::ReduceOp::MINIMUM:
    return L.emit(REDUCE_MIN, {X, Axes, L.scalarBool(Keep)}, {Out}, Op);
  default:
    return L.fail(Op, "no NNAPI reduction for this operator");
  }
}

void lowerQuantize(Lowering &L, int32_t Op) {
  const fb::OperatorT &O = L.op(Op);
  const bool Quantize = O.kind == fb::OpKind::QUANTIZE;
  L.emit(Quantize ? QUANTIZE : DEQUANTIZE, {L.operandOf(O.inputs[0])},
         {L.operandOf(O.outputs[0])}, Op);
  // Inside the model, a conversion serves a float operator: name it.
  const int32_t T = Quantize ? O.inputs[0] : O.outputs[0];
  const auto &Ops = L.model().operators;
  for (size_t I = 0; I < Ops.size(); ++I) {
    const auto &Side = Quantize ? Ops[I]->outputs : Ops[I]->inputs;
    if (int32_t(I) != Op && std::find(Side.begin(), Side.end(), T) != Side.end())
      return L.noteFloatIsland(
          Op, std::string(Quantize ? "after" : "before") + " node '" +
                  Ops[I]->name + "' (" + fb::EnumNameOpKind(Ops[I]->kind) +
                  "), which the CPU module runs in float");
  }
}

} // namespace kiln::nnapi

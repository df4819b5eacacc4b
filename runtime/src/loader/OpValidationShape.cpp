// Checks of the data-movement and reduction operators: TRANSPOSE, RESHAPE,
// CONCAT, SLICE, PAD, REDUCE, MATMUL, BROADCAST and GATHER. Data movement
// works on any element type; the arithmetic ones on f32.
#include "loader/Limits.h"
#include "loader/OpValidation.h"

#include <cmath>
#include <cstdint>

namespace kiln::rt {

using fb::DType;

namespace {

Status sameDType(const TensorDesc &Y, const TensorDesc &X) {
  return checkDType(Y, X.DType, "output");
}

} // namespace

Status validateTranspose(const OpView &V) {
  if (Status S = checkArity(V, 1, 1, 1))
    return S;
  const TensorDesc &X = *V.In[0], &Y = *V.Out[0];
  if (Status S = sameDType(Y, X))
    return S;
  const auto *Perm = V.Op.options_as_TransposeOptions()->perm();
  size_t Rank = X.Shape.size();
  if (!Perm || Perm->size() != Rank)
    return invalidModel("perm must have ", Rank, " entries");
  std::vector<char> Seen(Rank, 0);
  std::vector<int64_t> Want;
  for (int32_t P : *Perm) {
    if (P < 0 || size_t(P) >= Rank || Seen[size_t(P)])
      return invalidModel("perm is not a permutation of 0..", Rank - 1);
    Seen[size_t(P)] = 1;
    Want.push_back(X.dim(P));
  }
  return checkShape(Y, Want, "output");
}

Status validateReshape(const OpView &V) {
  if (Status S = checkArity(V, 1, 1, 1))
    return S;
  const TensorDesc &X = *V.In[0], &Y = *V.Out[0];
  if (Status S = sameDType(Y, X))
    return S;
  if (X.Elements != Y.Elements)
    return invalidModel("reshape from ", shapeString(X.Shape), " to ",
                        shapeString(Y.Shape), " changes the element count");
  return Status::ok();
}

Status validateConcat(const OpView &V) {
  if (V.In.empty())
    return invalidModel("expects at least one input");
  if (Status S = checkArity(V, V.In.size(), V.In.size(), 1))
    return S;
  const TensorDesc &Y = *V.Out[0];
  int32_t Axis = V.Op.options_as_ConcatOptions()->axis();
  if (Axis < 0 || Axis >= Y.rank())
    return invalidModel("axis ", Axis, " out of range for rank ", Y.rank());
  int64_t Sum = 0;
  for (const TensorDesc *X : V.In) {
    if (Status S = checkDType(*X, Y.DType, "input"))
      return S;
    if (Status S = checkRank(*X, Y.rank(), "input"))
      return S;
    for (int64_t D = 0; D < Y.rank(); ++D)
      if (D != Axis && X->dim(D) != Y.dim(D))
        return invalidModel("input '", X->Name, "' ", shapeString(X->Shape),
                            " does not match output ", shapeString(Y.Shape),
                            " outside axis ", Axis);
    Sum += X->dim(Axis);
  }
  if (Sum != Y.dim(Axis))
    return invalidModel("inputs add up to ", Sum, " along axis ", Axis,
                        ", output has ", Y.dim(Axis));
  return Status::ok();
}

Status validateSlice(const OpView &V) {
  if (Status S = checkArity(V, 1, 1, 1))
    return S;
  const TensorDesc &X = *V.In[0], &Y = *V.Out[0];
  if (Status S = sameDType(Y, X))
    return S;
  if (Status S = checkRank(Y, X.rank(), "output"))
    return S;
  const auto &O = *V.Op.options_as_SliceOptions();
  size_t Rank = X.Shape.size();
  if (!O.starts() || !O.steps() || O.starts()->size() != Rank ||
      O.steps()->size() != Rank)
    return invalidModel("starts and steps must have ", Rank, " entries");
  if (Status S = checkAligned(O.starts(), "starts"))
    return S;
  if (Status S = checkAligned(O.steps(), "steps"))
    return S;
  for (size_t I = 0; I < Rank; ++I) {
    int64_t Count = Y.Shape[I], Start = O.starts()->Get(unsigned(I)),
            Step = O.steps()->Get(unsigned(I));
    if (Step == 0)
      return invalidModel("step 0 on axis ", I);
    if (Count == 0)
      continue;
    int64_t Span, Last;
    if (Start < 0 || Start >= X.Shape[I] ||
        __builtin_mul_overflow(Count - 1, Step, &Span) ||
        __builtin_add_overflow(Start, Span, &Last) || Last < 0 ||
        Last >= X.Shape[I])
      return invalidModel("slice of ", Count, " from ", Start, " step ", Step,
                          " leaves axis ", I, " of size ", X.Shape[I]);
  }
  return Status::ok();
}

Status validatePad(const OpView &V) {
  if (Status S = checkArity(V, 1, 1, 1))
    return S;
  const TensorDesc &X = *V.In[0], &Y = *V.Out[0];
  if (Status S = sameDType(Y, X))
    return S;
  const auto &O = *V.Op.options_as_PadOptions();
  size_t Rank = X.Shape.size();
  if (!O.pads() || O.pads()->size() != 2 * Rank)
    return invalidModel("pads must have ", 2 * Rank, " entries");
  if (Status S = checkAligned(O.pads(), "pads"))
    return S;
  if (O.mode() > fb::PadMode::MAX)
    return unsupported("unknown pad mode ", static_cast<int>(O.mode()));
  if (O.mode() == fb::PadMode::CONSTANT && O.value() != 0.0f &&
      X.DType != DType::F32 && X.DType != DType::I32 && X.DType != DType::I64 &&
      X.DType != DType::I8 && X.DType != DType::U8)
    return invalidModel("a non-zero pad value on ", dtypeName(X.DType),
                        " is not supported");
  if (O.mode() == fb::PadMode::CONSTANT && std::isnan(O.value()) &&
      X.DType != DType::F32)
    return invalidModel("a NaN pad value on ", dtypeName(X.DType));
  std::vector<int64_t> Want;
  for (size_t I = 0; I < Rank; ++I) {
    int64_t Begin = O.pads()->Get(unsigned(I)),
            End = O.pads()->Get(unsigned(I + Rank));
    if (Begin < 0 || End < 0 || uint64_t(Begin) > limits::MaxTensorBytes ||
        uint64_t(End) > limits::MaxTensorBytes)
      return invalidModel("pads on axis ", I, " must be in [0, 2^40]");
    if (O.mode() == fb::PadMode::REFLECT && (Begin || End) &&
        (Begin >= X.Shape[I] || End >= X.Shape[I]))
      return invalidModel("reflect padding of ", Begin, "/", End,
                          " on axis ", I, " of size ", X.Shape[I]);
    if (O.mode() == fb::PadMode::EDGE && (Begin || End) && X.Shape[I] == 0)
      return invalidModel("edge padding of an empty axis ", I);
    Want.push_back(X.Shape[I] + Begin + End);
  }
  return checkShape(Y, Want, "output");
}

Status validateReduce(const OpView &V) {
  if (Status S = checkArity(V, 1, 1, 1))
    return S;
  const TensorDesc &X = *V.In[0], &Y = *V.Out[0];
  if (Status S = checkDType(X, DType::F32, "input"))
    return S;
  if (Status S = sameDType(Y, X))
    return S;
  const auto &O = *V.Op.options_as_ReduceOptions();
  if (O.op() < fb::ReduceOp::SUM || O.op() > fb::ReduceOp::MAX)
    return unsupported("unknown reduce op ", static_cast<int>(O.op()));
  std::vector<char> Reduced(X.Shape.size(), 0);
  int64_t Previous = -1;
  if (O.axes())
    for (int32_t A : *O.axes()) {
      if (A <= Previous || A >= X.rank())
        return invalidModel("axes must be increasing and below rank ",
                            X.rank());
      Reduced[size_t(A)] = 1;
      Previous = A;
    }
  std::vector<int64_t> Kept, Dropped;
  for (size_t I = 0; I < X.Shape.size(); ++I) {
    Kept.push_back(Reduced[I] ? 1 : X.Shape[I]);
    if (!Reduced[I])
      Dropped.push_back(X.Shape[I]);
    else if (X.Shape[I] == 0 && O.op() != fb::ReduceOp::SUM)
      return invalidModel("reducing an empty axis ", I);
  }
  if (Y.Shape != Kept && Y.Shape != Dropped)
    return invalidModel("output '", Y.Name, "' has shape ",
                        shapeString(Y.Shape), ", expected ", shapeString(Kept),
                        " or ", shapeString(Dropped));
  return Status::ok();
}

Status validateArgReduce(const OpView &V) {
  if (Status S = checkArity(V, 1, 1, 1))
    return S;
  const TensorDesc &X = *V.In[0], &Y = *V.Out[0];
  if (X.DType != DType::F32 && X.DType != DType::I32 && X.DType != DType::I64)
    return invalidModel("arg-reduce on ", dtypeName(X.DType),
                        " is not supported");
  if (Status S = checkDType(Y, DType::I64, "output"))
    return S;
  int32_t Axis = V.Op.options_as_ArgReduceOptions()->axis();
  if (Axis < 0 || Axis >= X.rank())
    return invalidModel("axis ", Axis, " out of range for rank ", X.rank());
  if (X.dim(Axis) == 0)
    return invalidModel("arg-reduce of an empty axis");
  std::vector<int64_t> Kept = X.Shape, Dropped = X.Shape;
  Kept[size_t(Axis)] = 1;
  Dropped.erase(Dropped.begin() + Axis);
  if (Y.Shape != Kept && Y.Shape != Dropped)
    return invalidModel("output '", Y.Name, "' has shape ",
                        shapeString(Y.Shape), ", expected ", shapeString(Kept),
                        " or ", shapeString(Dropped));
  return Status::ok();
}

Status validateLayerNorm(const OpView &V) {
  if (Status S = checkArity(V, 2, 3, 1))
    return S;
  const TensorDesc &X = *V.In[0], &Y = *V.Out[0];
  if (Status S = checkDType(X, DType::F32, "input"))
    return S;
  if (Status S = checkDType(Y, DType::F32, "output"))
    return S;
  if (Status S = checkShape(Y, X.Shape, "output"))
    return S;
  const auto &O = *V.Op.options_as_LayerNormOptions();
  if (O.axis() < 0 || O.axis() >= X.rank())
    return invalidModel("axis ", O.axis(), " out of range for rank ", X.rank());
  if (!(O.epsilon() >= 0))
    return invalidModel("epsilon must be >= 0");
  uint64_t Cols = 1;
  for (int64_t D = O.axis(); D < X.rank(); ++D)
    Cols *= uint64_t(X.dim(D));
  for (size_t I = 1; I < V.In.size(); ++I) {
    if (!V.In[I])
      continue;
    if (Status S = checkDType(*V.In[I], DType::F32, I == 1 ? "scale" : "bias"))
      return S;
    if (V.In[I]->Elements != Cols && V.In[I]->Elements != 1)
      return invalidModel(I == 1 ? "scale" : "bias", " has ",
                          V.In[I]->Elements, " values for ", Cols,
                          " normalized elements");
  }
  return Status::ok();
}

Status validateResize(const OpView &V) {
  if (V.In.empty() || !V.In[0])
    return invalidModel("input 0 is required");
  const TensorDesc &X = *V.In[0];
  size_t Rank = X.Shape.size();
  if (Status S = checkArity(V, 1, 1 + 2 * Rank, 1))
    return S;
  if (V.In.size() != 1 + 2 * Rank)
    return invalidModel("expects an index and a weight table per axis");
  const TensorDesc &Y = *V.Out[0];
  if (Status S = checkDType(X, DType::F32, "input"))
    return S;
  if (Status S = checkDType(Y, DType::F32, "output"))
    return S;
  if (Status S = checkRank(Y, X.rank(), "output"))
    return S;
  for (size_t D = 0; D < Rank; ++D) {
    const TensorDesc *Idx = V.In[1 + 2 * D], *W = V.In[2 + 2 * D];
    if (!Idx || !W) {
      if (Idx || W)
        return invalidModel("axis ", D, " has only one of its tables");
      if (Y.Shape[D] != X.Shape[D])
        return invalidModel("axis ", D, " changes size without tables");
      continue;
    }
    if (Status S = checkDType(*Idx, DType::I32, "index table"))
      return S;
    if (Status S = checkDType(*W, DType::F32, "weight table"))
      return S;
    if (Status S = checkConstant(*Idx, "index table"))
      return S;
    if (Status S = checkConstant(*W, "weight table"))
      return S;
    if (Idx->rank() != 2 || Idx->dim(0) != Y.Shape[D] || Idx->dim(1) < 1 ||
        Idx->dim(1) > 16 || W->Shape != Idx->Shape)
      return invalidModel("axis ", D, ": tables ", shapeString(Idx->Shape),
                          " and ", shapeString(W->Shape), " do not give ",
                          Y.Shape[D], " outputs");
    const int32_t *P = reinterpret_cast<const int32_t *>(Idx->ConstData);
    for (uint64_t I = 0; I < Idx->Elements; ++I)
      if (P[I] < 0 || P[I] >= X.Shape[D])
        return invalidModel("axis ", D, ": index ", P[I],
                            " out of range for size ", X.Shape[D]);
  }
  return Status::ok();
}

Status validateMatMul(const OpView &V) {
  if (Status S = checkArity(V, 2, 2, 1))
    return S;
  const auto &O = *V.Op.options_as_MatMulOptions();
  if (Status S = checkClampRange(O.output_min(), O.output_max()))
    return S;
  const TensorDesc &A = *V.In[0], &B = *V.In[1], &Y = *V.Out[0];
  // f32, or int8 throughout (per-tensor scales and zero points: attention's
  // products in an int8 model).
  if (A.DType == DType::I8) {
    if (Status S = checkInt8Activation(A, "input 0"))
      return S;
    if (Status S = checkInt8Activation(B, "input 1"))
      return S;
    if (Status S = checkInt8Activation(Y, "output"))
      return S;
  } else {
    for (const TensorDesc *T : {&A, &B, &Y})
      if (Status S = checkDType(*T, DType::F32, "tensor"))
        return S;
  }
  if (A.rank() < 2 || B.rank() < 2)
    return invalidModel("operands must have rank >= 2");
  int64_t M = A.dim(A.rank() - 2), K = A.dim(A.rank() - 1),
          KB = B.dim(B.rank() - 2), N = B.dim(B.rank() - 1);
  if (K != KB)
    return invalidModel("inner dims differ: ", shapeString(A.Shape), " x ",
                        shapeString(B.Shape));
  // Each int8 product (a - a_zp)(b - b_zp) is at most 255 * 255 in size:
  // past this many the int32 sum could overflow.
  constexpr int64_t MaxInt8K = INT32_MAX / (255 * 255);
  if (A.DType == DType::I8 && K > MaxInt8K)
    return invalidModel("an int8 matmul sums ", K, " products (at most ",
                        MaxInt8K, " fit its int32 sum)");
  std::vector<int64_t> BatchA(A.Shape.begin(), A.Shape.end() - 2),
      BatchB(B.Shape.begin(), B.Shape.end() - 2), Want;
  if (Status S = broadcastShapes(BatchA, BatchB, Want))
    return S;
  Want.push_back(M);
  Want.push_back(N);
  return checkShape(Y, Want, "output");
}

Status validateBroadcast(const OpView &V) {
  if (Status S = checkArity(V, 1, 1, 1))
    return S;
  const TensorDesc &X = *V.In[0], &Y = *V.Out[0];
  if (Status S = sameDType(Y, X))
    return S;
  if (X.rank() > Y.rank())
    return invalidModel("cannot broadcast rank ", X.rank(), " to rank ",
                        Y.rank());
  int64_t Offset = Y.rank() - X.rank();
  for (int64_t I = 0; I < X.rank(); ++I)
    if (X.dim(I) != 1 && X.dim(I) != Y.dim(I + Offset))
      return invalidModel(shapeString(X.Shape), " does not broadcast to ",
                          shapeString(Y.Shape));
  return Status::ok();
}

Status validateGather(const OpView &V) {
  if (Status S = checkArity(V, 2, 2, 1))
    return S;
  const TensorDesc &Data = *V.In[0], &Indices = *V.In[1], &Y = *V.Out[0];
  if (Indices.DType != DType::I32 && Indices.DType != DType::I64)
    return invalidModel("indices must be i32 or i64, not ",
                        dtypeName(Indices.DType));
  if (Status S = sameDType(Y, Data))
    return S;
  int32_t Axis = V.Op.options_as_GatherOptions()->axis();
  if (Axis < 0 || Axis >= Data.rank())
    return invalidModel("axis ", Axis, " out of range for rank ", Data.rank());
  std::vector<int64_t> Want(Data.Shape.begin(), Data.Shape.begin() + Axis);
  Want.insert(Want.end(), Indices.Shape.begin(), Indices.Shape.end());
  Want.insert(Want.end(), Data.Shape.begin() + Axis + 1, Data.Shape.end());
  return checkShape(Y, Want, "output");
}

} // namespace kiln::rt

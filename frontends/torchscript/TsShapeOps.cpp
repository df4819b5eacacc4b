// aten shape and data-movement ops -> canonical IR: cat/stack, flatten,
// view/reshape (shapes must be known at compile time, which they are after
// size() folding), permute/transpose, chunk/split (results are a list that
// prim::ListUnpack spreads), squeeze/unsqueeze, select/slice, reductions,
// and the no-op views (contiguous, clone, detach, same-type to()).
#include "frontends/torchscript/TsConverter.h"

#include <ATen/Functions.h>

#include <limits>

namespace kiln::ts_import {

namespace {

/// Normalizes a possibly negative axis against Rank.
std::optional<int64_t> axis(int64_t A, int64_t Rank) {
  if (A < 0)
    A += Rank;
  if (A < 0 || A >= Rank)
    return std::nullopt;
  return A;
}

// Views and copies that change nothing kiln models: the output is the input.
llvm::Error convertPassThrough(NodeConverter &C) {
  Value *X = C.tensor(0);
  if (!X)
    return C.takeError();
  C.setTensorOutput(0, X);
  return C.takeError();
}

// aten::to(self, dtype, ...) / type_as: same type is a no-op, else a cast.
llvm::Error convertTo(NodeConverter &C) {
  Value *X = C.tensor(0);
  if (!X)
    return C.takeError();
  for (unsigned I = 1; I < C.numInputs(); ++I) {
    const TsValue &V = C.in(I);
    if (!V.isConst() || !V.C.isInt() || V.C.toInt() < 0 || V.C.toInt() > 30)
      continue;
    // The first int operand of every to() overload is the dtype.
    auto E = toElementType(static_cast<c10::ScalarType>(V.C.toInt()));
    if (!E)
      return C.fail("conversion to {0} is not supported",
                    c10::toString(static_cast<c10::ScalarType>(V.C.toInt())));
    if (*E == X->type().Elem)
      break;
    return finish(C, C.emit("cast", {X}, {{"to", elementTypeName(*E).str()}}));
  }
  C.setTensorOutput(0, X);
  return C.takeError();
}

// aten::cat(tensors, dim)
llvm::Error convertCat(NodeConverter &C) {
  std::vector<Value *> Parts;
  std::vector<TsValue> List = C.getList(0);
  for (size_t I = 0; I < List.size(); ++I) {
    const TsValue &V = List[I];
    if (V.isTensor())
      Parts.push_back(V.T);
    else if (V.isConst() && V.C.isTensor()) {
      auto T = toKilnTensor(V.C.toTensor());
      if (!T)
        return addContext(T.takeError(), C.context());
      Parts.push_back(C.constant(std::move(*T)));
    } else
      return C.fail("element {0} of the list is not a tensor", I);
  }
  if (Parts.empty())
    return C.fail("cat of an empty list");
  auto A = axis(C.getInt(1), Parts[0]->type().rank());
  if (!A)
    return C.fail("dim {0} is out of range", C.getInt(1));
  return finish(C, C.emit("concat", Parts, {{"axis", *A}}));
}

// aten::new_zeros / new_ones / new_full(self, size, [fill,] dtype, ...) and
// zeros_like / ones_like(self, dtype, ...): a tensor that depends only on a
// (static) shape is known at compile time, as a libtorch tensor, so what the
// model then writes into it in place (Swin's shifted-window mask: slices of a
// new_zeros filled with fill_) runs on libtorch's kernels and folds.
llvm::Error convertNewFilled(NodeConverter &C) {
  std::string K = C.kind();
  Value *Like = C.tensor(0);
  if (!Like)
    return C.takeError();
  bool FromSize = K.rfind("aten::new_", 0) == 0;
  std::vector<int64_t> Sizes;
  if (FromSize)
    Sizes = C.getInts(1);
  else {
    auto D = C.staticDims(Like);
    if (!D)
      return D.takeError();
    Sizes = *D;
  }
  double Fill = K == "aten::new_full" ? C.getDouble(2)
                : (K == "aten::new_ones" || K == "aten::ones_like") ? 1.0
                                                                   : 0.0;
  unsigned DtypeArg = K == "aten::new_full" ? 3 : FromSize ? 2 : 1;
  c10::ScalarType Dtype = toScalarType(Like->type().Elem);
  if (C.numInputs() > DtypeArg && !C.isNone(DtypeArg))
    Dtype = c10::ScalarType(C.getInt(DtypeArg));
  if (llvm::Error E = C.takeError())
    return E;
  C.setOutput(0, TsValue::constant(
                     at::full(Sizes, Fill, at::TensorOptions().dtype(Dtype))));
  return C.takeError();
}

// aten::roll(self, shifts, dims): per dim, the last `shift` elements moved to
// the front: two slices and a concat.
llvm::Error convertRoll(NodeConverter &C) {
  Value *X = C.tensor(0);
  std::vector<int64_t> Shifts = C.getInts(1), Dims = C.getOptionalInts(2);
  if (!X)
    return C.takeError();
  if (Dims.empty() || Dims.size() != Shifts.size())
    return C.fail("roll needs one dim per shift (a flattened roll is not "
                  "supported)");
  for (size_t I = 0; I < Dims.size(); ++I) {
    auto A = axis(Dims[I], X->type().rank());
    if (!A)
      return C.fail("dim {0} is out of range", Dims[I]);
    const Dim &D = X->type().Dims[size_t(*A)];
    if (!D.isStatic())
      return C.fail("roll along a dim of unknown size");
    int64_t N = D.size(), Shift = N ? ((Shifts[I] % N) + N) % N : 0;
    if (Shift == 0)
      continue;
    auto Part = [&](int64_t From, int64_t To) {
      return C.emit("slice", {X, C.constInts({From}), C.constInts({To}),
                              C.constInts({*A}), C.constInts({1})});
    };
    auto Tail = Part(N - Shift, N), Head = Part(0, N - Shift);
    if (!Tail)
      return Tail.takeError();
    if (!Head)
      return Head.takeError();
    auto Cat = C.emit("concat", {*Tail, *Head}, {{"axis", *A}});
    if (!Cat)
      return Cat.takeError();
    X = *Cat;
  }
  return finish(C, X);
}

// aten::stack(tensors, dim): unsqueeze each, then concat.
llvm::Error convertStack(NodeConverter &C) {
  std::vector<Value *> Parts;
  auto List = C.getList(0);
  if (List.empty())
    return C.fail("stack of an empty list");
  int64_t Dim = C.getInt(1);
  for (size_t I = 0; I < List.size(); ++I) {
    if (!List[I].isTensor())
      return C.fail("element {0} of the list is not a tensor", I);
    int64_t Rank = List[I].T->type().rank() + 1;
    auto A = axis(Dim, Rank);
    if (!A)
      return C.fail("dim {0} is out of range", Dim);
    auto U = C.emit("unsqueeze", {List[I].T, C.constInts({*A})});
    if (!U)
      return U.takeError();
    Parts.push_back(*U);
  }
  auto A = axis(Dim, Parts[0]->type().rank());
  return finish(C, C.emit("concat", Parts, {{"axis", *A}}));
}

llvm::Error reshapeTo(NodeConverter &C, Value *X, std::vector<int64_t> Dims) {
  // PyTorch sizes never mean "copy this dim", so 0 stays 0 (allowzero).
  return finish(C, C.emit("reshape", {X, C.constInts(Dims)},
                          {{"allowzero", int64_t(1)}}));
}

// aten::view / reshape(self, size)
llvm::Error convertReshape(NodeConverter &C) {
  Value *X = C.tensor(0);
  auto Dims = C.getInts(1);
  if (!X)
    return C.takeError();
  return reshapeTo(C, X, Dims);
}

// aten::flatten(self, start_dim, end_dim)
llvm::Error convertFlatten(NodeConverter &C) {
  Value *X = C.tensor(0);
  if (!X)
    return C.takeError();
  auto D = C.staticDims(X);
  if (!D)
    return D.takeError();
  int64_t Rank = int64_t(D->size());
  if (Rank == 0)
    return reshapeTo(C, X, {1});
  auto S = axis(C.getInt(1), Rank), E = axis(C.getInt(2), Rank);
  if (!S || !E || *S > *E)
    return C.fail("start_dim/end_dim out of range for {0}", toString(X->type()));
  std::vector<int64_t> Out(D->begin(), D->begin() + *S);
  int64_t P = 1;
  for (int64_t I = *S; I <= *E; ++I)
    P *= (*D)[size_t(I)];
  Out.push_back(P);
  Out.insert(Out.end(), D->begin() + *E + 1, D->end());
  if (*S == 1 && *E == Rank - 1)
    return finish(C, C.emit("flatten", {X}, {{"axis", int64_t(1)}}));
  return reshapeTo(C, X, Out);
}

// aten::permute(self, dims)
llvm::Error convertPermute(NodeConverter &C) {
  Value *X = C.tensor(0);
  auto Perm = C.getInts(1);
  if (!X)
    return C.takeError();
  for (int64_t &P : Perm)
    if (P < 0)
      P += X->type().rank();
  return finish(C, C.emit("transpose", {X}, {{"perm", Perm}}));
}

// aten::transpose(self, dim0, dim1) and aten::t
llvm::Error convertTranspose(NodeConverter &C) {
  Value *X = C.tensor(0);
  if (!X)
    return C.takeError();
  int64_t Rank = X->type().rank();
  std::vector<int64_t> Perm(static_cast<size_t>(Rank));
  for (int64_t I = 0; I < Rank; ++I)
    Perm[size_t(I)] = I;
  if (C.numInputs() == 1) {
    if (Rank == 2)
      std::swap(Perm[0], Perm[1]);
  } else {
    auto A = axis(C.getInt(1), Rank), B = axis(C.getInt(2), Rank);
    if (!A || !B)
      return C.fail("dims out of range for {0}", toString(X->type()));
    std::swap(Perm[size_t(*A)], Perm[size_t(*B)]);
  }
  return finish(C, C.emit("transpose", {X}, {{"perm", Perm}}));
}

/// Splits X along Axis into parts of the given sizes; the output is a list.
llvm::Error emitSplit(NodeConverter &C, Value *X, int64_t Axis,
                      std::vector<int64_t> Sizes) {
  auto N = C.emitNode("split", {X}, {{"axis", Axis}, {"split", Sizes}},
                      unsigned(Sizes.size()));
  if (!N)
    return N.takeError();
  std::vector<TsValue> Parts;
  for (Value *R : (*N)->results())
    Parts.push_back(TsValue::tensor(R));
  C.setOutput(0, TsValue::container(TsValue::Kind::List, std::move(Parts)));
  return C.takeError();
}

// aten::chunk(self, chunks, dim): ceil-sized parts, the last one smaller.
llvm::Error convertChunk(NodeConverter &C) {
  Value *X = C.tensor(0);
  int64_t Chunks = C.getInt(1);
  if (!X)
    return C.takeError();
  auto D = C.staticDims(X);
  if (!D)
    return D.takeError();
  auto A = axis(C.getInt(2), int64_t(D->size()));
  if (!A || Chunks <= 0)
    return C.fail("bad chunk arguments for {0}", toString(X->type()));
  int64_t Size = (*D)[size_t(*A)];
  int64_t Each = (Size + Chunks - 1) / Chunks;
  std::vector<int64_t> Sizes;
  for (int64_t Left = Size; Left > 0; Left -= Each)
    Sizes.push_back(std::min(Each, Left));
  return emitSplit(C, X, *A, Sizes);
}

// aten::split(self, split_size: int | int[], dim) and split_with_sizes.
llvm::Error convertSplit(NodeConverter &C) {
  Value *X = C.tensor(0);
  if (!X)
    return C.takeError();
  auto D = C.staticDims(X);
  if (!D)
    return D.takeError();
  auto A = axis(C.getInt(2), int64_t(D->size()));
  if (!A)
    return C.fail("dim out of range for {0}", toString(X->type()));
  int64_t Size = (*D)[size_t(*A)];
  std::vector<int64_t> Sizes;
  if (C.in(1).isConst() && C.in(1).C.isInt()) {
    int64_t Each = C.in(1).C.toInt();
    if (Each <= 0)
      return C.fail("split size must be positive");
    for (int64_t Left = Size; Left > 0; Left -= Each)
      Sizes.push_back(std::min(Each, Left));
  } else {
    Sizes = C.getInts(1);
  }
  return emitSplit(C, X, *A, Sizes);
}

// aten::unsqueeze(self, dim)
llvm::Error convertUnsqueeze(NodeConverter &C) {
  Value *X = C.tensor(0);
  if (!X)
    return C.takeError();
  auto A = axis(C.getInt(1), X->type().rank() + 1);
  if (!A)
    return C.fail("dim out of range for {0}", toString(X->type()));
  return finish(C, C.emit("unsqueeze", {X, C.constInts({*A})}));
}

// aten::squeeze(self) / squeeze(self, dim)
llvm::Error convertSqueeze(NodeConverter &C) {
  Value *X = C.tensor(0);
  if (!X)
    return C.takeError();
  if (C.numInputs() == 1)
    return finish(C, C.emit("squeeze", {X}));
  auto A = axis(C.getInt(1), X->type().rank());
  if (!A)
    return C.fail("dim out of range for {0}", toString(X->type()));
  const Dim &Dm = X->type().Dims[size_t(*A)];
  if (Dm.isStatic() && Dm.size() != 1) // PyTorch leaves other sizes alone
    return convertPassThrough(C);
  return finish(C, C.emit("squeeze", {X, C.constInts({*A})}));
}

// aten::select(self, dim, index): a gather with a scalar index.
llvm::Error convertSelect(NodeConverter &C) {
  Value *X = C.tensor(0);
  if (!X)
    return C.takeError();
  auto A = axis(C.getInt(1), X->type().rank());
  if (!A)
    return C.fail("dim out of range for {0}", toString(X->type()));
  Value *Idx = C.constant(Tensor::scalar(ElementType::I64, double(C.getInt(2))));
  return finish(C, C.emit("gather", {X, Idx}, {{"axis", *A}}));
}

// aten::slice(self, dim, start?, end?, step)
llvm::Error convertSlice(NodeConverter &C) {
  Value *X = C.tensor(0);
  if (!X)
    return C.takeError();
  auto A = axis(C.getInt(1), X->type().rank());
  if (!A)
    return C.fail("dim out of range for {0}", toString(X->type()));
  int64_t Start = C.isNone(2) ? 0 : C.getInt(2);
  int64_t End = C.isNone(3) ? std::numeric_limits<int64_t>::max() : C.getInt(3);
  int64_t Step = C.getInt(4);
  return finish(C, C.emit("slice", {X, C.constInts({Start}), C.constInts({End}),
                                    C.constInts({*A}), C.constInts({Step})}));
}

/// aten::mean / sum(self, dim?, keepdim, dtype)
llvm::Error convertReduce(NodeConverter &C, const char *Op) {
  Value *X = C.tensor(0);
  if (!X)
    return C.takeError();
  if (C.numInputs() == 2) // mean(self, dtype): over everything
    return finish(C, C.emit(Op, {X}, {{"keepdims", int64_t(0)}}));
  auto Axes = C.getOptionalInts(1);
  bool Keep = C.getBool(2);
  if (C.numInputs() > 3 && !C.isNone(3))
    return C.fail("a dtype argument is not supported");
  for (int64_t &Ax : Axes) {
    auto N = axis(Ax, X->type().rank());
    if (!N)
      return C.fail("dim {0} out of range for {1}", Ax, toString(X->type()));
    Ax = *N;
  }
  if (Axes.empty())
    return finish(C, C.emit(Op, {X}, {{"keepdims", int64_t(Keep)}}));
  return finish(C, C.emit(Op, {X, C.constInts(Axes)},
                          {{"keepdims", int64_t(Keep)}}));
}
llvm::Error convertMean(NodeConverter &C) { return convertReduce(C, "reduce_mean"); }
llvm::Error convertSum(NodeConverter &C) { return convertReduce(C, "reduce_sum"); }

const OpConverter Table[] = {
    {"aten::contiguous", convertPassThrough},
    {"aten::clone", convertPassThrough},
    {"aten::detach", convertPassThrough},
    {"aten::to", convertTo},
    {"aten::cat", convertCat},
    {"aten::concat", convertCat},
    {"aten::stack", convertStack},
    {"aten::new_zeros", convertNewFilled},
    {"aten::new_ones", convertNewFilled},
    {"aten::new_full", convertNewFilled},
    {"aten::zeros_like", convertNewFilled},
    {"aten::ones_like", convertNewFilled},
    {"aten::roll", convertRoll},
    {"aten::view", convertReshape},
    {"aten::reshape", convertReshape},
    {"aten::flatten", convertFlatten},
    {"aten::permute", convertPermute},
    {"aten::transpose", convertTranspose},
    {"aten::t", convertTranspose},
    {"aten::chunk", convertChunk},
    {"aten::split", convertSplit},
    {"aten::split_with_sizes", convertSplit},
    {"aten::unsqueeze", convertUnsqueeze},
    {"aten::squeeze", convertSqueeze},
    {"aten::select", convertSelect},
    {"aten::slice", convertSlice},
    {"aten::mean", convertMean},
    {"aten::sum", convertSum},
};

} // namespace

llvm::ArrayRef<OpConverter> shapeConverters() { return Table; }

} // namespace kiln::ts_import

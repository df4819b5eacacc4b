// Ops that move data without arithmetic: reshape, transpose, concat, split,
// slice, squeeze, pad, expand, tile, gather, shape queries, arg-reductions.
// Shape-like operands (target shape, pads, axes...) are i64 tensors; when they
// are constants, inference computes static output shapes.
#include "IR/Graph.h"
#include "IR/ShapeInference.h"
#include "IR/ops/OpBuilder.h"
#include "Support/Error.h"
#include "Support/Limits.h"

#include <algorithm>

namespace kiln {

using Types = llvm::Expected<std::vector<TensorType>>;

static const TensorType &in(const Node &N, unsigned I = 0) {
  return N.operand(I)->type();
}

static llvm::Expected<int64_t> shapeOperandLength(const Node &N, unsigned I) {
  const TensorType &T = in(N, I);
  if (T.rank() != 1 || !T.Dims[0].isStatic())
    return inputError("operand {0} must be a 1-D tensor of static length, got "
                      "{1}",
                      I, toString(T));
  if (T.Dims[0].size() > limits::MaxRank)
    return inputError("operand {0} has {1} entries, above the rank limit {2}",
                      I, T.Dims[0].size(), limits::MaxRank);
  return T.Dims[0].size();
}

/// Static product and symbols (with repeats, sorted) of some dims; None if
/// one is unknown.
static llvm::Optional<std::pair<int64_t, std::vector<std::string>>>
factorDims(llvm::ArrayRef<Dim> Dims) {
  int64_t Static = 1;
  std::vector<std::string> Symbols;
  for (const Dim &D : Dims) {
    if (D.isSymbolic())
      Symbols.push_back(D.symbol());
    else if (!D.isStatic() ||
             __builtin_mul_overflow(Static, D.size(), &Static))
      return llvm::None;
  }
  std::sort(Symbols.begin(), Symbols.end());
  return std::make_pair(Static, Symbols);
}

/// The -1 of a reshape of X into Known (the other target dims) when symbols
/// are involved: static when both sides hold the same symbols, the symbol
/// when X has one more and the static parts match; unknown otherwise.
static Dim inferredSymbolicDim(const Shape &X, const Shape &Known) {
  auto In = factorDims(X), Out = factorDims(Known);
  if (!In || !Out || Out->first <= 0)
    return Dim();
  if (In->second == Out->second && In->first % Out->first == 0)
    return Dim(In->first / Out->first);
  std::vector<std::string> Extra;
  std::set_difference(In->second.begin(), In->second.end(),
                      Out->second.begin(), Out->second.end(),
                      std::back_inserter(Extra));
  if (Extra.size() == 1 && In->second.size() == Out->second.size() + 1 &&
      In->first == Out->first)
    return Dim::symbol(Extra[0]);
  return Dim();
}

static Types inferReshape(const Node &N) {
  const TensorType &X = in(N);
  auto Len = shapeOperandLength(N, 1);
  if (!Len)
    return Len.takeError();
  auto Target = constantInts(N.operand(1));
  if (!Target) {
    // A target computed from the input's own dims (x.view(x.size(0), -1)
    // exports Shape, Gather, Unsqueeze, Concat) keeps their symbols.
    auto Dims = shapeValueDims(N.operand(1));
    if (!Dims || int64_t(Dims->size()) != *Len ||
        N.getInt("allowzero") != 0)
      return std::vector<TensorType>{withShape(X, unknownShape(*Len))};
    // One unknown entry (a -1, or a dim shape inference does not know)
    // holds whatever the others leave of X's elements.
    Shape Out, Known;
    int64_t Infer = -1;
    for (size_t I = 0; I < Dims->size(); ++I) {
      const Dim &D = (*Dims)[I];
      bool Copy = D.isStatic() && D.size() == 0 && I < X.Dims.size();
      Out.push_back(Copy ? X.Dims[I] : D);
      if (!Out.back().isUnknown())
        Known.push_back(Out.back());
      else if (Infer < 0)
        Infer = int64_t(I);
      else
        return std::vector<TensorType>{withShape(X, unknownShape(*Len))};
    }
    if (Infer >= 0)
      Out[size_t(Infer)] = inferredSymbolicDim(X.Dims, Known);
    return std::vector<TensorType>{withShape(X, Out)};
  }
  bool AllowZero = N.getInt("allowzero") != 0;
  Shape Out;
  int64_t Infer = -1, Known = 1;
  for (size_t I = 0; I < Target->size(); ++I) {
    int64_t V = (*Target)[I];
    if (V == -1) {
      if (Infer >= 0)
        return inputError("reshape target has more than one -1");
      Infer = int64_t(I);
      Out.push_back(Dim());
    } else if (V == 0 && !AllowZero) {
      if (I >= X.Dims.size())
        return inputError("reshape target copies dim {0} (0) but the input "
                          "has rank {1}",
                          I, X.rank());
      Out.push_back(X.Dims[I]);
      if (X.Dims[I].isStatic())
        Known *= X.Dims[I].size();
      else
        Known = -1;
    } else if (V < -1) {
      return inputError("reshape target has invalid dim {0}", V);
    } else {
      Out.push_back(V);
      if (Known >= 0 && __builtin_mul_overflow(Known, V, &Known))
        return inputError("reshape target overflows");
    }
  }
  auto Total = numElements(X.Dims);
  if (Infer >= 0 && Total && Known > 0) {
    if (*Total % Known)
      return inputError("cannot reshape {0} into {1}", toString(X.Dims),
                        toString(Out));
    Out[size_t(Infer)] = Dim(*Total / Known);
  } else if (Infer >= 0 && !Total) {
    // x.view(-1, 1024) of [N,16,8,8]: the -1 is N.
    Shape Rest = Out;
    Rest.erase(Rest.begin() + Infer);
    Out[size_t(Infer)] = inferredSymbolicDim(X.Dims, Rest);
  }
  if (Total && isStaticShape(Out) && *numElements(Out) != *Total)
    return inputError("cannot reshape {0} ({1} elements) into {2}",
                      toString(X.Dims), *Total, toString(Out));
  return std::vector<TensorType>{withShape(X, Out)};
}

static llvm::Expected<std::vector<int64_t>> permOf(const Node &N) {
  int64_t Rank = in(N).rank();
  std::vector<int64_t> Perm = N.getInts("perm");
  if (Perm.empty())
    for (int64_t I = Rank - 1; I >= 0; --I)
      Perm.push_back(I);
  if (int64_t(Perm.size()) != Rank)
    return inputError("perm has {0} entries for rank {1}", Perm.size(), Rank);
  std::vector<bool> Seen(size_t(Rank), false);
  for (int64_t P : Perm) {
    if (P < 0 || P >= Rank || Seen[size_t(P)])
      return inputError("perm is not a permutation of 0..{0}", Rank - 1);
    Seen[size_t(P)] = true;
  }
  return Perm;
}

static Types inferTranspose(const Node &N) {
  auto Perm = permOf(N);
  if (!Perm)
    return Perm.takeError();
  Shape Out;
  for (int64_t P : *Perm)
    Out.push_back(in(N).Dims[size_t(P)]);
  return std::vector<TensorType>{withShape(in(N), Out)};
}

static Types inferConcat(const Node &N) {
  const TensorType &First = in(N);
  auto Axis = normalizeAxis(N.getInt("axis"), First.rank());
  if (!Axis)
    return Axis.takeError();
  Shape Out = First.Dims;
  int64_t Sum = 0;
  bool Known = true;
  for (unsigned I = 0; I < N.numOperands(); ++I) {
    const TensorType &T = in(N, I);
    if (T.rank() != First.rank() || T.Elem != First.Elem)
      return inputError("concat operand {0} is {1}, operand 0 is {2}", I,
                        toString(T), toString(First));
    for (size_t D = 0; D < Out.size(); ++D) {
      if (int64_t(D) == *Axis)
        continue;
      if (T.Dims[D].isStatic() && Out[D].isStatic() &&
          T.Dims[D].size() != Out[D].size())
        return inputError("concat operand {0} is {1}, operand 0 is {2}", I,
                          toString(T), toString(First));
      if (!Out[D].isStatic())
        Out[D] = T.Dims[D];
    }
    if (T.Dims[size_t(*Axis)].isStatic())
      Sum += T.Dims[size_t(*Axis)].size();
    else
      Known = false;
  }
  Out[size_t(*Axis)] = Known ? Dim(Sum) : Dim();
  return std::vector<TensorType>{withShape(First, Out)};
}

static Types inferSplit(const Node &N) {
  const TensorType &X = in(N);
  auto Axis = normalizeAxis(N.getInt("axis"), X.rank());
  if (!Axis)
    return Axis.takeError();
  std::vector<int64_t> Sizes = N.getInts("split");
  bool DynamicSizes = false;
  if (N.numOperands() > 1 && N.operand(1)) {
    auto C = constantInts(N.operand(1));
    Sizes = C ? *C : std::vector<int64_t>();
    DynamicSizes = !C; // sizes known only at run time
  }
  const Dim &D = X.Dims[size_t(*Axis)];
  unsigned NR = N.numResults();
  std::vector<TensorType> R;
  for (unsigned I = 0; I < NR; ++I) {
    Shape S = X.Dims;
    if (!Sizes.empty()) {
      if (Sizes.size() != NR)
        return inputError("split has {0} sizes for {1} results", Sizes.size(),
                          NR);
      if (Sizes[I] < 0)
        return inputError("split size {0} of result {1} is negative",
                          Sizes[I], I);
      S[size_t(*Axis)] = Dim(Sizes[I]);
    } else if (D.isStatic() && !DynamicSizes) {
      int64_t Chunk = (D.size() + NR - 1) / NR; // last chunk may be smaller
      int64_t Start = Chunk * I;
      S[size_t(*Axis)] = Dim(std::max<int64_t>(0, std::min(Chunk, D.size() - Start)));
    } else {
      S[size_t(*Axis)] = Dim();
    }
    R.push_back(withShape(X, S));
  }
  if (!Sizes.empty() && D.isStatic()) {
    int64_t Total = 0;
    for (int64_t V : Sizes)
      Total += V;
    if (Total != D.size())
      return inputError("split sizes sum to {0}, axis has {1}", Total, D.size());
  }
  return R;
}

static Types inferSlice(const Node &N) {
  const TensorType &X = in(N);
  auto Starts = constantInts(N.operand(1));
  auto Ends = constantInts(N.operand(2));
  const Value *AxesV = N.numOperands() > 3 ? N.operand(3) : nullptr;
  const Value *StepsV = N.numOperands() > 4 ? N.operand(4) : nullptr;
  auto Axes = AxesV ? constantInts(AxesV) : llvm::None;
  auto Steps = StepsV ? constantInts(StepsV) : llvm::None;
  if (!Starts || !Ends || (AxesV && !Axes) || (StepsV && !Steps)) {
    Shape Out = X.Dims;
    if (Axes) {
      for (int64_t A : *Axes) {
        auto NA = normalizeAxis(A, X.rank());
        if (!NA)
          return NA.takeError();
        Out[size_t(*NA)] = Dim();
      }
    } else {
      Out = unknownShape(X.rank());
    }
    return std::vector<TensorType>{withShape(X, Out)};
  }
  size_t K = Starts->size();
  if (Ends->size() != K || (Axes && Axes->size() != K) ||
      (Steps && Steps->size() != K))
    return inputError("slice starts/ends/axes/steps differ in length");
  Shape Out = X.Dims;
  for (size_t I = 0; I < K; ++I) {
    auto A = normalizeAxis(Axes ? (*Axes)[I] : int64_t(I), X.rank());
    if (!A)
      return A.takeError();
    int64_t Step = Steps ? (*Steps)[I] : 1;
    if (Step == 0)
      return inputError("slice step is 0");
    const Dim &D = X.Dims[size_t(*A)];
    if (!D.isStatic()) {
      Out[size_t(*A)] = Dim();
      continue;
    }
    int64_t Sz = D.size(), S = (*Starts)[I], E = (*Ends)[I];
    if (S < 0) S += Sz;
    if (E < 0) E += Sz;
    // Counted as (span - 1) / |step| + 1, which cannot overflow for any
    // step (INT64_MAX and INT64_MIN included) once the ends are clamped.
    if (Step > 0) {
      S = std::clamp<int64_t>(S, 0, Sz);
      E = std::clamp<int64_t>(E, 0, Sz);
      Out[size_t(*A)] = Dim(E > S ? (E - S - 1) / Step + 1 : 0);
    } else {
      S = std::clamp<int64_t>(S, 0, Sz - 1);
      E = std::clamp<int64_t>(E, -1, Sz - 1);
      uint64_t AbsStep = uint64_t(0) - uint64_t(Step);
      Out[size_t(*A)] = Dim(S > E ? int64_t(uint64_t(S - E - 1) / AbsStep) + 1 : 0);
    }
  }
  return std::vector<TensorType>{withShape(X, Out)};
}

static Types inferSqueeze(const Node &N) {
  const TensorType &X = in(N);
  const Value *AxesV = N.numOperands() > 1 ? N.operand(1) : nullptr;
  Shape Out;
  if (!AxesV) {
    // Without axes every size-1 dim goes. A dim unknown here is assumed not
    // to be 1 (a batch N, say); if it is 1 at run time the interpreter's
    // result check reports the rank mismatch.
    for (const Dim &D : X.Dims)
      if (!D.isStatic() || D.size() != 1)
        Out.push_back(D);
    return std::vector<TensorType>{withShape(X, Out)};
  }
  auto Axes = constantInts(AxesV);
  if (!Axes) {
    // Run-time axes: the rank is known from how many there are; which dims
    // remain is not.
    auto Len = shapeOperandLength(N, 1);
    if (!Len)
      return Len.takeError();
    if (*Len > X.rank())
      return inputError("squeeze of {0} axes from rank {1}", *Len, X.rank());
    return std::vector<TensorType>{withShape(X, unknownShape(X.rank() - *Len))};
  }
  std::vector<bool> Drop(size_t(X.rank()), false);
  for (int64_t A : *Axes) {
    auto NA = normalizeAxis(A, X.rank());
    if (!NA)
      return NA.takeError();
    const Dim &D = X.Dims[size_t(*NA)];
    if (D.isStatic() && D.size() != 1)
      return inputError("cannot squeeze axis {0} of size {1}", *NA, D.size());
    Drop[size_t(*NA)] = true;
  }
  for (size_t I = 0; I < X.Dims.size(); ++I)
    if (!Drop[I])
      Out.push_back(X.Dims[I]);
  return std::vector<TensorType>{withShape(X, Out)};
}

static Types inferUnsqueeze(const Node &N) {
  const TensorType &X = in(N);
  auto Axes = constantInts(N.operand(1));
  if (!Axes) { // run-time axes: only the rank is known
    auto Len = shapeOperandLength(N, 1);
    if (!Len)
      return Len.takeError();
    if (X.rank() + *Len > limits::MaxRank)
      return inputError("unsqueeze gives rank {0}, above the limit {1}",
                        X.rank() + *Len, limits::MaxRank);
    return std::vector<TensorType>{withShape(X, unknownShape(X.rank() + *Len))};
  }
  int64_t OutRank = X.rank() + int64_t(Axes->size());
  if (OutRank > limits::MaxRank)
    return inputError("unsqueeze gives rank {0}, above the limit {1}", OutRank,
                      limits::MaxRank);
  std::vector<bool> IsNew(size_t(OutRank), false);
  for (int64_t A : *Axes) {
    auto NA = normalizeAxis(A, OutRank);
    if (!NA)
      return NA.takeError();
    if (IsNew[size_t(*NA)])
      return inputError("unsqueeze axis {0} repeated", *NA);
    IsNew[size_t(*NA)] = true;
  }
  Shape Out;
  size_t Next = 0;
  for (int64_t I = 0; I < OutRank; ++I)
    Out.push_back(IsNew[size_t(I)] ? Dim(1) : X.Dims[Next++]);
  return std::vector<TensorType>{withShape(X, Out)};
}

// Product of dims. Size-1 dims drop out, so [N,1,1] stays N.
static Dim product(llvm::ArrayRef<Dim> Dims) {
  int64_t P = 1;
  const Dim *OnlySymbolic = nullptr;
  unsigned NonStatic = 0;
  for (const Dim &D : Dims) {
    if (D.isStatic()) {
      P *= D.size();
    } else {
      ++NonStatic;
      OnlySymbolic = &D;
    }
  }
  if (NonStatic == 0)
    return Dim(P);
  if (NonStatic == 1 && P == 1)
    return *OnlySymbolic;
  return Dim();
}

static Types inferFlatten(const Node &N) {
  const TensorType &X = in(N);
  int64_t Axis = N.getInt("axis");
  if (Axis < 0)
    Axis += X.rank();
  if (Axis < 0 || Axis > X.rank())
    return inputError("flatten axis {0} out of range for rank {1}",
                      N.getInt("axis"), X.rank());
  llvm::ArrayRef<Dim> D(X.Dims);
  return std::vector<TensorType>{
      withShape(X, {product(D.take_front(size_t(Axis))),
                    product(D.drop_front(size_t(Axis)))})};
}

static Types inferPad(const Node &N) {
  const TensorType &X = in(N);
  auto Pads = constantInts(N.operand(1));
  const std::string &Mode = N.getString("mode");
  if (Mode != "constant" && Mode != "reflect" && Mode != "edge")
    return inputError("unknown pad mode '{0}'", Mode);
  if (!Pads)
    return std::vector<TensorType>{withShape(X, unknownShape(X.rank()))};
  if (Pads->size() != 2 * size_t(X.rank()))
    return inputError("pads has {0} values for rank {1}", Pads->size(),
                      X.rank());
  for (size_t I = 0; I < Pads->size(); ++I)
    if ((*Pads)[I] < -limits::MaxDim || (*Pads)[I] > limits::MaxDim)
      return inputError("pad {0} is beyond the largest dim, {1}", (*Pads)[I],
                        limits::MaxDim);
  Shape Out = X.Dims;
  for (size_t I = 0; I < Out.size(); ++I) {
    if (!Out[I].isStatic())
      continue;
    // Negative pads crop; cropping a non-empty axis to nothing is refused.
    int64_t Size = Out[I].size() + (*Pads)[I] + (*Pads)[I + Out.size()];
    if (Size < 1 && Out[I].size() > 0)
      return inputError("pads {0} and {1} leave axis {2} of size {3} with "
                        "{4} elements",
                        (*Pads)[I], (*Pads)[I + Out.size()], I,
                        Out[I].size(), Size);
    Out[I] = Dim(Size);
  }
  return std::vector<TensorType>{withShape(X, Out)};
}

static Types inferExpand(const Node &N) {
  auto Len = shapeOperandLength(N, 1);
  if (!Len)
    return Len.takeError();
  auto Target = constantInts(N.operand(1));
  Shape T = Target ? makeShape(*Target) : unknownShape(*Len);
  auto Out = broadcastShapes(in(N).Dims, T);
  if (!Out)
    return Out.takeError();
  return std::vector<TensorType>{withShape(in(N), *Out)};
}

static Types inferTile(const Node &N) {
  const TensorType &X = in(N);
  auto Reps = constantInts(N.operand(1));
  if (!Reps)
    return std::vector<TensorType>{withShape(X, unknownShape(X.rank()))};
  if (Reps->size() != size_t(X.rank()))
    return inputError("tile repeats has {0} values for rank {1}", Reps->size(),
                      X.rank());
  Shape Out = X.Dims;
  for (size_t I = 0; I < Out.size(); ++I) {
    if ((*Reps)[I] < 0)
      return inputError("tile repeat {0} on axis {1} is negative", (*Reps)[I],
                        I);
    int64_t Size = 0;
    if (Out[I].isStatic() &&
        (__builtin_mul_overflow(Out[I].size(), (*Reps)[I], &Size) ||
         Size > limits::MaxDim))
      return inputError("tile repeat {0} on axis {1} of size {2} is beyond "
                        "the largest dim, {3}",
                        (*Reps)[I], I, Out[I].size(), limits::MaxDim);
    Out[I] = Out[I].isStatic() ? Dim(Size) : Dim();
  }
  return std::vector<TensorType>{withShape(X, Out)};
}

static Types inferShape(const Node &N) {
  int64_t R = in(N).rank();
  int64_t Start = N.getInt("start"), End = N.hasAttr("end") ? N.getInt("end") : R;
  if (Start < 0) Start += R;
  if (End < 0) End += R;
  Start = std::clamp<int64_t>(Start, 0, R);
  End = std::clamp<int64_t>(End, 0, R);
  return std::vector<TensorType>{
      TensorType(ElementType::I64, {Dim(std::max<int64_t>(0, End - Start))})};
}

static Types inferGather(const Node &N) {
  const TensorType &X = in(N), &Idx = in(N, 1);
  if (!isIntegerType(Idx.Elem))
    return inputError("gather indices must be integers, got {0}",
                      toString(Idx));
  auto Axis = normalizeAxis(N.getInt("axis"), X.rank());
  if (!Axis)
    return Axis.takeError();
  // Constant indices are checked here, not when the graph runs.
  const Dim &Along = X.Dims[size_t(*Axis)];
  if (auto Indices = constantInts(N.operand(1)); Indices && Along.isStatic())
    for (int64_t V : *Indices)
      if (V < -Along.size() || V >= Along.size())
        return inputError("gather index {0} is out of range for axis {1} of "
                          "size {2}",
                          V, *Axis, Along.size());
  Shape Out(X.Dims.begin(), X.Dims.begin() + *Axis);
  Out.insert(Out.end(), Idx.Dims.begin(), Idx.Dims.end());
  Out.insert(Out.end(), X.Dims.begin() + *Axis + 1, X.Dims.end());
  return std::vector<TensorType>{withShape(X, Out)};
}

static Types inferScatterND(const Node &N) {
  const TensorType &X = in(N), &Idx = in(N, 1), &U = in(N, 2);
  if (!isIntegerType(Idx.Elem))
    return inputError("scatter_nd indices must be integers, got {0}",
                      toString(Idx));
  if (U.Elem != X.Elem)
    return inputError("scatter_nd updates {0} differ from data {1}",
                      toString(U), toString(X));
  if (Idx.rank() < 1)
    return inputError("scatter_nd indices need rank >= 1");
  const Dim &K = Idx.Dims.back();
  if (K.isStatic()) {
    if (K.size() < 1 || K.size() > X.rank())
      return inputError("scatter_nd index tuples of {0} do not fit data of "
                        "rank {1}",
                        K.size(), X.rank());
    // updates = indices.shape[:-1] + data.shape[K:]
    int64_t Want = Idx.rank() - 1 + X.rank() - K.size();
    if (U.rank() != Want)
      return inputError("scatter_nd updates {0} need rank {1}", toString(U),
                        Want);
  }
  return std::vector<TensorType>{X};
}

static Types inferConstantOfShape(const Node &N) {
  auto Len = shapeOperandLength(N, 0);
  if (!Len)
    return Len.takeError();
  const Tensor &V = N.getTensor("value");
  if (V.numElements() != 1)
    return inputError("constant_of_shape value must have one element");
  auto Target = constantInts(N.operand(0));
  if (Target)
    for (size_t I = 0; I < Target->size(); ++I)
      if ((*Target)[I] < 0)
        return inputError("constant_of_shape dim {0} is {1}, below zero", I,
                          (*Target)[I]);
  return std::vector<TensorType>{TensorType(
      V.type().Elem, Target ? makeShape(*Target) : unknownShape(*Len))};
}

static Types inferRange(const Node &N) {
  for (unsigned I = 0; I < 3; ++I)
    if (in(N, I).rank() != 0)
      return inputError("range operands must be scalars");
  auto S = constantFloats(N.operand(0)), L = constantFloats(N.operand(1)),
       D = constantFloats(N.operand(2));
  Dim Len;
  if (S && L && D && (*D)[0] != 0) {
    double Count = std::ceil(((*L)[0] - (*S)[0]) / (*D)[0]);
    if (!(Count <= double(limits::MaxDim))) // NaN too
      return inputError("range from {0:e} to {1:e} by {2:e} has {3:e} elements, "
                        "beyond the largest dim, {4}",
                        (*S)[0], (*L)[0], (*D)[0], Count, limits::MaxDim);
    Len = Dim(std::max<int64_t>(0, int64_t(Count)));
  }
  return std::vector<TensorType>{TensorType(in(N).Elem, {Len})};
}

static Types inferArgReduce(const Node &N) {
  const TensorType &X = in(N);
  auto Axis = normalizeAxis(N.getInt("axis"), X.rank());
  if (!Axis)
    return Axis.takeError();
  Shape Out = X.Dims;
  if (N.getInt("keepdims"))
    Out[size_t(*Axis)] = Dim(1);
  else
    Out.erase(Out.begin() + *Axis);
  return std::vector<TensorType>{TensorType(ElementType::I64, Out)};
}

static Types inferTopK(const Node &N) {
  const TensorType &X = in(N);
  auto Axis = normalizeAxis(N.getInt("axis"), X.rank());
  if (!Axis)
    return Axis.takeError();
  Shape Out = X.Dims;
  auto K = constantInts(N.operand(1));
  const Dim &Along = X.Dims[size_t(*Axis)];
  if (K && K->size() == 1 && ((*K)[0] < 0 || (Along.isStatic() && (*K)[0] > Along.size())))
    return inputError("topk k is {0}, but axis {1} has {2} elements", (*K)[0],
                      *Axis, Along.isStatic() ? std::to_string(Along.size()) : "?");
  Out[size_t(*Axis)] = K && K->size() == 1 ? Dim((*K)[0]) : Dim();
  return std::vector<TensorType>{withShape(X, Out),
                                 TensorType(ElementType::I64, Out)};
}

void registerShapeOps(OpRegistry &R) {
  auto Shaped = [&](const char *Name, const char *Summary) {
    return OpBuilder(Name, "shape", Summary);
  };
  Shaped("reshape", "new shape from an i64 tensor; 0 copies a dim, -1 infers one")
      .operand("x").operand("shape")
      .attr("allowzero", AttrKind::Int, int64_t(0))
      .infer(inferReshape).into(R);
  Shaped("transpose", "permutes axes; empty perm reverses them")
      .operand("x").attr("perm", AttrKind::Ints, Ints{})
      .infer(inferTranspose).into(R);
  Shaped("concat", "joins operands along axis")
      .variadic("inputs").required("axis", AttrKind::Int)
      .infer(inferConcat).into(R);
  Shaped("split", "splits along axis into the node's results")
      .operand("x").optional("split").results(1, 1u << 16)
      .attr("axis", AttrKind::Int, int64_t(0))
      .attr("split", AttrKind::Ints, Ints{}, "sizes; empty = equal parts")
      .infer(inferSplit).into(R);
  Shaped("slice", "numpy slicing with starts, ends, axes and steps (i64 tensors)")
      .operand("x").operand("starts").operand("ends").optional("axes").optional("steps")
      .infer(inferSlice).into(R);
  Shaped("squeeze", "drops size-1 axes (all of them when axes is absent)")
      .operand("x").optional("axes").infer(inferSqueeze).into(R);
  Shaped("unsqueeze", "inserts size-1 axes")
      .operand("x").operand("axes").infer(inferUnsqueeze).into(R);
  Shaped("flatten", "reshapes to 2-D around axis")
      .operand("x").attr("axis", AttrKind::Int, int64_t(1))
      .infer(inferFlatten).into(R);
  Shaped("pad", "pads each axis; pads = all begins then all ends")
      .operand("x").operand("pads").optional("value")
      .attr("mode", AttrKind::String, std::string("constant"), "constant, reflect or edge")
      .infer(inferPad).into(R);
  Shaped("expand", "broadcasts x to a shape").operand("x").operand("shape")
      .infer(inferExpand).into(R);
  Shaped("tile", "repeats x along each axis").operand("x").operand("repeats")
      .infer(inferTile).into(R);
  Shaped("shape", "the shape of x as an i64 tensor, dims [start, end)")
      .operand("x")
      .attr("start", AttrKind::Int, int64_t(0))
      .attr("end", AttrKind::Int, int64_t(limits::MaxRank), "clamped to the rank")
      .infer(inferShape).into(R);
  Shaped("size", "element count of x as an i64 scalar").operand("x")
      .infer([](const Node &) -> Types {
        return std::vector<TensorType>{TensorType(ElementType::I64, {})};
      }).into(R);
  Shaped("gather", "takes slices of data along axis at indices")
      .operand("data").operand("indices")
      .attr("axis", AttrKind::Int, int64_t(0))
      .infer(inferGather).into(R);
  Shaped("scatter_nd", "a copy of data with the slices at index tuples "
                       "replaced by updates (the last write wins)")
      .operand("data").operand("indices").operand("updates")
      .infer(inferScatterND).into(R);
  Shaped("constant_of_shape", "a tensor of the given shape filled with 'value'")
      .operand("shape")
      .attr("value", AttrKind::Tensor, Tensor::fromValues<float>(ElementType::F32, {Dim(1)}, {0.f}))
      .infer(inferConstantOfShape).into(R);
  Shaped("range", "start, start+delta, ... below limit")
      .operand("start").operand("limit").operand("delta")
      .infer(inferRange).into(R);
  Shaped("argmax", "index of the largest value along axis")
      .operand("x")
      .attr("axis", AttrKind::Int, int64_t(0))
      .attr("keepdims", AttrKind::Int, int64_t(1))
      .attr("select_last_index", AttrKind::Int, int64_t(0))
      .infer(inferArgReduce).into(R);
  Shaped("argmin", "index of the smallest value along axis")
      .operand("x")
      .attr("axis", AttrKind::Int, int64_t(0))
      .attr("keepdims", AttrKind::Int, int64_t(1))
      .attr("select_last_index", AttrKind::Int, int64_t(0))
      .infer(inferArgReduce).into(R);
  Shaped("topk", "the k largest (or smallest) values along axis, and indices")
      .operand("x").operand("k").results(2, 2)
      .attr("axis", AttrKind::Int, int64_t(-1))
      .attr("largest", AttrKind::Int, int64_t(1))
      .attr("sorted", AttrKind::Int, int64_t(1))
      .infer(inferTopK).into(R);
}

} // namespace kiln

// Data-movement kernels: reshape, transpose, concat, split, slice, squeeze,
// unsqueeze, flatten, pad, expand, tile, shape, size and constant_of_shape.
// They never look at values, only at element sizes, so each serves every
// dtype. Shape-like operands (target shape, pads, axes, starts...) are integer
// tensors read at run time with ONNX's rules. Reshape-like ops share the
// input's buffer; transpose/slice/expand are one strided copy, pad/tile one
// index-mapped copy. Gather, arg-reductions, topk and range: IndexKernels.cpp.
#include "Interpreter/KernelSupport.h"

#include "IR/ShapeInference.h"

#include <algorithm>

namespace kiln {

namespace {

/// Optional integer operand I, or None when absent.
llvm::Expected<llvm::Optional<std::vector<int64_t>>>
optionalInts(KernelContext &Ctx, unsigned I, llvm::StringRef What) {
  const Tensor *T = Ctx.input(I);
  if (!T)
    return llvm::Optional<std::vector<int64_t>>();
  auto V = readInts(*T, What);
  if (!V)
    return V.takeError();
  return llvm::Optional<std::vector<int64_t>>(std::move(*V));
}

/// Normalized, distinct axes (each in [0, Rank)).
llvm::Expected<std::vector<int64_t>> normalizeAxes(llvm::ArrayRef<int64_t> Axes,
                                                   int64_t Rank) {
  std::vector<int64_t> Out;
  for (int64_t A : Axes) {
    auto NA = normalizeAxis(A, Rank);
    if (!NA)
      return NA.takeError();
    if (llvm::is_contained(Out, *NA))
      return inputError("axis {0} is repeated", A);
    Out.push_back(*NA);
  }
  return Out;
}

llvm::Error reshapeKernel(KernelContext &Ctx) {
  const Tensor &X = *Ctx.input(0);
  auto Target = readInts(*Ctx.input(1), "reshape shape");
  if (!Target)
    return Target.takeError();
  std::vector<int64_t> In = sizesOf(X), Out;
  bool AllowZero = Ctx.N.getInt("allowzero") != 0;
  int64_t Infer = -1, Known = 1;
  for (size_t I = 0; I < Target->size(); ++I) {
    int64_t V = (*Target)[I];
    if (V == -1) {
      if (Infer >= 0)
        return inputError("reshape target has more than one -1");
      Infer = int64_t(I);
      V = 1;
    } else if (V == 0 && !AllowZero) {
      if (I >= In.size())
        return inputError("reshape target copies dim {0} but the input has "
                          "rank {1}",
                          I, In.size());
      V = In[I];
    } else if (V < -1) {
      return inputError("reshape target has invalid dim {0}", V);
    }
    Out.push_back(V);
    if (__builtin_mul_overflow(Known, V, &Known))
      return inputError("reshape target overflows");
  }
  int64_t Total = X.numElements();
  if (Infer >= 0) {
    if (Known == 0 || Total % Known)
      return inputError("cannot reshape {0} into {1} with -1 at {2}",
                        toString(X.type().Dims), toString(makeShape(*Target)),
                        Infer);
    Out[size_t(Infer)] = Total / Known;
  } else if (Known != Total) {
    return inputError("cannot reshape {0} ({1} elements) into {2}",
                      toString(X.type().Dims), Total, toString(makeShape(Out)));
  }
  Ctx.Outputs.push_back(reshaped(X, Out));
  return llvm::Error::success();
}

llvm::Error transposeKernel(KernelContext &Ctx) {
  const Tensor &X = *Ctx.input(0);
  std::vector<int64_t> In = sizesOf(X);
  std::vector<int64_t> Perm = Ctx.N.getInts("perm");
  if (Perm.empty())
    for (size_t I = In.size(); I-- > 0;)
      Perm.push_back(int64_t(I));
  std::vector<int64_t> Sorted = Perm;
  std::sort(Sorted.begin(), Sorted.end());
  for (size_t I = 0; I < Sorted.size(); ++I)
    if (Sorted.size() != In.size() || Sorted[I] != int64_t(I))
      return inputError("perm is not a permutation of the {0} axes", In.size());
  std::vector<int64_t> InStrides = contiguousStrides(In), Out, St;
  for (int64_t P : Perm) {
    Out.push_back(In[size_t(P)]);
    St.push_back(InStrides[size_t(P)]);
  }
  Tensor R = makeTensor(X.type().Elem, Out);
  stridedCopy(Ctx.Pool, X.buffer().data(), mutableData<uint8_t>(R),
              planStrided<1>(Out, {St}), elementSize(X.type().Elem));
  Ctx.Outputs.push_back(std::move(R));
  return llvm::Error::success();
}

llvm::Error concatKernel(KernelContext &Ctx) {
  if (Ctx.Inputs.empty() || !Ctx.input(0))
    return inputError("concat needs at least one operand");
  const Tensor &First = *Ctx.input(0);
  std::vector<int64_t> Out = sizesOf(First);
  auto Axis = normalizeAxis(Ctx.N.getInt("axis"), int64_t(Out.size()));
  if (!Axis)
    return Axis.takeError();
  size_t A = size_t(*Axis);
  Out[A] = 0;
  for (const Tensor *T : Ctx.Inputs) {
    std::vector<int64_t> S = sizesOf(*T);
    bool Ok = T->type().Elem == First.type().Elem && S.size() == Out.size();
    for (size_t D = 0; Ok && D < S.size(); ++D)
      Ok = D == A || S[D] == Out[D];
    if (!Ok)
      return inputError("concat operand {0} does not fit operand 0 {1}",
                        toString(T->type()), toString(First.type()));
    Out[A] += S[A];
  }
  auto R = newTensor(First.type().Elem, Out);
  if (!R)
    return R.takeError();
  size_t ES = elementSize(First.type().Elem);
  int64_t Outer = product(llvm::makeArrayRef(Out).take_front(A));
  uint8_t *Dst = mutableData<uint8_t>(*R);
  for (int64_t O = 0; O < Outer; ++O)
    for (const Tensor *T : Ctx.Inputs) {
      size_t Bytes = size_t(T->numElements() / std::max<int64_t>(Outer, 1)) * ES;
      std::memcpy(Dst, T->buffer().data() + size_t(O) * Bytes, Bytes);
      Dst += Bytes;
    }
  Ctx.Outputs.push_back(std::move(*R));
  return llvm::Error::success();
}

llvm::Error splitKernel(KernelContext &Ctx) {
  const Tensor &X = *Ctx.input(0);
  std::vector<int64_t> In = sizesOf(X);
  auto Axis = normalizeAxis(Ctx.N.getInt("axis"), int64_t(In.size()));
  if (!Axis)
    return Axis.takeError();
  size_t A = size_t(*Axis), NR = Ctx.N.numResults();
  auto FromOperand = optionalInts(Ctx, 1, "split sizes");
  if (!FromOperand)
    return FromOperand.takeError();
  std::vector<int64_t> Sizes =
      *FromOperand ? **FromOperand : Ctx.N.getInts("split");
  if (Sizes.empty()) { // equal parts; the last one may be smaller (ONNX)
    int64_t Chunk = (In[A] + int64_t(NR) - 1) / int64_t(NR);
    for (size_t I = 0; I < NR; ++I)
      Sizes.push_back(std::max<int64_t>(0, std::min(Chunk, In[A] - Chunk * int64_t(I))));
  }
  int64_t Sum = 0;
  for (int64_t S : Sizes)
    Sum += S < 0 ? In[A] + 1 : S;
  if (Sizes.size() != NR || Sum != In[A])
    return inputError("split sizes {0} do not cut axis {1} of size {2} into {3} "
                      "parts",
                      toString(makeShape(Sizes)), A, In[A], NR);
  size_t ES = elementSize(X.type().Elem);
  int64_t Outer = product(llvm::makeArrayRef(In).take_front(A));
  int64_t Inner = product(llvm::makeArrayRef(In).drop_front(A + 1));
  int64_t Offset = 0;
  for (int64_t S : Sizes) {
    std::vector<int64_t> Out = In;
    Out[A] = S;
    Tensor R = makeTensor(X.type().Elem, Out);
    size_t Bytes = size_t(S * Inner) * ES;
    for (int64_t O = 0; O < Outer; ++O)
      std::memcpy(mutableData<uint8_t>(R) + size_t(O) * Bytes,
                  X.buffer().data() + size_t((O * In[A] + Offset) * Inner) * ES,
                  Bytes);
    Offset += S;
    Ctx.Outputs.push_back(std::move(R));
  }
  return llvm::Error::success();
}

llvm::Error sliceKernel(KernelContext &Ctx) {
  const Tensor &X = *Ctx.input(0);
  std::vector<int64_t> In = sizesOf(X);
  int64_t Rank = int64_t(In.size());
  auto Starts = readInts(*Ctx.input(1), "slice starts");
  auto Ends = readInts(*Ctx.input(2), "slice ends");
  auto AxesIn = optionalInts(Ctx, 3, "slice axes");
  auto StepsIn = optionalInts(Ctx, 4, "slice steps");
  if (!Starts || !Ends || !AxesIn || !StepsIn)
    return llvm::joinErrors(
        llvm::joinErrors(Starts.takeError(), Ends.takeError()),
        llvm::joinErrors(AxesIn.takeError(), StepsIn.takeError()));
  size_t K = Starts->size();
  std::vector<int64_t> Axes(K), Steps(K, 1);
  for (size_t I = 0; I < K; ++I)
    Axes[I] = int64_t(I);
  if (*AxesIn)
    Axes = **AxesIn;
  if (*StepsIn)
    Steps = **StepsIn;
  if (Ends->size() != K || Axes.size() != K || Steps.size() != K)
    return inputError("slice starts, ends, axes and steps differ in length");
  auto NAxes = normalizeAxes(Axes, Rank);
  if (!NAxes)
    return NAxes.takeError();
  std::vector<int64_t> Start(In.size(), 0), Step(In.size(), 1), Out = In;
  for (size_t I = 0; I < K; ++I) {
    size_t A = size_t((*NAxes)[I]);
    int64_t Sz = In[A], S = (*Starts)[I], E = (*Ends)[I], St = Steps[I];
    if (St == 0)
      return inputError("slice step is 0");
    Step[A] = St;
    if (Sz == 0) {
      Out[A] = 0;
      continue;
    }
    // Clamp first: starts/ends may be INT64_MIN/MAX (meaning "to the end").
    S = std::clamp<int64_t>(S, -Sz - 1, Sz + 1);
    E = std::clamp<int64_t>(E, -Sz - 1, Sz + 1);
    if (S < 0) S += Sz;
    if (E < 0) E += Sz;
    if (St > 0) {
      S = std::clamp<int64_t>(S, 0, Sz);
      E = std::clamp<int64_t>(E, 0, Sz);
      Out[A] = E > S ? (E - S + St - 1) / St : 0;
    } else {
      S = std::clamp<int64_t>(S, 0, Sz - 1);
      E = std::clamp<int64_t>(E, -1, Sz - 1);
      Out[A] = S > E ? (S - E - St - 1) / -St : 0;
    }
    Start[A] = S;
  }
  Tensor R = makeTensor(X.type().Elem, Out);
  std::vector<int64_t> InStrides = contiguousStrides(In), St(In.size());
  int64_t Base = 0;
  for (size_t D = 0; D < In.size(); ++D) {
    St[D] = InStrides[D] * Step[D];
    Base += Start[D] * InStrides[D];
  }
  size_t ES = elementSize(X.type().Elem);
  if (R.numElements() > 0)
    stridedCopy(Ctx.Pool, X.buffer().data() + size_t(Base) * ES,
                mutableData<uint8_t>(R), planStrided<1>(Out, {St}), ES);
  Ctx.Outputs.push_back(std::move(R));
  return llvm::Error::success();
}

llvm::Error squeezeKernel(KernelContext &Ctx) {
  const Tensor &X = *Ctx.input(0);
  std::vector<int64_t> In = sizesOf(X), Out;
  auto AxesIn = optionalInts(Ctx, 1, "squeeze axes");
  if (!AxesIn)
    return AxesIn.takeError();
  std::vector<bool> Drop(In.size(), false);
  if (!*AxesIn) {
    for (size_t D = 0; D < In.size(); ++D)
      Drop[D] = In[D] == 1;
  } else {
    auto Axes = normalizeAxes(**AxesIn, int64_t(In.size()));
    if (!Axes)
      return Axes.takeError();
    for (int64_t A : *Axes) {
      if (In[size_t(A)] != 1)
        return inputError("cannot squeeze axis {0} of size {1}", A,
                          In[size_t(A)]);
      Drop[size_t(A)] = true;
    }
  }
  for (size_t D = 0; D < In.size(); ++D)
    if (!Drop[D])
      Out.push_back(In[D]);
  Ctx.Outputs.push_back(reshaped(X, Out));
  return llvm::Error::success();
}

llvm::Error unsqueezeKernel(KernelContext &Ctx) {
  const Tensor &X = *Ctx.input(0);
  std::vector<int64_t> In = sizesOf(X), Out;
  auto AxesIn = readInts(*Ctx.input(1), "unsqueeze axes");
  if (!AxesIn)
    return AxesIn.takeError();
  int64_t OutRank = int64_t(In.size() + AxesIn->size());
  auto Axes = normalizeAxes(*AxesIn, OutRank);
  if (!Axes)
    return Axes.takeError();
  size_t Next = 0;
  for (int64_t D = 0; D < OutRank; ++D)
    Out.push_back(llvm::is_contained(*Axes, D) ? 1 : In[Next++]);
  Ctx.Outputs.push_back(reshaped(X, Out));
  return llvm::Error::success();
}

llvm::Error flattenKernel(KernelContext &Ctx) {
  const Tensor &X = *Ctx.input(0);
  std::vector<int64_t> In = sizesOf(X);
  int64_t Rank = int64_t(In.size()), Axis = Ctx.N.getInt("axis");
  if (Axis < 0)
    Axis += Rank;
  if (Axis < 0 || Axis > Rank)
    return inputError("flatten axis {0} is out of range for rank {1}",
                      Ctx.N.getInt("axis"), Rank);
  llvm::ArrayRef<int64_t> S(In);
  Ctx.Outputs.push_back(reshaped(X, {product(S.take_front(size_t(Axis))),
                                     product(S.drop_front(size_t(Axis)))}));
  return llvm::Error::success();
}

/// Source coordinate read by output coordinate O of a padded axis of size N
/// (-1: the constant fill). Reflect mirrors without repeating the edge;
/// long pads keep mirroring, as numpy does.
int64_t padSource(int64_t O, int64_t Begin, int64_t N, llvm::StringRef Mode) {
  int64_t I = O - Begin;
  if (I >= 0 && I < N)
    return I;
  if (Mode == "constant")
    return -1;
  if (Mode == "edge" || N == 1)
    return I < 0 ? 0 : N - 1;
  int64_t Period = 2 * (N - 1), M = ((I % Period) + Period) % Period;
  return M < N ? M : Period - M;
}

llvm::Error padKernel(KernelContext &Ctx) {
  const Tensor &X = *Ctx.input(0);
  std::vector<int64_t> In = sizesOf(X), Out = In;
  auto Pads = readInts(*Ctx.input(1), "pads");
  if (!Pads)
    return Pads.takeError();
  size_t R = In.size();
  if (Pads->size() != 2 * R)
    return inputError("pads has {0} values for rank {1}", Pads->size(), R);
  const std::string &Mode = Ctx.N.getString("mode");
  if (Mode != "constant" && Mode != "reflect" && Mode != "edge")
    return inputError("unknown pad mode '{0}'", Mode);
  for (size_t D = 0; D < R; ++D) {
    Out[D] += (*Pads)[D] + (*Pads)[D + R];
    if (Out[D] < 0)
      return inputError("pads remove more than axis {0} holds", D);
    if (Mode != "constant" && In[D] == 0 && Out[D] > 0)
      return inputError("cannot {0}-pad the empty axis {1}", Mode, D);
  }
  size_t ES = elementSize(X.type().Elem);
  std::vector<uint8_t> Fill(ES, 0);
  if (const Tensor *V = Ctx.input(2)) {
    if (V->type().Elem != X.type().Elem || V->numElements() > 1)
      return inputError("pad value must be a scalar of x's type, got {0}",
                        toString(V->type()));
    if (V->numElements() == 1)
      std::memcpy(Fill.data(), V->buffer().data(), ES);
  }
  auto Res = newTensor(X.type().Elem, Out);
  if (!Res)
    return Res.takeError();
  std::vector<std::vector<int64_t>> Maps(R);
  for (size_t D = 0; D < R; ++D)
    for (int64_t O = 0; O < Out[D]; ++O)
      Maps[D].push_back(padSource(O, (*Pads)[D], In[D], Mode));
  mappedCopy(X.buffer().data(), In, mutableData<uint8_t>(*Res), Out, Maps,
             Fill.data(), ES);
  Ctx.Outputs.push_back(std::move(*Res));
  return llvm::Error::success();
}

llvm::Error expandKernel(KernelContext &Ctx) {
  const Tensor &X = *Ctx.input(0);
  auto Target = readInts(*Ctx.input(1), "expand shape");
  if (!Target)
    return Target.takeError();
  std::vector<int64_t> In = sizesOf(X);
  auto Out = broadcastSizes(In, *Target);
  if (!Out)
    return inputError("cannot expand {0} to {1}", toString(X.type().Dims),
                      toString(makeShape(*Target)));
  auto R = newTensor(X.type().Elem, *Out);
  if (!R)
    return R.takeError();
  stridedCopy(Ctx.Pool, X.buffer().data(), mutableData<uint8_t>(*R),
              planBroadcast<1>(*Out, {In}), elementSize(X.type().Elem));
  Ctx.Outputs.push_back(std::move(*R));
  return llvm::Error::success();
}

llvm::Error tileKernel(KernelContext &Ctx) {
  const Tensor &X = *Ctx.input(0);
  auto Reps = readInts(*Ctx.input(1), "tile repeats");
  if (!Reps)
    return Reps.takeError();
  std::vector<int64_t> In = sizesOf(X), Out;
  if (Reps->size() != In.size())
    return inputError("tile repeats has {0} values for rank {1}", Reps->size(),
                      In.size());
  for (size_t D = 0; D < In.size(); ++D) {
    int64_t O;
    if ((*Reps)[D] < 0 || __builtin_mul_overflow(In[D], (*Reps)[D], &O))
      return inputError("invalid tile repeat {0}", (*Reps)[D]);
    Out.push_back(O);
  }
  auto R = newTensor(X.type().Elem, Out);
  if (!R)
    return R.takeError();
  std::vector<std::vector<int64_t>> Maps(In.size());
  for (size_t D = 0; D < In.size(); ++D)
    for (int64_t O = 0; O < Out[D]; ++O)
      Maps[D].push_back(O % In[D]);
  uint8_t Unused[8] = {};
  mappedCopy(X.buffer().data(), In, mutableData<uint8_t>(*R), Out, Maps,
             Unused, elementSize(X.type().Elem));
  Ctx.Outputs.push_back(std::move(*R));
  return llvm::Error::success();
}

llvm::Error shapeKernel(KernelContext &Ctx) {
  std::vector<int64_t> In = sizesOf(*Ctx.input(0));
  int64_t R = int64_t(In.size());
  int64_t Start = Ctx.N.getInt("start"), End = Ctx.N.getInt("end");
  if (Start < 0) Start += R;
  if (End < 0) End += R;
  Start = std::clamp<int64_t>(Start, 0, R);
  End = std::clamp<int64_t>(End, Start, R);
  Tensor Out = makeTensor(ElementType::I64, {End - Start});
  std::copy(In.begin() + Start, In.begin() + End, mutableData<int64_t>(Out));
  Ctx.Outputs.push_back(std::move(Out));
  return llvm::Error::success();
}

llvm::Error sizeKernel(KernelContext &Ctx) {
  Tensor Out = makeTensor(ElementType::I64, {});
  *mutableData<int64_t>(Out) = Ctx.input(0)->numElements();
  Ctx.Outputs.push_back(std::move(Out));
  return llvm::Error::success();
}

llvm::Error constantOfShapeKernel(KernelContext &Ctx) {
  auto Sizes = readInts(*Ctx.input(0), "constant_of_shape shape");
  if (!Sizes)
    return Sizes.takeError();
  const Tensor &V = Ctx.N.getTensor("value");
  if (V.numElements() != 1)
    return inputError("constant_of_shape value must have one element");
  auto Out = newTensor(V.type().Elem, *Sizes);
  if (!Out)
    return Out.takeError();
  size_t ES = elementSize(V.type().Elem);
  uint8_t *O = mutableData<uint8_t>(*Out);
  for (int64_t I = 0, N = Out->numElements(); I < N; ++I)
    std::memcpy(O + size_t(I) * ES, V.buffer().data(), ES);
  Ctx.Outputs.push_back(std::move(*Out));
  return llvm::Error::success();
}

} // namespace

void registerShapeKernels() {
  registerKernel("reshape", reshapeKernel);
  registerKernel("transpose", transposeKernel);
  registerKernel("concat", concatKernel);
  registerKernel("split", splitKernel);
  registerKernel("slice", sliceKernel);
  registerKernel("squeeze", squeezeKernel);
  registerKernel("unsqueeze", unsqueezeKernel);
  registerKernel("flatten", flattenKernel);
  registerKernel("pad", padKernel);
  registerKernel("expand", expandKernel);
  registerKernel("tile", tileKernel);
  registerKernel("shape", shapeKernel);
  registerKernel("size", sizeKernel);
  registerKernel("constant_of_shape", constantOfShapeKernel);
  registerIndexKernels();
}

} // namespace kiln

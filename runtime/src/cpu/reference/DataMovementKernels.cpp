// Reference data movement on any element type: TRANSPOSE, RESHAPE, CONCAT,
// SLICE, PAD, BROADCAST and GATHER. Elements are moved as 1, 2, 4 or 8 byte
// words; GATHER checks every index when it runs (the indices may be data).
#include "cpu/reference/ReferenceKernels.h"

#include <algorithm>
#include <cstring>

namespace kiln::rt::ref {

namespace {

size_t elementSizeOf(const KernelTensor &T) { return dtypeSize(T.Desc->DType); }

/// Calls Fn(OutOffset, InOffset) for every element of an output of shape
/// Shape, where the input offset advances by InStrides per output dim.
template <typename Fn>
void walk(const std::vector<int64_t> &Shape, const std::vector<int64_t> &InStrides,
          int64_t InBase, Fn &&F) {
  int64_t Total = 1;
  for (int64_t D : Shape)
    Total *= D;
  if (Total == 0)
    return;
  std::vector<int64_t> Index(Shape.size(), 0);
  int64_t In = InBase;
  for (int64_t Out = 0; Out < Total; ++Out) {
    F(Out, In);
    for (size_t D = Shape.size(); D-- > 0;) {
      In += InStrides[D];
      if (++Index[D] < Shape[D])
        break;
      In -= InStrides[D] * Shape[D];
      Index[D] = 0;
    }
  }
}

template <typename Word>
void gatherWords(const uint8_t *In, uint8_t *Out,
                 const std::vector<int64_t> &Shape,
                 const std::vector<int64_t> &InStrides, int64_t InBase) {
  const Word *Src = reinterpret_cast<const Word *>(In);
  Word *Dst = reinterpret_cast<Word *>(Out);
  walk(Shape, InStrides, InBase,
       [&](int64_t O, int64_t I) { Dst[O] = Src[I]; });
}

/// Out[o] = In[InBase + sum(index_d * InStrides_d)] over Shape, for any
/// element size.
void stridedCopy(const uint8_t *In, uint8_t *Out, size_t ElemSize,
                 const std::vector<int64_t> &Shape,
                 const std::vector<int64_t> &InStrides, int64_t InBase = 0) {
  switch (ElemSize) {
  case 1: return gatherWords<uint8_t>(In, Out, Shape, InStrides, InBase);
  case 2: return gatherWords<uint16_t>(In, Out, Shape, InStrides, InBase);
  case 4: return gatherWords<uint32_t>(In, Out, Shape, InStrides, InBase);
  default: return gatherWords<uint64_t>(In, Out, Shape, InStrides, InBase);
  }
}

/// A transpose reduced to its essence: size-1 dims dropped, and input dims
/// that stay adjacent and in order merged. NCHW -> NHWC becomes [N, C, HW]
/// with perm [0, 2, 1].
void simplifyTranspose(const std::vector<int64_t> &Shape,
                       const std::vector<int32_t> &Perm,
                       std::vector<int64_t> &OutShape,
                       std::vector<int32_t> &OutPerm) {
  // Input dims larger than 1, numbered in input order.
  std::vector<int32_t> Rank(Shape.size(), -1);
  int32_t Next = 0;
  for (size_t D = 0; D < Shape.size(); ++D)
    if (Shape[D] != 1)
      Rank[D] = Next++;
  // Output order of those dims; runs of consecutive numbers become one dim.
  std::vector<std::pair<int32_t, int64_t>> Runs; // first number, size
  int32_t Last = -2;
  for (int32_t P : Perm) {
    int32_t R = Rank[size_t(P)];
    if (R < 0)
      continue;
    if (R == Last + 1 && !Runs.empty())
      Runs.back().second *= Shape[size_t(P)];
    else
      Runs.push_back({R, Shape[size_t(P)]});
    Last = R;
  }
  // Renumber the runs by their input order.
  std::vector<size_t> Order(Runs.size());
  for (size_t I = 0; I < Runs.size(); ++I)
    Order[I] = I;
  std::sort(Order.begin(), Order.end(), [&](size_t A, size_t B) {
    return Runs[A].first < Runs[B].first;
  });
  OutShape.assign(Runs.size(), 1);
  OutPerm.assign(Runs.size(), 0);
  for (size_t I = 0; I < Order.size(); ++I) {
    OutShape[I] = Runs[Order[I]].second;
    OutPerm[Order[I]] = int32_t(I);
  }
}

/// Out[c][r] = In[r][c] for a matrix of few rows (an image's NCHW -> NHWC
/// with 2-4 channels): every row is one sequential read stream and the output
/// is written in order, with the row count known to the compiler.
template <typename Word, int Rows>
void interleaveRows(const Word *S, Word *D, int64_t Cols) {
  for (int64_t C = 0; C < Cols; ++C)
    for (int R = 0; R < Rows; ++R)
      D[C * Rows + R] = S[R * Cols + C];
}

/// Out[b][c][r] = In[b][r][c] for Batch matrices of Rows x Cols, in tiles
/// that stay in cache.
template <typename Word>
void transposeMatrices(const uint8_t *In, uint8_t *Out, int64_t Batch,
                       int64_t Rows, int64_t Cols) {
  constexpr int64_t Tile = 32;
  const Word *Src = reinterpret_cast<const Word *>(In);
  Word *Dst = reinterpret_cast<Word *>(Out);
  for (int64_t B = 0; B < Batch; ++B) {
    const Word *S = Src + B * Rows * Cols;
    Word *D = Dst + B * Rows * Cols;
    switch (Rows) {
    case 2: interleaveRows<Word, 2>(S, D, Cols); continue;
    case 3: interleaveRows<Word, 3>(S, D, Cols); continue;
    case 4: interleaveRows<Word, 4>(S, D, Cols); continue;
    default: break;
    }
    for (int64_t R0 = 0; R0 < Rows; R0 += Tile)
      for (int64_t C0 = 0; C0 < Cols; C0 += Tile) {
        int64_t R1 = std::min(Rows, R0 + Tile), C1 = std::min(Cols, C0 + Tile);
        for (int64_t R = R0; R < R1; ++R)
          for (int64_t C = C0; C < C1; ++C)
            D[C * Rows + R] = S[R * Cols + C];
      }
  }
}

void transposeMatrices(const uint8_t *In, uint8_t *Out, size_t ElemSize,
                       int64_t Batch, int64_t Rows, int64_t Cols) {
  switch (ElemSize) {
  case 1: return transposeMatrices<uint8_t>(In, Out, Batch, Rows, Cols);
  case 2: return transposeMatrices<uint16_t>(In, Out, Batch, Rows, Cols);
  case 4: return transposeMatrices<uint32_t>(In, Out, Batch, Rows, Cols);
  default: return transposeMatrices<uint64_t>(In, Out, Batch, Rows, Cols);
  }
}

/// The fill element of a constant pad, as ElemSize bytes.
std::vector<uint8_t> padFill(fb::DType T, float Value) {
  std::vector<uint8_t> Bytes(dtypeSize(T), 0);
  auto Put = [&](auto V) { std::memcpy(Bytes.data(), &V, sizeof(V)); };
  switch (T) {
  case fb::DType::F32: Put(Value); break;
  case fb::DType::I32: Put(int32_t(Value)); break;
  case fb::DType::I64: Put(int64_t(Value)); break;
  case fb::DType::I8: Put(int8_t(Value)); break;
  case fb::DType::U8: Put(uint8_t(Value)); break;
  default: break; // the loader allows only 0 here
  }
  return Bytes;
}

} // namespace

RunFn transpose(const KernelArgs &A) {
  const auto *PermV = A.Op.options_as_TransposeOptions()->perm();
  std::vector<int32_t> Perm(PermV->begin(), PermV->end()), P;
  std::vector<int64_t> Dims;
  simplifyTranspose(A.In[0].shape(), Perm, Dims, P);
  const uint8_t *X = A.In[0].Data;
  uint8_t *Y = A.Out[0].Data;
  size_t Size = elementSizeOf(A.In[0]);
  size_t Bytes = size_t(A.In[0].Desc->Bytes);
  // No data moves, or a (batched) matrix transpose: the common cases
  // (layout changes between NCHW and NHWC) get a tiled copy.
  if (P.size() <= 1)
    return [=]() {
      if (Bytes)
        std::memcpy(Y, X, Bytes);
      return Status::ok();
    };
  if (P == std::vector<int32_t>{1, 0} || P == std::vector<int32_t>{0, 2, 1}) {
    int64_t Batch = P.size() == 3 ? Dims[0] : 1;
    int64_t Rows = Dims[P.size() - 2], Cols = Dims[P.size() - 1];
    return [=]() {
      transposeMatrices(X, Y, Size, Batch, Rows, Cols);
      return Status::ok();
    };
  }
  std::vector<int64_t> InStrides = contiguousStrides(Dims), S, Shape;
  for (int32_t D : P) {
    S.push_back(InStrides[size_t(D)]);
    Shape.push_back(Dims[size_t(D)]);
  }
  return [=]() {
    stridedCopy(X, Y, Size, Shape, S);
    return Status::ok();
  };
}

RunFn reshape(const KernelArgs &A) {
  const uint8_t *X = A.In[0].Data;
  uint8_t *Y = A.Out[0].Data;
  size_t Bytes = A.In[0].Desc->Bytes;
  return [=]() {
    if (X != Y && Bytes)
      std::memcpy(Y, X, Bytes);
    return Status::ok();
  };
}

RunFn concat(const KernelArgs &A) {
  size_t Axis = size_t(A.Op.options_as_ConcatOptions()->axis());
  const std::vector<int64_t> &YShape = A.Out[0].shape();
  size_t Size = elementSizeOf(A.Out[0]);
  int64_t Outer = 1, Inner = int64_t(Size);
  for (size_t I = 0; I < Axis; ++I)
    Outer *= YShape[I];
  for (size_t I = Axis + 1; I < YShape.size(); ++I)
    Inner *= YShape[I];
  std::vector<std::pair<const uint8_t *, int64_t>> Parts; // data, bytes per outer
  for (const KernelTensor &X : A.In)
    Parts.push_back({X.Data, X.dim(int64_t(Axis)) * Inner});
  int64_t Row = YShape[Axis] * Inner;
  uint8_t *Y = A.Out[0].Data;
  return [=]() {
    int64_t Offset = 0;
    for (auto [Data, Bytes] : Parts) {
      for (int64_t O = 0; O < Outer && Bytes; ++O)
        std::memcpy(Y + O * Row + Offset, Data + O * Bytes, size_t(Bytes));
      Offset += Bytes;
    }
    return Status::ok();
  };
}

RunFn slice(const KernelArgs &A) {
  const auto &O = *A.Op.options_as_SliceOptions();
  std::vector<int64_t> Strides = contiguousStrides(A.In[0].shape()), S;
  int64_t Base = 0;
  for (size_t I = 0; I < Strides.size(); ++I) {
    int64_t Start = O.starts()->Get(unsigned(I)), Step = O.steps()->Get(unsigned(I));
    if (A.Out[0].dim(int64_t(I)) > 0)
      Base += Start * Strides[I];
    S.push_back(Step * Strides[I]);
  }
  const uint8_t *X = A.In[0].Data;
  uint8_t *Y = A.Out[0].Data;
  size_t Size = elementSizeOf(A.In[0]);
  std::vector<int64_t> Shape = A.Out[0].shape();
  return [=]() {
    stridedCopy(X, Y, Size, Shape, S, Base);
    return Status::ok();
  };
}

RunFn pad(const KernelArgs &A) {
  const auto &O = *A.Op.options_as_PadOptions();
  std::vector<int64_t> XShape = A.In[0].shape(), YShape = A.Out[0].shape();
  size_t Rank = XShape.size();
  std::vector<int64_t> Begin(Rank);
  for (size_t I = 0; I < Rank; ++I)
    Begin[I] = O.pads()->Get(unsigned(I));
  std::vector<int64_t> XStrides = contiguousStrides(XShape);
  fb::PadMode Mode = O.mode();
  std::vector<uint8_t> Fill = padFill(A.In[0].Desc->DType, O.value());
  size_t Size = elementSizeOf(A.In[0]);
  const uint8_t *X = A.In[0].Data;
  uint8_t *Y = A.Out[0].Data;
  uint64_t Total = A.Out[0].elements();
  return [=]() {
    std::vector<int64_t> Index(Rank, 0);
    for (uint64_t Out = 0; Out < Total; ++Out) {
      int64_t In = 0;
      bool Outside = false;
      for (size_t D = 0; D < Rank && !Outside; ++D) {
        int64_t C = Index[D] - Begin[D], N = XShape[D];
        if (C < 0 || C >= N) {
          if (Mode == fb::PadMode::CONSTANT)
            Outside = true;
          else if (Mode == fb::PadMode::EDGE)
            C = C < 0 ? 0 : N - 1;
          else // REFLECT: pads < N, so one reflection suffices
            C = C < 0 ? -C : 2 * (N - 1) - C;
        }
        In += C * XStrides[D];
      }
      std::memcpy(Y + Out * Size, Outside ? Fill.data() : X + In * int64_t(Size),
                  Size);
      for (size_t D = Rank; D-- > 0;) {
        if (++Index[D] < YShape[D])
          break;
        Index[D] = 0;
      }
    }
    return Status::ok();
  };
}

RunFn broadcast(const KernelArgs &A) {
  const std::vector<int64_t> &XShape = A.In[0].shape();
  std::vector<int64_t> Shape = A.Out[0].shape();
  std::vector<int64_t> Own = contiguousStrides(XShape), S(Shape.size(), 0);
  size_t Offset = Shape.size() - XShape.size();
  for (size_t I = 0; I < XShape.size(); ++I)
    S[I + Offset] = XShape[I] == 1 ? 0 : Own[I];
  const uint8_t *X = A.In[0].Data;
  uint8_t *Y = A.Out[0].Data;
  size_t Size = elementSizeOf(A.In[0]);
  return [=]() {
    stridedCopy(X, Y, Size, Shape, S);
    return Status::ok();
  };
}

RunFn gather(const KernelArgs &A) {
  int64_t Axis = A.Op.options_as_GatherOptions()->axis();
  const std::vector<int64_t> &DShape = A.In[0].shape();
  size_t Size = elementSizeOf(A.In[0]);
  int64_t Outer = 1, Inner = int64_t(Size), AxisLen = DShape[size_t(Axis)];
  for (int64_t I = 0; I < Axis; ++I)
    Outer *= DShape[size_t(I)];
  for (size_t I = size_t(Axis) + 1; I < DShape.size(); ++I)
    Inner *= DShape[I];
  const KernelTensor Indices = A.In[1];
  bool Wide = Indices.Desc->DType == fb::DType::I64;
  int64_t Count = int64_t(Indices.elements());
  const uint8_t *X = A.In[0].Data;
  uint8_t *Y = A.Out[0].Data;
  return [=]() {
    for (int64_t J = 0; J < Count; ++J) {
      int64_t Index = Wide ? Indices.as<const int64_t>()[J]
                           : Indices.as<const int32_t>()[J];
      if (Index < -AxisLen || Index >= AxisLen)
        return runtimeError("gather index ", Index, " is out of range for an "
                            "axis of size ",
                            AxisLen);
      if (Index < 0)
        Index += AxisLen;
      for (int64_t O = 0; O < Outer; ++O)
        std::memcpy(Y + (O * Count + J) * Inner,
                    X + (O * AxisLen + Index) * Inner, size_t(Inner));
    }
    return Status::ok();
  };
}

} // namespace kiln::rt::ref

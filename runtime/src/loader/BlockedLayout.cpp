#include "loader/BlockedLayout.h"

#include "loader/Limits.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace kiln::rt {

namespace {

template <typename T>
std::vector<T> toVector(const flatbuffers::Vector<T> *V) {
  return V ? std::vector<T>(V->begin(), V->end()) : std::vector<T>();
}

bool mulChecked(uint64_t A, uint64_t B, uint64_t &Out) {
  return !__builtin_mul_overflow(A, B, &Out) && Out <= limits::MaxTensorBytes;
}

bool addChecked(uint64_t A, uint64_t B, uint64_t &Out) {
  return !__builtin_add_overflow(A, B, &Out) && Out <= limits::MaxTensorBytes;
}

} // namespace

Status describeBlocked(const fb::Tensor &T, TensorDesc &D) {
  const fb::BlockedLayout *B = T.blocked();
  bool IsBlocked = D.Layout == fb::Layout::BLOCKED;
  if (!B && !IsBlocked)
    return Status::ok();
  if (!B || !IsBlocked)
    return invalidModel(IsBlocked ? "layout BLOCKED without Tensor.blocked"
                                  : "Tensor.blocked on a tensor whose layout "
                                    "is not BLOCKED");
  if (T.buffer() < 0)
    return invalidModel("an activation cannot be BLOCKED");
  if (D.DType != fb::DType::F32)
    return invalidModel("a BLOCKED tensor must be f32, not ", dtypeName(D.DType));
  BlockedDesc L;
  L.Library = B->library() ? B->library()->str() : "";
  L.Isa = B->isa() ? B->isa()->str() : "";
  if (L.Library != "onednn")
    return unsupported("weights blocked for kernel library '", L.Library,
                       "' (this runtime reads oneDNN's layouts)");
  L.Order = toVector(B->order());
  L.Padded = toVector(B->padded_dims());
  L.Strides = toVector(B->strides());
  L.InnerBlocks = toVector(B->inner_blocks());
  L.InnerDims = toVector(B->inner_dims());
  const size_t Rank = D.Shape.size();
  if (L.Order.size() != Rank || L.Padded.size() != Rank ||
      L.Strides.size() != Rank)
    return invalidModel("blocked layout of rank ", L.Order.size(), "/",
                        L.Padded.size(), "/", L.Strides.size(),
                        " (order/padded dims/strides) for a tensor of rank ",
                        Rank);
  if (L.InnerBlocks.size() != L.InnerDims.size() ||
      L.InnerBlocks.size() > limits::MaxInnerBlocks)
    return invalidModel("blocked layout with ", L.InnerBlocks.size(),
                        " inner blocks and ", L.InnerDims.size(),
                        " inner dims (equal, at most ",
                        limits::MaxInnerBlocks, ")");
  std::vector<char> Seen(Rank, 0);
  for (int32_t Axis : L.Order) {
    if (Axis < 0 || size_t(Axis) >= Rank || Seen[size_t(Axis)])
      return invalidModel("blocked layout order is not a permutation of the ",
                          Rank, " axes");
    Seen[size_t(Axis)] = 1;
  }
  std::vector<uint64_t> BlockOf(Rank, 1);
  uint64_t InnerProduct = 1;
  for (size_t I = 0; I < L.InnerBlocks.size(); ++I) {
    int32_t Dim = L.InnerDims[I];
    int64_t Block = L.InnerBlocks[I];
    if (Dim < 0 || size_t(Dim) >= Rank || Block < 1 ||
        !mulChecked(BlockOf[size_t(Dim)], uint64_t(Block),
                    BlockOf[size_t(Dim)]) ||
        !mulChecked(InnerProduct, uint64_t(Block), InnerProduct))
      return invalidModel("blocked layout inner block ", I, " (", Block,
                          " on dim ", Dim, ") is invalid");
  }
  // Size as oneDNN computes it: the largest outer extent times its stride;
  // every element, padding included, must lie inside it.
  uint64_t Stored = 0, LastOffset = InnerProduct - 1;
  for (size_t K = 0; K < Rank; ++K) {
    int64_t Dim = D.Shape[size_t(L.Order[K])], Padded = L.Padded[K];
    if (Padded < Dim || Padded < 1 || L.Strides[K] < 0 ||
        uint64_t(Padded) % BlockOf[K] != 0)
      return invalidModel("blocked layout dim ", K, ": padded to ", Padded,
                          " for a dim of ", Dim, ", blocks of ", BlockOf[K],
                          ", stride ", L.Strides[K]);
    uint64_t Outer = uint64_t(Padded) / BlockOf[K], Extent, Last;
    if (!mulChecked(Outer, uint64_t(L.Strides[K]), Extent) ||
        !mulChecked(Outer - 1, uint64_t(L.Strides[K]), Last) ||
        !addChecked(LastOffset, Last, LastOffset))
      return invalidModel("blocked layout dim ", K, " is too large");
    Stored = std::max(Stored, Extent);
  }
  if (LastOffset >= Stored)
    return invalidModel("blocked layout places element offset ", LastOffset,
                        " outside its ", Stored, " elements");
  if (!mulChecked(Stored, dtypeSize(D.DType), D.StoredBytes))
    return invalidModel("blocked layout is too large");
  if (D.StoredBytes < D.Bytes) // so reading Bytes from it stays inside
    return invalidModel("blocked layout of ", Stored, " elements holds fewer "
                        "than the tensor's ", D.Elements);
  D.Blocked = std::move(L);
  return Status::ok();
}

uint64_t blockedOffset(const BlockedDesc &L, const int64_t *Index) {
  int64_t Pos[limits::MaxRank];
  for (size_t K = 0; K < L.Order.size(); ++K)
    Pos[K] = Index[L.Order[K]];
  uint64_t Offset = 0, Inside = 1;
  for (size_t B = L.InnerBlocks.size(); B-- > 0;) {
    int64_t &P = Pos[L.InnerDims[B]];
    Offset += uint64_t(P % L.InnerBlocks[B]) * Inside;
    P /= L.InnerBlocks[B];
    Inside *= uint64_t(L.InnerBlocks[B]);
  }
  for (size_t K = 0; K < L.Order.size(); ++K)
    Offset += uint64_t(Pos[K]) * uint64_t(L.Strides[K]);
  return Offset;
}

std::vector<uint8_t> unpackBlocked(const TensorDesc &D, const uint8_t *Data,
                                   size_t ExtraBytes) {
  const size_t Elem = dtypeSize(D.DType);
  std::vector<uint8_t> Out(size_t(D.Bytes) + ExtraBytes, 0);
  const size_t Rank = D.Shape.size();
  int64_t Index[limits::MaxRank] = {};
  for (uint64_t E = 0; E < D.Elements; ++E) {
    std::memcpy(Out.data() + E * Elem,
                Data + blockedOffset(*D.Blocked, Index) * Elem, Elem);
    for (size_t A = Rank; A-- > 0;) // next index, row-major
      if (++Index[A] < D.Shape[A])
        break;
      else
        Index[A] = 0;
  }
  return Out;
}

} // namespace kiln::rt

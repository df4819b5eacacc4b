#include "backends/gpu/TensorAccess.h"

#include <cassert>

namespace kiln::vulkan {

uint64_t Storage::elements() const {
  uint64_t N = 1;
  for (size_t I = 0; I < Dims.size(); ++I)
    N *= uint64_t(C4 && I == 3 ? (Dims[I] + 3) / 4 * 4 : Dims[I]);
  return N;
}

std::vector<int64_t> Storage::strides() const {
  std::vector<int64_t> S(Dims.size(), 1);
  if (C4) {
    assert(Dims.size() == 4 && "C4 tensors are rank 4");
    int64_t H = Dims[1], W = Dims[2], C4Blocks = (Dims[3] + 3) / 4;
    S = {C4Blocks * H * W * 4, W * 4, 4, H * W * 4};
    return S;
  }
  for (size_t I = Dims.size(); I-- > 1;)
    S[I - 1] = S[I] * Dims[I];
  return S;
}

DomainDims domainOf(const std::vector<int64_t> &Dims) {
  DomainDims D{1, 1, 1, 1, 1, 1};
  size_t Lead = DomainRank - Dims.size();
  for (size_t I = 0; I < Dims.size(); ++I)
    D[Lead + I] = Dims[I];
  return D;
}

OperandMap alignedMap(const Storage &S, const DomainDims &Domain) {
  OperandMap M;
  M.Start.assign(S.Dims.size(), 0);
  int Lead = DomainRank - int(S.Dims.size());
  for (int K = Lead; K < DomainRank; ++K) {
    int A = K - Lead;
    bool Broadcast = S.Dims[size_t(A)] == 1 && Domain[size_t(K)] != 1;
    M.Axis[size_t(K)] = Broadcast ? -1 : A;
  }
  return M;
}

OperandMap identityMap(const Storage &S) {
  return alignedMap(S, domainOf(S.Dims));
}

void operandConstants(const Storage &S, const OperandMap &M, uint32_t Base,
                      std::map<uint32_t, uint32_t> &Spec) {
  std::vector<int64_t> Strides = S.strides();
  int Blocked = 6;
  int64_t BaseOffset = 0, BlockStep = 1, BlockStart = 0;
  // Fixed starts of the axes no domain axis walks.
  std::vector<bool> Walked(S.Dims.size(), false);
  for (int K = 0; K < DomainRank; ++K)
    if (M.Axis[size_t(K)] >= 0)
      Walked[size_t(M.Axis[size_t(K)])] = true;
  for (size_t A = 0; A < S.Dims.size(); ++A) {
    int64_t Start = A < M.Start.size() ? M.Start[A] : 0;
    bool Channel = S.C4 && A == 3;
    if (Channel && !Walked[A]) {
      BaseOffset += (Start / 4) * Strides[A] + Start % 4;
      continue;
    }
    if (!Channel)
      BaseOffset += Start * Strides[A];
  }
  for (int K = 0; K < DomainRank; ++K) {
    int A = M.Axis[size_t(K)];
    int64_t Stride = 0;
    if (A >= 0) {
      if (S.C4 && A == 3) {
        Blocked = K;
        BlockStep = M.Step[size_t(K)];
        BlockStart = A < int(M.Start.size()) ? M.Start[size_t(A)] : 0;
        Stride = Strides[size_t(A)];
      } else {
        Stride = Strides[size_t(A)] * M.Step[size_t(K)];
      }
    }
    Spec[Base + uint32_t(K)] = uint32_t(int32_t(Stride));
  }
  Spec[Base + 6] = uint32_t(Blocked);
  Spec[Base + 7] = uint32_t(int32_t(BlockStep));
  Spec[Base + 8] = uint32_t(int32_t(BlockStart));
  Spec[Base + 9] = uint32_t(int32_t(BaseOffset));
}

} // namespace kiln::vulkan

#include "cpu/SegmentRelease.h"

#include <algorithm>

namespace kiln::rt {

SegmentRelease::SegmentRelease(const LoadedModel &M,
                               const std::vector<uint8_t *> &Data)
    : M(M), Data(Data), Readers(M.Tensors.size(), 0),
      Copied(M.Tensors.size(), 0), ReadInPlace(M.Tensors.size(), 0),
      Done(M.Tensors.size(), 0) {
  for (size_t I = 0; I < M.numOperators(); ++I) {
    const fb::Operator &Op = M.op(I);
    if (!Op.inputs())
      continue;
    // An operator that reads a constant twice counts once per position.
    for (int32_t T : *Op.inputs())
      if (T >= 0 && M.Tensors[size_t(T)].isConstant())
        ++Readers[size_t(T)];
  }
  // Graph outputs that are constants are read by the caller.
  for (int32_t T : M.Outputs)
    ReadInPlace[size_t(T)] = 1;
}

void SegmentRelease::created(size_t OpIndex, const Kernel &K) {
  const fb::Operator &Op = M.op(OpIndex);
  if (!Op.inputs())
    return;
  std::vector<size_t> Copies = K.copiedInputs();
  for (unsigned In = 0; In < Op.inputs()->size(); ++In) {
    int32_t T = Op.inputs()->Get(In);
    if (T < 0 || !M.Tensors[size_t(T)].isConstant())
      continue;
    if (std::find(Copies.begin(), Copies.end(), In) == Copies.end()) {
      ReadInPlace[size_t(T)] = 1;
      continue;
    }
    if (++Copied[size_t(T)] != Readers[size_t(T)] || ReadInPlace[size_t(T)] ||
        Done[size_t(T)])
      continue;
    Done[size_t(T)] = 1;
    const TensorDesc &D = M.Tensors[size_t(T)];
    Released += M.Bytes->releasePages(Data[size_t(T)], D.StoredBytes
                                                          ? D.StoredBytes
                                                          : D.Bytes);
  }
}

uint64_t SegmentRelease::mappedBytes() const {
  uint64_t Bytes = 0;
  for (size_t T = 0; T < M.Tensors.size(); ++T)
    if (M.Tensors[T].isConstant() && !Done[T])
      Bytes += M.Tensors[T].Bytes;
  return Bytes;
}

} // namespace kiln::rt

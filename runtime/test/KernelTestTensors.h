// Operands for tests that create one kernel directly (no model, no session):
// f32 tensor descriptors and deterministic values.
#pragma once

#include "cpu/Kernel.h"
#include "loader/TensorDesc.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace kiln::testing {

/// A dense f32 tensor of Shape.
inline rt::TensorDesc f32Desc(std::vector<int64_t> Shape) {
  rt::TensorDesc D;
  D.DType = fb::DType::F32;
  D.Shape = std::move(Shape);
  D.Elements = 1;
  for (int64_t S : D.Shape)
    D.Elements *= uint64_t(S);
  D.Bytes = D.Elements * 4;
  return D;
}

/// N values in [-14, 14] * Scale, in an order Seed shifts: no two operands
/// made with different seeds line up.
inline std::vector<float> ramp(size_t N, int Seed, float Scale) {
  std::vector<float> V(N);
  for (size_t I = 0; I < N; ++I)
    V[I] = float(int((I * 37 + size_t(Seed) * 11) % 29) - 14) * Scale;
  return V;
}

/// An operand of a kernel: D over V's floats.
inline rt::KernelTensor operand(const rt::TensorDesc &D,
                                std::vector<float> &V) {
  return {&D, reinterpret_cast<uint8_t *>(V.data())};
}

/// Bytes of working memory, 64-byte aligned and filled with NaN, so that
/// a kernel must write what it reads.
class AlignedScratch {
public:
  explicit AlignedScratch(size_t Bytes)
      : Floats(Bytes / sizeof(float) + 16, NAN) {}
  uint8_t *data() {
    auto *Base = reinterpret_cast<uint8_t *>(Floats.data());
    return Base + (64 - reinterpret_cast<uintptr_t>(Base) % 64) % 64;
  }

private:
  std::vector<float> Floats;
};

/// A session's scratch buffer for one kernel: its scratchBytes() of
/// AlignedScratch.
class KernelScratch {
public:
  explicit KernelScratch(rt::Kernel &K) : Memory(K.scratchBytes()) {
    K.bindScratch(Memory.data());
  }

private:
  AlignedScratch Memory;
};

/// The operator Fbb holds (finished).
inline const fb::Operator &finishedOperator(
    const flatbuffers::FlatBufferBuilder &Fbb) {
  return *flatbuffers::GetRoot<fb::Operator>(Fbb.GetBufferPointer());
}

} // namespace kiln::testing

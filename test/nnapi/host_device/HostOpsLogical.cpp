// The host NNAPI device: comparisons (TENSOR_BOOL8 results), SELECT and
// CAST, over int32 and float32 as kiln emits them (a padding mask from
// token ids), with NNAPI's reference semantics.
#include "HostDevice.h"

#include <cstring>

using namespace kiln::nnapi;
using namespace kiln::nnapi::host;

namespace {

template <typename T> T element(const OpContext &C, size_t I, size_t K) {
  T V;
  std::memcpy(&V, C.inData(I) + K * sizeof(T), sizeof(T));
  return V;
}

template <typename T> void compare(const OpContext &C) {
  const Operand &Out = C.out();
  std::vector<size_t> IA = broadcastIndices(C.in(0).Dims, Out.Dims);
  std::vector<size_t> IB = broadcastIndices(C.in(1).Dims, Out.Dims);
  uint8_t *O = C.outData();
  for (size_t K = 0; K < IA.size(); ++K) {
    const T X = element<T>(C, 0, IA[K]), Y = element<T>(C, 1, IB[K]);
    const bool R = C.Op.Type == EQUAL ? X == Y : C.Op.Type == GREATER ? X > Y : X < Y;
    O[K] = R ? 1 : 0;
  }
}

template <typename From, typename To> void castElements(const OpContext &C) {
  for (size_t K = 0, N = C.out().elementCount(); K < N; ++K) {
    const To V = static_cast<To>(element<From>(C, 0, K));
    std::memcpy(C.outData() + K * sizeof(To), &V, sizeof(To));
  }
}

} // namespace

namespace kiln::nnapi::host {

void runLogicalOperation(const OpContext &C) {
  const bool Int = C.in(C.Op.Type == SELECT ? 1 : 0).Type == TENSOR_INT32;
  switch (C.Op.Type) {
  case EQUAL: case GREATER: case LESS:
    return Int ? compare<int32_t>(C) : compare<float>(C);
  case SELECT: {
    const size_t E = 4; // int32 or float32
    for (size_t K = 0, N = C.out().elementCount(); K < N; ++K)
      std::memcpy(C.outData() + K * E,
                  C.inData(C.inData(0)[K] ? 1 : 2) + K * E, E);
    return;
  }
  default: // CAST: int32 to float32, or to the same type
    if (C.out().Type == C.in(0).Type)
      std::memcpy(C.outData(), C.inData(0), C.out().byteSize());
    else
      castElements<int32_t, float>(C);
  }
}

} // namespace kiln::nnapi::host

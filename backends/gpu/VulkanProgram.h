// The Vulkan lowering's working state: where every activation lives (a
// place: part of the arena, or a graph input's or output's own buffer, or
// another place it aliases), the weight blobs, and the dispatches with
// their bindings still symbolic. finish() plans the arena from the places'
// lifetimes, packs the weights into buffers, resolves every binding to
// (buffer, offset, size) and writes the VulkanPayload.
#pragma once

#include "backends/common/KilnModule.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kiln::vulkan {

/// Bindings are 256-byte aligned: the largest minStorageBufferOffsetAlignment
/// Vulkan allows, so a file fits every device.
constexpr uint64_t BindingAlignment = 256;
/// The most bytes one WEIGHTS buffer holds (lavapipe's and many mobile
/// drivers' maxStorageBufferRange is 128 MiB).
constexpr uint64_t MaxWeightBufferBytes = 64ull << 20;

struct Place {
  uint64_t Bytes = 0;
  enum Kind { Arena, Input, Output, Alias } K = Arena;
  int32_t IoIndex = -1;  // Input, Output
  int32_t AliasOf = -1;  // Alias: the place whose bytes it shares
};

/// A binding before planning: a place or a weight blob (bytes from Offset).
struct BindingRef {
  bool IsWeight = false;
  int32_t Index = 0;
  uint64_t Offset = 0;
  uint64_t Bytes = 0; // 0: the whole place or blob
};

struct PendingDispatch {
  std::string Kernel;
  std::map<uint32_t, uint32_t> Spec;
  std::vector<BindingRef> Bindings;
  uint32_t Groups[3] = {1, 1, 1};
  int32_t Operator = -1;
};

class VulkanProgram {
public:
  int32_t addPlace(Place P);
  const Place &place(int32_t I) const { return Places[size_t(I)]; }
  /// The place whose bytes I uses (following aliases).
  int32_t root(int32_t I) const;

  /// A weight blob's index; Tensor >= 0 names the Model tensor it packs.
  int32_t addWeight(std::vector<uint8_t> Bytes, int32_t Tensor);
  int32_t weightSegment(int32_t Blob) const { return Blobs[size_t(Blob)].Segment; }

  PendingDispatch &addDispatch(llvm::StringRef Kernel, int32_t Operator);
  size_t numDispatches() const { return Dispatches.size(); }
  const std::vector<PendingDispatch> &dispatches() const { return Dispatches; }

  /// Model tensor T lives in place P (for places / keep_intermediates).
  void setTensorPlace(int32_t T, int32_t P) { TensorPlaces[T] = P; }

  /// Plans memory, appends the weight segments to M and sets M's payload.
  /// Returns the arena's size.
  uint64_t finish(KilnModule &M);

private:
  struct Blob {
    Buffer Bytes;
    int32_t Tensor = -1;
    int32_t Segment = -1;
  };
  std::vector<Place> Places;
  std::vector<Blob> Blobs;
  std::vector<PendingDispatch> Dispatches;
  std::map<int32_t, int32_t> TensorPlaces;
};

/// Rounds V up to a multiple of A.
inline uint64_t alignUp(uint64_t V, uint64_t A) { return (V + A - 1) / A * A; }

} // namespace kiln::vulkan

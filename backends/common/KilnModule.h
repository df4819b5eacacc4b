// A compiled model before it is written: the FlatBuffers object tree of
// schema/kiln.fbs, and the bytes of every weight segment. A backend builds
// one; the writer (KilnWriter.h) lays it out and serializes it.
#pragma once

#include "IR/Tensor.h"
#include "Support/FileSystem.h"
#include "schema/kiln_generated.h"

#include <cassert>
#include <memory>
#include <vector>

namespace kiln {

/// One weight segment: bytes in memory (often aliasing the source model's
/// weights), or bytes a producer writes when the file is written. A backend
/// uses a producer for a weight it must repack: the packed copy is then made
/// piece by piece into the writer's buffer instead of existing, for every
/// weight at once, in memory (45 MB for ResNet-50's 3x3 convolutions).
class Segment {
public:
  using Producer = PieceProducer;

  Segment(Buffer Bytes) : Bytes(std::move(Bytes)) {}
  /// Size bytes that Produce writes to Out (aligned to at least 16 bytes).
  /// Produce may run on another thread, and more than once; it must write
  /// every byte.
  static Segment produced(uint64_t Size, Producer Produce) {
    Segment S{Buffer()};
    S.Size = Size;
    S.Produce = std::move(Produce);
    return S;
  }

  uint64_t size() const { return Produce ? Size : Bytes.size(); }
  bool isProduced() const { return bool(Produce); }
  /// The producer of a produced segment.
  const Producer &producer() const { return Produce; }
  /// The bytes of a segment held in memory.
  const Buffer &bytes() const {
    assert(!Produce && "a produced segment has no bytes in memory");
    return Bytes;
  }

private:
  Buffer Bytes;
  uint64_t Size = 0;
  Producer Produce;
};

struct KilnModule {
  /// Everything but the segment placement: Model.buffers is filled in by the
  /// writer, one entry per segment.
  fb::ModelT Model;
  /// Segments[i] holds the bytes of buffer i (a tensor's `buffer` field
  /// indexes this list).
  std::vector<Segment> Segments;

  /// Appends a segment and returns its index.
  int32_t addSegment(Segment S) {
    Segments.push_back(std::move(S));
    return int32_t(Segments.size() - 1);
  }
};

/// The metadata entry (TensorInfo) of a graph input or output tensor.
inline std::unique_ptr<fb::TensorInfoT> tensorInfoOf(const fb::TensorT &T) {
  auto I = std::make_unique<fb::TensorInfoT>();
  I->name = T.name;
  I->dtype = T.dtype;
  I->shape = T.shape;
  I->layout = T.layout;
  return I;
}

} // namespace kiln

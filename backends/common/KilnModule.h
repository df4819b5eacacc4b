// A compiled model before it is written: the FlatBuffers object tree of
// schema/kiln.fbs, and the bytes of every weight segment. A backend builds
// one; the writer (KilnWriter.h) lays it out and serializes it.
#pragma once

#include "IR/Tensor.h"
#include "schema/kiln_generated.h"

#include <vector>

namespace kiln {

struct KilnModule {
  /// Everything but the segment placement: Model.buffers is filled in by the
  /// writer, one entry per segment.
  fb::ModelT Model;
  /// Segments[i] holds the bytes of buffer i (a tensor's `buffer` field
  /// indexes this list). May alias the source model's weights.
  std::vector<Buffer> Segments;

  /// Appends a segment and returns its index.
  int32_t addSegment(Buffer Bytes) {
    Segments.push_back(std::move(Bytes));
    return int32_t(Segments.size() - 1);
  }
};

} // namespace kiln

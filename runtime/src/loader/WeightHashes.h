// The check of a file against the xxHash64s its writer recorded (schema
// 1.7): the FlatBuffer's (Model.flatbuffer_xxhash64) and every weight
// segment's (Buffer.xxhash64). Loading verifies the structure only; this
// hashes every byte of the file, so a session runs it only when asked
// (kiln_session_options.verify_weight_hashes), and `kiln verify` through
// kiln_verify_hashes.
#pragma once

#include "Status.h"
#include "loader/LoadedModel.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kiln::rt {

/// xxHash64 with seed 0 of [Data, Data + Size): the writer's hash.
uint64_t weightHash(const void *Data, size_t Size);

/// What hashing a verified model found.
struct HashCheck {
  /// The FlatBuffer records its size and hash, and its hash was compared.
  bool StructureHashed = false;
  uint64_t SegmentsHashed = 0, BytesHashed = 0;
  /// Each part whose bytes do not match its recorded hash (or whose recorded
  /// size is impossible), named: the FlatBuffer first, then the segments in
  /// order, each with the tensors stored in it.
  std::vector<std::string> Mismatches;
  /// Each part that records no hash, named ("the file records no hash of
  /// its FlatBuffer", "segment 3 (w0, w0.bias) carries no weight hash"):
  /// every part of a file written before schema 1.7.
  std::vector<std::string> Unrecorded;
  uint64_t SegmentsWithoutHash = 0;
};

/// Hashes the FlatBuffer and every segment and compares each with its
/// recorded hash, listing every problem.
HashCheck checkWeightHashes(const LoadedModel &Model);

/// The session option: the first part that is damaged or records no hash
/// (which a file written before schema 1.7 does not), as
/// KILN_ERROR_INVALID_MODEL.
Status verifyWeightHashes(const LoadedModel &Model);

} // namespace kiln::rt

// The optional check of a file against the xxHash64s its writer recorded
// (schema 1.7): the FlatBuffer's (Model.flatbuffer_xxhash64) and every weight
// segment's (Buffer.xxhash64). Loading verifies the structure only; this
// hashes every byte of the file, so it is a session option
// (kiln_session_options.verify_weight_hashes), off by default.
#pragma once

#include "Status.h"
#include "loader/LoadedModel.h"

#include <cstddef>
#include <cstdint>

namespace kiln::rt {

/// xxHash64 with seed 0 of [Data, Data + Size): the writer's hash.
uint64_t weightHash(const void *Data, size_t Size);

/// Hashes the FlatBuffer and every segment of a verified model and compares
/// each with its recorded hash. A mismatch, or a missing hash (a file
/// written before schema 1.7), is KILN_ERROR_INVALID_MODEL naming the
/// FlatBuffer, or the segment and the tensors stored in it.
Status verifyWeightHashes(const LoadedModel &Model);

} // namespace kiln::rt

// The kiln operators an NNAPI file runs on the host around its NNAPI model
// (NnapiPayload.host_before, host_after): TRANSPOSE, RESHAPE, QUANTIZE
// (f32 -> per-tensor i8), DEQUANTIZE and CAST (int64 token ids -> NNAPI's
// int32, saturating), small and naive. The loader has
// checked each one (OpValidation.h), so shapes and parameters are trusted.
#pragma once

#include "loader/LoadedModel.h"

#include <cstdint>
#include <functional>

namespace kiln::rt {

/// Runs operator Op of M; Buffer(T) is tensor T's host bytes.
void runNnapiHostStep(const LoadedModel &M, size_t Op,
                      const std::function<uint8_t *(size_t)> &Buffer);

} // namespace kiln::rt

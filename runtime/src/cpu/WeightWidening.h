// Weights a float operator keeps as F16 or quantized I8/I32 in the file are
// widened to f32 once, when the session is created (WeightWidening.cpp).
#pragma once

#include "cpu/Kernel.h"

namespace kiln::rt {

/// True when input Input of the operator is a narrow weight or bias of a
/// float CONV_2D, DECONV_2D or FULLY_CONNECTED (the validator allowed it).
bool needsWidening(const KernelArgs &A, size_t Input);

/// The f32 values of a F16 or quantized I8/I32 tensor, followed by
/// ExtraBytes of zeros (XNNPACK may read past its inputs).
std::vector<float> widenToF32(const TensorDesc &D, const uint8_t *Data,
                              size_t ExtraBytes);

} // namespace kiln::rt

// IEEE half and bfloat16 conversions for the runtime's CAST (the runtime
// has its own copy: it cannot use the compiler's lib/IR).
#pragma once

#include <cstdint>

namespace kiln::rt::ref {

float halfToFloat(uint16_t H);
/// Round to nearest even; overflow gives infinity; NaN stays a quiet NaN.
uint16_t floatToHalf(float F);
float bf16ToFloat(uint16_t B);
/// Truncates the f32 bits (ONNX's conformance data expects truncation);
/// NaN stays a NaN.
uint16_t truncateToBf16(float F);

} // namespace kiln::rt::ref

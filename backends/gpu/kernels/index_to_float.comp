#version 450
// An integer graph input to floats, element by element: its value (CAST),
// or 1.0 where a comparison with the constant OPERAND holds and 0.0
// elsewhere (EQUAL, GREATER or LESS followed by a CAST: a padding mask
// built from token ids). The comparisons are exact over int64.
#include "common.glsl"

layout(constant_id = 20) const int COUNT = 1;
/// 0: the value; 1: value == OPERAND; 2: value > OPERAND; 3: value < OPERAND.
layout(constant_id = 21) const int MODE = 0;
layout(constant_id = 22) const int OPERAND_LO = 0;
layout(constant_id = 23) const int OPERAND_HI = 0;

layout(std430, set = 0, binding = 0) readonly buffer Ids { int ids[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Y { SCALAR y[]; };

#include "int_index.glsl"

void main() {
  int i = int(flatInvocation());
  if (i >= COUNT)
    return;
  int lo, hi;
  indexWords(i, lo, hi);
  float v;
  if (MODE == 0) {
    // Exact where the value fits int32; past it, the two words' sum (the
    // low word unsigned) rounds as fp32 must.
    v = hi == (lo >> 31) ? float(lo) : float(hi) * 4294967296.0 + float(uint(lo));
  } else {
    // (hi, unsigned lo) ordered lexicographically is int64's order.
    bool eq = hi == OPERAND_HI && lo == OPERAND_LO;
    bool gt = hi > OPERAND_HI || (hi == OPERAND_HI && uint(lo) > uint(OPERAND_LO));
    bool holds = MODE == 1 ? eq : MODE == 2 ? gt : !eq && !gt;
    v = holds ? 1.0 : 0.0;
  }
  STORE(y, i, SCALAR(v));
}

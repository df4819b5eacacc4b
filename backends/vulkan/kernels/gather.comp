#version 450
// y[dst(p)] = x[src(p)] over the loop domain: transpose, reshape between
// layouts, slice, broadcast, concatenation (one dispatch per input, placed
// by the destination's starts) and NCHW <-> C4 conversion of graph inputs
// and outputs. Padding lanes of a C4 destination get zero.
#include "common.glsl"
#include "tensor_access.glsl"

OPERAND(SRC, 20)
OPERAND(DST, 40)

layout(std430, set = 0, binding = 0) readonly buffer X { SCALAR x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Y { SCALAR y[]; };

void main() {
  uint i = flatInvocation();
  if (i >= DOMAIN_SIZE)
    return;
  int p[6];
  domainIndex(i, p);
  y[DST_offset(p)] = isPadding(p) ? SCALAR(0) : x[SRC_offset(p)];
}

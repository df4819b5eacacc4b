#version 450
// y[dst(p)] = x[src(p)] over the loop domain: transpose, reshape between
// layouts, slice, broadcast (concatenation is concat.comp) and NCHW <-> C4
// conversion of graph inputs and outputs. Padding lanes of a C4
// destination get zero.
#include "common.glsl"
#include "tensor_access.glsl"

OPERAND(SRC, 20)
OPERAND(DST, 40)

// With KILN_FP16, KILN_SRC_F32 / KILN_DST_F32 make one side f32: the
// conversions of the graph's f32 inputs and outputs to and from fp16.
#ifdef KILN_SRC_F32
#define SRC_T float
#else
#define SRC_T SCALAR
#endif
#ifdef KILN_DST_F32
#define DST_T float
#else
#define DST_T SCALAR
#endif

layout(std430, set = 0, binding = 0) readonly buffer X { SRC_T x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Y { DST_T y[]; };

void main() {
  uint i = flatInvocation();
  if (i >= DOMAIN_SIZE)
    return;
  int p[6];
  domainIndex(i, p);
  // Branches, not a select: selecting between fp16 values is fp16
  // arithmetic (the Float16 capability).
  if (isPadding(p))
    STORE(y, DST_offset(p), DST_T(storeZero()));
  else
    STORE(y, DST_offset(p), DST_T(LOAD(x, SRC_offset(p))));
}

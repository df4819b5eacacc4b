#version 450
// Separable resampling over two axes of any tensor (C4 or PLAIN):
// y[.., a, .., b, ..] = sum_ta sum_tb wa[a][ta] * wb[b][tb] *
//                       x[.., ia[a][ta], .., ib[b][tb], ..]
// with the taps the compiler computed for the interpolation mode (nearest,
// linear, cubic; every coordinate mode). Domain axes AXIS_A and AXIS_B are
// the resized ones; an axis that keeps its size has one identity tap.
// Padding lanes of a C4 output get zero. The taps (a few per axis) sum in
// MSCALAR: fp16 in the _f16math variant; their weights are stored fp32.
#include "common.glsl"
#include "tensor_access.glsl"

// With KILN_FP16, KILN_DST_F32 makes y f32: the dispatch that writes a
// graph output (the fp16 file's outputs stay f32) converts as it stores.
#ifdef KILN_DST_F32
#define DST_T float
#else
#define DST_T SCALAR
#endif

OPERAND(SRC, 20)
OPERAND(DST, 40)

layout(constant_id = 5) const int AXIS_A = 4;
layout(constant_id = 6) const int AXIS_B = 5;
layout(constant_id = 7) const int TAPS_A = 1;
layout(constant_id = 8) const int TAPS_B = 1;

layout(std430, set = 0, binding = 0) readonly buffer X { SCALAR x[]; };
layout(std430, set = 0, binding = 1) readonly buffer IdxA { int idxA[]; };
layout(std430, set = 0, binding = 2) readonly buffer WA { float wA[]; };
layout(std430, set = 0, binding = 3) readonly buffer IdxB { int idxB[]; };
layout(std430, set = 0, binding = 4) readonly buffer WB { float wB[]; };
layout(std430, set = 0, binding = 5) writeonly buffer Y { DST_T y[]; };

void main() {
  uint i = flatInvocation();
  if (i >= DOMAIN_SIZE)
    return;
  int p[6];
  domainIndex(i, p);
  if (isPadding(p)) {
    STORE(y, DST_offset(p), DST_T(storeZero()));
    return;
  }
  int a = p[AXIS_A], b = p[AXIS_B];
  int q[6] = p;
  MSCALAR acc = MSCALAR(0.0);
  for (int ta = 0; ta < TAPS_A; ++ta) {
    q[AXIS_A] = LOAD(idxA, a * TAPS_A + ta);
    MSCALAR row = MSCALAR(0.0);
    for (int tb = 0; tb < TAPS_B; ++tb) {
      q[AXIS_B] = LOAD(idxB, b * TAPS_B + tb);
      row += MSCALAR(LOAD(wB, b * TAPS_B + tb)) * MSCALAR(LOAD(x, SRC_offset(q)));
    }
    acc += MSCALAR(LOAD(wA, a * TAPS_A + ta)) * row;
  }
  STORE(y, DST_offset(p), DST_T(acc));
}

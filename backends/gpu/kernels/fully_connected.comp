#version 450
// y[m][o] = act(sum_k x[m * X_ROW + k] * w[o][k] + bias[o]) for a PLAIN
// output [ROWS, OUT] (row stride Y_ROW, so that a C4 [N,1,1,C] output, whose
// rows are padded to four, works too; its padding lanes get zero). One
// invocation per output element. The _f16math variant sums runs of
// FP16_RUN products in fp16 and the runs in fp32 (K can be thousands).
#include "common.glsl"

// With KILN_FP16, KILN_DST_F32 makes y f32: the dispatch that writes a
// graph output (the fp16 file's outputs stay f32) converts as it stores.
#ifdef KILN_DST_F32
#define DST_T float
#else
#define DST_T SCALAR
#endif

layout(constant_id = 20) const int ROWS = 1;
layout(constant_id = 21) const int K = 1;
layout(constant_id = 22) const int OUT = 1;
layout(constant_id = 23) const int X_ROW = 1;
layout(constant_id = 24) const int Y_ROW = 1;
layout(constant_id = 25) const int HAS_BIAS = 1;

layout(std430, set = 0, binding = 0) readonly buffer X { SCALAR x[]; };
layout(std430, set = 0, binding = 1) readonly buffer W { SCALAR w[]; };
layout(std430, set = 0, binding = 2) readonly buffer Bias { SCALAR bias[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Y { DST_T y[]; };

void main() {
  int i = int(flatInvocation());
  if (i >= ROWS * Y_ROW)
    return;
  int m = i / Y_ROW, o = i % Y_ROW;
  if (o >= OUT) {
    STORE(y, i, DST_T(storeZero()));
    return;
  }
  float acc = HAS_BIAS != 0 ? float(LOAD(bias, o)) : 0.0;
#ifdef KILN_FP16_MATH
  for (int k0 = 0; k0 < K; k0 += FP16_RUN) {
    MSCALAR run = MSCALAR(0.0);
    for (int k = k0; k < min(k0 + FP16_RUN, K); ++k)
      run += MSCALAR(LOAD(x, m * X_ROW + k)) * MSCALAR(LOAD(w, o * K + k));
    acc += float(run);
  }
#else
  for (int k = 0; k < K; ++k)
    acc += float(LOAD(x, m * X_ROW + k)) * float(LOAD(w, o * K + k));
#endif
  STORE(y, i, DST_T(activate(acc)));
}

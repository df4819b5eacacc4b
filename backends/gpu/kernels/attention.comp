#version 450
// Attention in one dispatch for every head of a layer: for each row r =
// (p, m) of the scores,
//   s_j = ALPHA * q[p][m] . k[p][j] + sum_b MULT_b * bias_b[r * KEYS + j],
//   y[p][m][n] = act(sum_j softmax(s)_j * v[p][j][n]).
// One invocation per row and block of COLUMNS output columns, in one pass
// over the keys with the softmax taken online (a running maximum; what was
// summed against an older maximum is rescaled when it rises), so the scores
// never leave the invocation: no shared memory, no barriers, any number of
// keys. A row's scores are recomputed once per block (DV / COLUMNS times).
// Everything is summed in fp32 whatever the storage (fp16 files keep fp32
// accumulation). k is [D][KEYS] (the matmul's operand, K_ROWS = 0) or
// [KEYS][D] (the keys before their transpose, K_ROWS = 1). A bias is
// addressed from the scores' flat index through its own dims (those of the
// add that applied it, so reshapes between adds are allowed) and strides
// (0: broadcast).
#include "common.glsl"

layout(constant_id = 20) const int ROWS = 1; // P * M
layout(constant_id = 21) const int M = 1;
layout(constant_id = 22) const int KEYS = 1;
layout(constant_id = 23) const int DEPTH = 1;
layout(constant_id = 24) const int DV = 1;
layout(constant_id = 25) const int Q_BATCH = 0; // 0: broadcast over p
layout(constant_id = 26) const int K_BATCH = 0;
layout(constant_id = 27) const int V_BATCH = 0;
layout(constant_id = 28) const float ALPHA = 1.0;
layout(constant_id = 29) const int K_ROWS = 0;
layout(constant_id = 30) const int NUM_BIAS = 0;

#define BIAS(P, BASE)                                                        \
  layout(constant_id = BASE + 0) const int P##_D0 = 1;                       \
  layout(constant_id = BASE + 1) const int P##_D1 = 1;                       \
  layout(constant_id = BASE + 2) const int P##_D2 = 1;                       \
  layout(constant_id = BASE + 3) const int P##_D3 = 1;                       \
  layout(constant_id = BASE + 4) const int P##_D4 = 1;                       \
  layout(constant_id = BASE + 5) const int P##_D5 = 1;                       \
  layout(constant_id = BASE + 6) const int P##_S0 = 0;                       \
  layout(constant_id = BASE + 7) const int P##_S1 = 0;                       \
  layout(constant_id = BASE + 8) const int P##_S2 = 0;                       \
  layout(constant_id = BASE + 9) const int P##_S3 = 0;                       \
  layout(constant_id = BASE + 10) const int P##_S4 = 0;                      \
  layout(constant_id = BASE + 11) const int P##_S5 = 0;                      \
  layout(constant_id = BASE + 12) const float P##_MULT = 1.0;                \
  int P##_offset(int f) {                                                    \
    int o = (f % P##_D5) * P##_S5;                                           \
    f /= P##_D5;                                                             \
    o += (f % P##_D4) * P##_S4;                                              \
    f /= P##_D4;                                                             \
    o += (f % P##_D3) * P##_S3;                                              \
    f /= P##_D3;                                                             \
    o += (f % P##_D2) * P##_S2;                                              \
    f /= P##_D2;                                                             \
    o += (f % P##_D1) * P##_S1;                                              \
    f /= P##_D1;                                                             \
    return o + (f % P##_D0) * P##_S0;                                        \
  }
BIAS(B0, 40)
BIAS(B1, 60)

layout(std430, set = 0, binding = 0) readonly buffer Q { SCALAR q[]; };
layout(std430, set = 0, binding = 1) readonly buffer K { SCALAR k[]; };
layout(std430, set = 0, binding = 2) readonly buffer V { SCALAR v[]; };
layout(std430, set = 0, binding = 3) readonly buffer Bias0 { SCALAR bias0[]; };
layout(std430, set = 0, binding = 4) readonly buffer Bias1 { SCALAR bias1[]; };
layout(std430, set = 0, binding = 5) writeonly buffer Y { SCALAR y[]; };

/// The output columns one invocation accumulates.
const int COLUMNS = 32;

void main() {
  int blocks = (DV + COLUMNS - 1) / COLUMNS;
  int i = int(flatInvocation());
  if (i >= ROWS * blocks)
    return;
  int row = i / blocks, n0 = (i % blocks) * COLUMNS;
  int cols = min(COLUMNS, DV - n0);
  int p = row / M, m = row % M;
  int qb = p * Q_BATCH + m * DEPTH, kb = p * K_BATCH, vb = p * V_BATCH + n0;
  float acc[COLUMNS];
  for (int c = 0; c < COLUMNS; ++c)
    acc[c] = 0.0;
  float top = -1.0 / 0.0, sum = 0.0;
  for (int j = 0; j < KEYS; ++j) {
    float s = 0.0;
    for (int d = 0; d < DEPTH; ++d) {
      int at = K_ROWS != 0 ? kb + j * DEPTH + d : kb + d * KEYS + j;
      s += float(LOAD(q, qb + d)) * float(LOAD(k, at));
    }
    s *= ALPHA;
    int f = row * KEYS + j;
    if (NUM_BIAS > 0)
      s += B0_MULT * float(LOAD(bias0, B0_offset(f)));
    if (NUM_BIAS > 1)
      s += B1_MULT * float(LOAD(bias1, B1_offset(f)));
    if (isinf(s) && s < 0.0) // a masked key (-inf) adds nothing
      continue;
    if (s > top) { // a new maximum: rescale what was summed against the old
      float r = exp(top - s);
      sum *= r;
      for (int c = 0; c < cols; ++c)
        acc[c] *= r;
      top = s;
    }
    float e = exp(s - top);
    sum += e;
    for (int c = 0; c < cols; ++c)
      acc[c] += e * float(LOAD(v, vb + j * DV + c));
  }
  for (int c = 0; c < cols; ++c)
    STORE(y, row * DV + n0 + c, SCALAR(activate(acc[c] / sum)));
}

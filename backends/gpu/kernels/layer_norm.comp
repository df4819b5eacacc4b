#version 450
// Layer normalization of a PLAIN tensor seen as [ROWS, N] (N: the product of
// the normalized axes): one invocation per row, in fp32, two passes (the
// mean, then the biased variance of the deviations, as the reference
// kernel), then y = (x - mean) / sqrt(var + EPSILON) * w + b.
#include "common.glsl"

layout(constant_id = 20) const int ROWS = 1;
layout(constant_id = 21) const int N = 1;
layout(constant_id = 22) const float EPSILON = 1e-5;
layout(constant_id = 23) const int HAS_BIAS = 1;

layout(std430, set = 0, binding = 0) readonly buffer X { SCALAR x[]; };
layout(std430, set = 0, binding = 1) readonly buffer W { SCALAR w[]; };
layout(std430, set = 0, binding = 2) readonly buffer Bias { SCALAR bias[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Y { SCALAR y[]; };

void main() {
  int r = int(flatInvocation());
  if (r >= ROWS)
    return;
  int base = r * N;
  float sum = 0.0;
  for (int k = 0; k < N; ++k)
    sum += float(LOAD(x, base + k));
  float mean = sum / float(N);
  float sq = 0.0;
  for (int k = 0; k < N; ++k) {
    float d = float(LOAD(x, base + k)) - mean;
    sq += d * d;
  }
  float inv = 1.0 / sqrt(sq / float(N) + EPSILON);
  for (int k = 0; k < N; ++k) {
    float v = (float(LOAD(x, base + k)) - mean) * inv * float(LOAD(w, k));
    if (HAS_BIAS != 0)
      v += float(LOAD(bias, k));
    STORE(y, base + k, SCALAR(v));
  }
}

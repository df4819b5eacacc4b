#version 450
// Batched matrix product of two PLAIN activations: y[p][m][n] =
// act(sum_k a[p * A_BATCH + m * K + k] * b[p * B_BATCH + k * N + n]), one
// invocation per output element, summed in fp32. A_BATCH / B_BATCH are 0
// for an operand broadcast along the batch (attention: q k^T, p v).
#include "common.glsl"

layout(constant_id = 20) const int P = 1;
layout(constant_id = 21) const int M = 1;
layout(constant_id = 22) const int K = 1;
layout(constant_id = 23) const int N = 1;
layout(constant_id = 24) const int A_BATCH = 0;
layout(constant_id = 25) const int B_BATCH = 0;

layout(std430, set = 0, binding = 0) readonly buffer A { SCALAR a[]; };
layout(std430, set = 0, binding = 1) readonly buffer B { SCALAR b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Y { SCALAR y[]; };

void main() {
  int i = int(flatInvocation());
  if (i >= P * M * N)
    return;
  int p = i / (M * N), m = (i / N) % M, n = i % N;
  int ab = p * A_BATCH + m * K, bb = p * B_BATCH + n;
  float acc = 0.0;
  for (int k = 0; k < K; ++k)
    acc += float(LOAD(a, ab + k)) * float(LOAD(b, bb + k * N));
  STORE(y, i, SCALAR(activate(acc)));
}

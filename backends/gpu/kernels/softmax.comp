#version 450
// Softmax (or log-softmax) of a PLAIN tensor along one axis: the tensor is
// [OUTER, AXIS, INNER] and each invocation normalizes one (outer, inner)
// row in fp32.
#include "common.glsl"

layout(constant_id = 20) const int OUTER = 1;
layout(constant_id = 21) const int AXIS = 1;
layout(constant_id = 22) const int INNER = 1;
layout(constant_id = 23) const int LOG = 0;

layout(std430, set = 0, binding = 0) readonly buffer X { SCALAR x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Y { SCALAR y[]; };

void main() {
  int r = int(flatInvocation());
  if (r >= OUTER * INNER)
    return;
  int base = (r / INNER) * AXIS * INNER + r % INNER;
  float top = -1.0 / 0.0;
  for (int k = 0; k < AXIS; ++k)
    top = max(top, float(LOAD(x, base + k * INNER)));
  float sum = 0.0;
  for (int k = 0; k < AXIS; ++k)
    sum += exp(float(LOAD(x, base + k * INNER)) - top);
  for (int k = 0; k < AXIS; ++k) {
    float v = float(LOAD(x, base + k * INNER)) - top;
    STORE(y, base + k * INNER, SCALAR(LOG != 0 ? v - log(sum) : exp(v) / sum));
  }
}

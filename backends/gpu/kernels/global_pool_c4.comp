#version 450
// Global average or max pooling of C4 [N, H, W, C] to [N, 1, 1, C]: one
// invocation per (n, channel block), accumulating in fp32.
#include "common.glsl"

layout(constant_id = 20) const int PIXELS = 1;
layout(constant_id = 21) const int BLOCKS = 1; // N * ceil(C / 4)
layout(constant_id = 22) const int IS_MAX = 0;

layout(std430, set = 0, binding = 0) readonly buffer X { VEC4 x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Y { VEC4 y[]; };

void main() {
  int z = int(flatInvocation());
  if (z >= BLOCKS)
    return;
  vec4 acc = IS_MAX != 0 ? vec4(-1.0 / 0.0) : vec4(0.0);
  for (int i = 0, base = z * PIXELS; i < PIXELS; ++i)
    acc = IS_MAX != 0 ? max(acc, vec4(LOAD(x, base + i)))
                     : acc + vec4(LOAD(x, base + i));
  if (IS_MAX == 0)
    acc /= float(PIXELS);
  STORE(y, z, VEC4(activate(acc)));
}

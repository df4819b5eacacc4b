#version 450
// Separable resampling of C4 [N, H, W, C] to [N, OUT_H, OUT_W, C]:
// y[oy][ox] = sum_ty sum_tx wy[oy][ty] * wx[ox][tx] * x[iy[oy][ty]][ix[ox][tx]]
// with the taps the compiler computed for the interpolation mode (nearest,
// bilinear, cubic; align_corners and the other coordinate modes).
#include "common.glsl"

layout(constant_id = 20) const int IN_H = 1;
layout(constant_id = 21) const int IN_W = 1;
layout(constant_id = 22) const int OUT_H = 1;
layout(constant_id = 23) const int OUT_W = 1;
layout(constant_id = 24) const int BLOCKS = 1; // N * ceil(C / 4)
layout(constant_id = 25) const int TAPS_H = 1;
layout(constant_id = 26) const int TAPS_W = 1;

layout(std430, set = 0, binding = 0) readonly buffer X { VEC4 x[]; };
layout(std430, set = 0, binding = 1) readonly buffer IdxH { int idxH[]; };
layout(std430, set = 0, binding = 2) readonly buffer WH { float wH[]; };
layout(std430, set = 0, binding = 3) readonly buffer IdxW { int idxW[]; };
layout(std430, set = 0, binding = 4) readonly buffer WW { float wW[]; };
layout(std430, set = 0, binding = 5) writeonly buffer Y { VEC4 y[]; };

void main() {
  int ox = int(gl_GlobalInvocationID.x), oy = int(gl_GlobalInvocationID.y);
  int z = int(gl_GlobalInvocationID.z);
  if (ox >= OUT_W || oy >= OUT_H || z >= BLOCKS)
    return;
  vec4 acc = vec4(0.0);
  int base = z * IN_H * IN_W;
  for (int ty = 0; ty < TAPS_H; ++ty) {
    int iy = idxH[oy * TAPS_H + ty];
    vec4 row = vec4(0.0);
    for (int tx = 0; tx < TAPS_W; ++tx)
      row += wW[ox * TAPS_W + tx] * vec4(x[base + iy * IN_W + idxW[ox * TAPS_W + tx]]);
    acc += wH[oy * TAPS_H + ty] * row;
  }
  y[(z * OUT_H + oy) * OUT_W + ox] = VEC4(acc);
}

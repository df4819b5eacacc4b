#version 450
// Depthwise convolution (one filter per channel) on C4 tensors with bias
// and a fused clamp. Weights: [C4][KH][KW] of vec4; bias: [C4] of vec4.
// The window's KH * KW products sum in MVEC4 (fp16 in the _f16math variant:
// a window is short).
#include "common.glsl"
#include "conv_shape.glsl"

layout(std430, set = 0, binding = 0) readonly buffer X { VEC4 x[]; };
layout(std430, set = 0, binding = 1) readonly buffer W { VEC4 w[]; };
layout(std430, set = 0, binding = 2) readonly buffer Bias { VEC4 bias[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Y { VEC4 y[]; };

void main() {
  int ox = int(gl_GlobalInvocationID.x), oy = int(gl_GlobalInvocationID.y);
  int z = int(gl_GlobalInvocationID.z);
  if (ox >= OUT_W || oy >= OUT_H || z >= BATCH * OUT_C4)
    return;
  int c4 = z % OUT_C4;
  MVEC4 acc = MVEC4(LOAD(bias, c4));
  int base = z * IN_H * IN_W;
  for (int ky = 0; ky < KH; ++ky) {
    int iy = oy * STRIDE_H - PAD_TOP + ky * DILATION_H;
    if (iy < 0 || iy >= IN_H)
      continue;
    for (int kx = 0; kx < KW; ++kx) {
      int ix = ox * STRIDE_W - PAD_LEFT + kx * DILATION_W;
      if (ix < 0 || ix >= IN_W)
        continue;
      acc += MVEC4(LOAD(x, base + iy * IN_W + ix)) *
             MVEC4(LOAD(w, (c4 * KH + ky) * KW + kx));
    }
  }
  STORE(y, (z * OUT_H + oy) * OUT_W + ox, VEC4(activate(acc) * mLaneMask(c4)));
}

#version 450
// Dense convolution (groups 1) on C4 tensors with bias and a fused clamp.
// Weights: [OUT_C4][KH][KW][IN_C4][4 input lanes] of vec4 over the four
// output lanes (zero past the real channels); bias: [OUT_C4] of vec4.
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
  int n = z / OUT_C4, oc4 = z % OUT_C4;
  vec4 acc = vec4(bias[oc4]);
  int plane = IN_H * IN_W;
  for (int ky = 0; ky < KH; ++ky) {
    int iy = oy * STRIDE_H - PAD_TOP + ky * DILATION_H;
    if (iy < 0 || iy >= IN_H)
      continue;
    for (int kx = 0; kx < KW; ++kx) {
      int ix = ox * STRIDE_W - PAD_LEFT + kx * DILATION_W;
      if (ix < 0 || ix >= IN_W)
        continue;
      int xi = n * IN_C4 * plane + iy * IN_W + ix;
      int wi = ((oc4 * KH + ky) * KW + kx) * IN_C4 * 4;
      for (int ic4 = 0; ic4 < IN_C4; ++ic4, xi += plane, wi += 4) {
        vec4 v = vec4(x[xi]);
        acc += vec4(w[wi]) * v.x + vec4(w[wi + 1]) * v.y +
               vec4(w[wi + 2]) * v.z + vec4(w[wi + 3]) * v.w;
      }
    }
  }
  y[(z * OUT_H + oy) * OUT_W + ox] = VEC4(activate(acc) * laneMask(oc4));
}

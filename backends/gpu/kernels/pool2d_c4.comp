#version 450
// Max or average pooling over a window on C4 tensors, with a fused clamp.
// Average pooling divides by the window's real pixels, or by the whole
// window when COUNT_PAD is set. The _f16math variant takes the max in
// fp16 (exact either way); average sums stay fp32, which fp16 could
// overflow.
#include "common.glsl"
#include "conv_shape.glsl"

layout(constant_id = 36) const int IS_MAX = 1;
layout(constant_id = 37) const int COUNT_PAD = 0;

layout(std430, set = 0, binding = 0) readonly buffer X { VEC4 x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Y { VEC4 y[]; };

void main() {
  int ox = int(gl_GlobalInvocationID.x), oy = int(gl_GlobalInvocationID.y);
  int z = int(gl_GlobalInvocationID.z);
  if (ox >= OUT_W || oy >= OUT_H || z >= BATCH * OUT_C4)
    return;
  vec4 acc = IS_MAX != 0 ? vec4(-1.0 / 0.0) : vec4(0.0);
#ifdef KILN_FP16_MATH
  MVEC4 top = MVEC4(-1.0 / 0.0);
#endif
  int count = 0, base = z * IN_H * IN_W;
  for (int ky = 0; ky < KH; ++ky) {
    int iy = oy * STRIDE_H - PAD_TOP + ky * DILATION_H;
    if (iy < 0 || iy >= IN_H)
      continue;
    for (int kx = 0; kx < KW; ++kx) {
      int ix = ox * STRIDE_W - PAD_LEFT + kx * DILATION_W;
      if (ix < 0 || ix >= IN_W)
        continue;
#ifdef KILN_FP16_MATH
      if (IS_MAX != 0)
        top = max(top, MVEC4(LOAD(x, base + iy * IN_W + ix)));
      else
        acc += vec4(LOAD(x, base + iy * IN_W + ix));
#else
      vec4 v = vec4(LOAD(x, base + iy * IN_W + ix));
      acc = IS_MAX != 0 ? max(acc, v) : acc + v;
#endif
      ++count;
    }
  }
  if (IS_MAX == 0) {
    int divisor = COUNT_PAD != 0 ? KH * KW : count;
    acc = divisor > 0 ? acc / float(divisor) : vec4(0.0);
  }
#ifdef KILN_FP16_MATH
  if (IS_MAX != 0) {
    STORE(y, (z * OUT_H + oy) * OUT_W + ox,
          VEC4(activate(top) * mLaneMask(z % OUT_C4)));
    return;
  }
#endif
  STORE(y, (z * OUT_H + oy) * OUT_W + ox,
        VEC4(activate(acc) * laneMask(z % OUT_C4)));
}

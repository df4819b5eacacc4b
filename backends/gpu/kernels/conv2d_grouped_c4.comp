#version 450
// Grouped convolution whose groups do not fall on channel blocks (and
// depthwise with a channel multiplier), on C4 tensors, lane by lane.
// Weights: OHWI [OUT_C][KH][KW][GROUP_IN] of scalars; bias: [OUT_C4] of vec4.
// The _f16math variant multiplies and sums runs of FP16_RUN input channels
// in fp16 and adds the runs in fp32: a group can be hundreds of channels
// wide, too long a sum for fp16 alone.
#include "common.glsl"
#include "conv_shape.glsl"

layout(constant_id = 36) const int GROUP_IN = 1;
layout(constant_id = 37) const int GROUP_OUT = 1;

layout(std430, set = 0, binding = 0) readonly buffer X { SCALAR x[]; };
layout(std430, set = 0, binding = 1) readonly buffer W { SCALAR w[]; };
layout(std430, set = 0, binding = 2) readonly buffer Bias { VEC4 bias[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Y { VEC4 y[]; };

void main() {
  int ox = int(gl_GlobalInvocationID.x), oy = int(gl_GlobalInvocationID.y);
  int z = int(gl_GlobalInvocationID.z);
  if (ox >= OUT_W || oy >= OUT_H || z >= BATCH * OUT_C4)
    return;
  int n = z / OUT_C4, oc4 = z % OUT_C4;
  vec4 acc = vec4(LOAD(bias, oc4));
  int plane = IN_H * IN_W;
  for (int lane = 0; lane < 4; ++lane) {
    int oc = oc4 * 4 + lane;
    if (oc >= OUT_C)
      break;
    int firstIn = (oc / GROUP_OUT) * GROUP_IN;
    float sum = 0.0;
    for (int ky = 0; ky < KH; ++ky) {
      int iy = oy * STRIDE_H - PAD_TOP + ky * DILATION_H;
      if (iy < 0 || iy >= IN_H)
        continue;
      for (int kx = 0; kx < KW; ++kx) {
        int ix = ox * STRIDE_W - PAD_LEFT + kx * DILATION_W;
        if (ix < 0 || ix >= IN_W)
          continue;
        int wi = ((oc * KH + ky) * KW + kx) * GROUP_IN;
#ifdef KILN_FP16_MATH
        for (int ic0 = 0; ic0 < GROUP_IN; ic0 += FP16_RUN) {
          MSCALAR run = MSCALAR(0.0);
          for (int ic = ic0; ic < min(ic0 + FP16_RUN, GROUP_IN); ++ic) {
            int c = firstIn + ic;
            int xi = ((n * IN_C4 + (c >> 2)) * plane + iy * IN_W + ix) * 4 + (c & 3);
            run += MSCALAR(LOAD(x, xi)) * MSCALAR(LOAD(w, wi + ic));
          }
          sum += float(run);
        }
#else
        for (int ic = 0; ic < GROUP_IN; ++ic) {
          int c = firstIn + ic;
          int xi = ((n * IN_C4 + (c >> 2)) * plane + iy * IN_W + ix) * 4 + (c & 3);
          sum += float(LOAD(x, xi)) * float(LOAD(w, wi + ic));
        }
#endif
      }
    }
    acc[lane] += sum;
  }
  STORE(y, (z * OUT_H + oy) * OUT_W + ox, VEC4(activate(acc) * laneMask(oc4)));
}

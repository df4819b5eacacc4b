#version 450
// Dense convolution (groups 1) on C4 tensors with bias and a fused clamp.
// Weights: [OUT_C4][KH][KW][IN_C4][4 input lanes] of vec4 over the four
// output lanes (zero past the real channels); bias: [OUT_C4] of vec4.
//
// Register tiling: an invocation computes four output pixels of a row for
// two output channel blocks. Its tile t is its flat index over the x and y
// of the grid (row t / ceil(OUT_W / 4), pixels from 4 * (t % ceil(OUT_W /
// 4))); workgroup z = n * ceil(OUT_C4 / 2) + p gives image n and blocks 2p
// and 2p+1, so every weight index is uniform over a group. Each input vec4
// loaded feeds two blocks and each weight vec4 four pixels: 12 loads per 128
// multiply-adds, where one pixel of one block per invocation took 5 loads
// per 16.
// Taps left or right of the input read a clamped pixel and select zero
// instead, so the lanes of a row tile do not diverge. The _f16math variant
// sums runs of FP16_RUN input channels in fp16 and the runs in fp32.
#include "common.glsl"
#include "conv_shape.glsl"

layout(std430, set = 0, binding = 0) readonly buffer X { VEC4 x[]; };
layout(std430, set = 0, binding = 1) readonly buffer W { VEC4 w[]; };
layout(std430, set = 0, binding = 2) readonly buffer Bias { VEC4 bias[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Y { VEC4 y[]; };

/// acc += the 4x4 weight block at w[wi] (rows: input lanes) times v, in
/// the arithmetic of type T (vec4, or MVEC4).
#define MAC(T, acc, wi, v)                                                     \
  acc += T(LOAD(w, wi)) * v.x + T(LOAD(w, wi + 1)) * v.y +                   \
         T(LOAD(w, wi + 2)) * v.z + T(LOAD(w, wi + 3)) * v.w

/// The four taps of input block ic4 in type T, zero outside the input.
#define LOAD_TAPS(T)                                                           \
  int xi = xRow + ic4 * plane;                                                 \
  T v0 = mix(T(0), T(LOAD(x, xi + col.x)), bvec4(inside.x));                   \
  T v1 = mix(T(0), T(LOAD(x, xi + col.y)), bvec4(inside.y));                   \
  T v2 = mix(T(0), T(LOAD(x, xi + col.z)), bvec4(inside.z));                   \
  T v3 = mix(T(0), T(LOAD(x, xi + col.w)), bvec4(inside.w))

/// The eight multiply-adds of input block ic4 into accumulators A* and B*.
#define MAC_TAPS(T, A0, A1, A2, A3, B0, B1, B2, B3)                            \
  int wa = wTap + ic4 * 4, wb = wa + secondBlock;                              \
  MAC(T, A0, wa, v0);                                                          \
  MAC(T, A1, wa, v1);                                                          \
  MAC(T, A2, wa, v2);                                                          \
  MAC(T, A3, wa, v3);                                                          \
  MAC(T, B0, wb, v0);                                                          \
  MAC(T, B1, wb, v1);                                                          \
  MAC(T, B2, wb, v2);                                                          \
  MAC(T, B3, wb, v3)

/// The four pixels of output block `block` (n * OUT_C4 + channel block).
void store(int block, int oy, int ox, vec4 p0, vec4 p1, vec4 p2, vec4 p3) {
  int yi = (block * OUT_H + oy) * OUT_W + ox;
  vec4 mask = laneMask(block % OUT_C4);
  STORE(y, yi, VEC4(activate(p0) * mask));
  if (ox + 1 < OUT_W)
    STORE(y, yi + 1, VEC4(activate(p1) * mask));
  if (ox + 2 < OUT_W)
    STORE(y, yi + 2, VEC4(activate(p2) * mask));
  if (ox + 3 < OUT_W)
    STORE(y, yi + 3, VEC4(activate(p3) * mask));
}

void main() {
  const int PAIRS = (OUT_C4 + 1) / 2, TILES = (OUT_W + 3) / 4;
  int z = int(gl_WorkGroupID.z);
  int tile = int(flatInvocation());
  int ox = tile % TILES * 4, oy = tile / TILES;
  if (oy >= OUT_H || z >= BATCH * PAIRS)
    return;
  int n = z / PAIRS, oc = z % PAIRS * 2;
  // An odd last block is computed twice and stored once.
  int oc1 = min(oc + 1, OUT_C4 - 1);
  vec4 a0 = vec4(LOAD(bias, oc)), a1 = a0, a2 = a0, a3 = a0;
  vec4 b0 = vec4(LOAD(bias, oc1)), b1 = b0, b2 = b0, b3 = b0;
  int plane = IN_H * IN_W;
  int secondBlock = (oc1 - oc) * KH * KW * IN_C4 * 4;
  for (int ky = 0; ky < KH; ++ky) {
    int iy = oy * STRIDE_H - PAD_TOP + ky * DILATION_H;
    if (iy < 0 || iy >= IN_H)
      continue;
    for (int kx = 0; kx < KW; ++kx) {
      int ix = ox * STRIDE_W - PAD_LEFT + kx * DILATION_W;
      ivec4 taps = ivec4(ix) + ivec4(0, 1, 2, 3) * STRIDE_W;
      ivec4 col = clamp(taps, 0, IN_W - 1);
      bvec4 inside = equal(col, taps);
      int xRow = n * IN_C4 * plane + iy * IN_W;
      int wTap = ((oc * KH + ky) * KW + kx) * IN_C4 * 4;
#ifdef KILN_FP16_MATH
      // Runs of FP16_RUN input channels multiply and add in fp16; the runs
      // add up in fp32 (a 3x3 over 512 channels is a 4608-term sum).
      for (int ic0 = 0; ic0 < IN_C4; ic0 += FP16_RUN / 4) {
        MVEC4 ra0 = MVEC4(0), ra1 = ra0, ra2 = ra0, ra3 = ra0;
        MVEC4 rb0 = ra0, rb1 = ra0, rb2 = ra0, rb3 = ra0;
        for (int ic4 = ic0; ic4 < min(ic0 + FP16_RUN / 4, IN_C4); ++ic4) {
          LOAD_TAPS(MVEC4);
          MAC_TAPS(MVEC4, ra0, ra1, ra2, ra3, rb0, rb1, rb2, rb3);
        }
        a0 += vec4(ra0);
        a1 += vec4(ra1);
        a2 += vec4(ra2);
        a3 += vec4(ra3);
        b0 += vec4(rb0);
        b1 += vec4(rb1);
        b2 += vec4(rb2);
        b3 += vec4(rb3);
      }
#else
      for (int ic4 = 0; ic4 < IN_C4; ++ic4) {
        LOAD_TAPS(vec4);
        MAC_TAPS(vec4, a0, a1, a2, a3, b0, b1, b2, b3);
      }
#endif
    }
  }
  int block = n * OUT_C4 + oc;
  store(block, oy, ox, a0, a1, a2, a3);
  if (oc1 != oc)
    store(block + 1, oy, ox, b0, b1, b2, b3);
}

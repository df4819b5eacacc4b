// The geometry of a 2-D convolution or pooling window over C4 tensors,
// shared by conv2d_c4, depthwise_c4, conv2d_grouped_c4 and pool2d_c4.
// Invocation (x, y, z) computes output pixel (x, y) of block z = n * OUT_C4 +
// channel block.
layout(constant_id = 20) const int IN_H = 1;
layout(constant_id = 21) const int IN_W = 1;
layout(constant_id = 22) const int IN_C4 = 1;
layout(constant_id = 23) const int OUT_H = 1;
layout(constant_id = 24) const int OUT_W = 1;
layout(constant_id = 25) const int OUT_C4 = 1;
layout(constant_id = 26) const int BATCH = 1;
layout(constant_id = 27) const int KH = 1;
layout(constant_id = 28) const int KW = 1;
layout(constant_id = 29) const int STRIDE_H = 1;
layout(constant_id = 30) const int STRIDE_W = 1;
layout(constant_id = 31) const int DILATION_H = 1;
layout(constant_id = 32) const int DILATION_W = 1;
layout(constant_id = 33) const int PAD_TOP = 0;
layout(constant_id = 34) const int PAD_LEFT = 0;
/// Output channels (the lanes of the last block past it are zero).
layout(constant_id = 35) const int OUT_C = 4;

/// 1 for the real output lanes of block c4, 0 for padding lanes.
vec4 laneMask(int c4) {
  int first = c4 * 4;
  return vec4(greaterThan(ivec4(OUT_C) - ivec4(first, first + 1, first + 2,
                                               first + 3), ivec4(0)));
}

#ifdef KILN_FP16_MATH
/// laneMask in the arithmetic type (MVEC4).
f16vec4 mLaneMask(int c4) { return f16vec4(laneMask(c4)); }
#else
// The same function: a conversion to vec4 would change the fp32 kernels'
// SPIR-V.
#define mLaneMask laneMask
#endif

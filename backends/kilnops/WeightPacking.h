// Weight layouts of the CPU target, done at compile time so that loading
// moves no bytes: XNNPACK's operators take
//   convolution2d_nhwc   [groups * out per group, kh, kw, in per group] (OHWI)
//   depthwise            [1, kh, kw, channels * multiplier]   (HWO, "HWGo")
//   deconvolution2d_nhwc [groups * out per group, kh, kw, in per group]
//   fully_connected      [out, in]                              (OI)
// from the IR's NCHW-style weights. All functions work on f32; the packers
// write every element of Out, which holds as many floats as W.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

namespace kiln {

/// f32 values read from bytes of any alignment. A weight imported from ONNX
/// aliases its raw_data inside the mapped file, usually at an address that is
/// not a multiple of 4; reading it through this view (each read a memcpy,
/// which compiles to one unaligned load) spares copying 100 MB first.
class FloatSource {
public:
  explicit FloatSource(const void *Bytes)
      : P(static_cast<const unsigned char *>(Bytes)) {}
  /// Aligned floats (tests, values computed in memory).
  FloatSource(const float *Values) : FloatSource(static_cast<const void *>(Values)) {}
  float operator[](int64_t I) const {
    float F;
    std::memcpy(&F, P + I * int64_t(sizeof(float)), sizeof(float));
    return F;
  }

private:
  const unsigned char *P;
};

/// conv weight [O, I, kh, kw] -> [O, kh, kw, I]. With a 1x1 kernel the two
/// layouts are the same bytes (as are the depthwise ones below): the lowering
/// then stores the source weight as it is and calls no packer.
void packConvOHWI(FloatSource W, int64_t O, int64_t I, int64_t KH, int64_t KW,
                  float *Out);

/// Depthwise conv weight [C*mult, 1, kh, kw] -> [1, kh, kw, C*mult].
void packDepthwiseHWO(FloatSource W, int64_t OC, int64_t KH, int64_t KW,
                      float *Out);

/// conv_transpose weight [groups * I, O, kh, kw] (I input channels and O
/// output channels per group) -> [groups * O, kh, kw, I].
void packDeconvOHWI(FloatSource W, int64_t Groups, int64_t I, int64_t O,
                    int64_t KH, int64_t KW, float *Out);

/// [Rows, Cols] -> [Cols, Rows] (gemm/matmul weights [K, N] -> [N, K]).
std::vector<float> transposeMatrix(const float *W, int64_t Rows, int64_t Cols);

} // namespace kiln

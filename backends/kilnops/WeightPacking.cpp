#include "backends/kilnops/WeightPacking.h"

#include <cstddef>

namespace kiln {

void packConvOHWI(FloatSource W, int64_t O, int64_t I, int64_t KH, int64_t KW,
                  float *Out) {
  int64_t Taps = KH * KW;
  // Written in order; the reads stay inside one output channel's block.
  for (int64_t Oc = 0; Oc < O; ++Oc) {
    int64_t Base = Oc * I * Taps;
    for (int64_t T = 0; T < Taps; ++T)
      for (int64_t Ic = 0; Ic < I; ++Ic)
        *Out++ = W[Base + Ic * Taps + T];
  }
}

void packDepthwiseHWO(FloatSource W, int64_t OC, int64_t KH, int64_t KW,
                      float *Out) {
  for (int64_t Oc = 0; Oc < OC; ++Oc)
    for (int64_t Y = 0; Y < KH; ++Y)
      for (int64_t X = 0; X < KW; ++X)
        Out[(Y * KW + X) * OC + Oc] = W[(Oc * KH + Y) * KW + X];
}

void packDeconvOHWI(FloatSource W, int64_t Groups, int64_t I, int64_t O,
                    int64_t KH, int64_t KW, float *Out) {
  for (int64_t G = 0; G < Groups; ++G)
    for (int64_t Ic = 0; Ic < I; ++Ic)
      for (int64_t Oc = 0; Oc < O; ++Oc)
        for (int64_t Y = 0; Y < KH; ++Y)
          for (int64_t X = 0; X < KW; ++X)
            Out[(((G * O + Oc) * KH + Y) * KW + X) * I + Ic] =
                W[(((G * I + Ic) * O + Oc) * KH + Y) * KW + X];
}

std::vector<float> transposeMatrix(const float *W, int64_t Rows, int64_t Cols) {
  std::vector<float> Out(static_cast<std::size_t>(Rows * Cols));
  for (int64_t R = 0; R < Rows; ++R)
    for (int64_t C = 0; C < Cols; ++C)
      Out[static_cast<std::size_t>(C * Rows + R)] = W[R * Cols + C];
  return Out;
}

} // namespace kiln

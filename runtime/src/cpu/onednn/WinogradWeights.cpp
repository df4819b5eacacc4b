#include "cpu/onednn/WinogradWeights.h"

#include <algorithm>
#include <vector>

namespace kiln::rt {

namespace {

constexpr int R = 3, Alpha = 4;
constexpr float G[Alpha][R] = {
    {1.f, 0.f, 0.f}, {.5f, .5f, .5f}, {.5f, -.5f, .5f}, {0.f, 0.f, 1.f}};

/// U = G g G^T of the kernels of one input channel and all O output
/// channels, each array indexed by output channel last (so that the loops
/// run over contiguous lanes): first along kw, then along kh, each sum
/// starting from zero, in the order oneDNN's reorder takes them.
/// Taps[kh][kw][o] in, U[a][b][o] out, T[kh][b][o] between.
void transformKernels(int64_t O, const float *Taps, float *T, float *U) {
  for (int Kh = 0; Kh < R; ++Kh)
    for (int J = 0; J < Alpha; ++J) {
      float *Row = T + (Kh * Alpha + J) * O;
      for (int64_t Oc = 0; Oc < O; ++Oc) {
        float Sum = 0.f;
        for (int Kw = 0; Kw < R; ++Kw)
          Sum += Taps[(Kh * R + Kw) * O + Oc] * G[J][Kw];
        Row[Oc] = Sum;
      }
    }
  for (int A = 0; A < Alpha; ++A)
    for (int J = 0; J < Alpha; ++J) {
      float *Row = U + (A * Alpha + J) * O;
      for (int64_t Oc = 0; Oc < O; ++Oc) {
        float Sum = 0.f;
        for (int K = 0; K < R; ++K)
          Sum += G[A][K] * T[(K * Alpha + J) * O + Oc];
        Row[Oc] = Sum;
      }
    }
}

} // namespace

bool transformWinogradWeights(const dnnl_wino_desc_t &Desc, const float *W,
                              int64_t O, int64_t I, float *Out) {
  const bool Chunked = Desc.wino_format == dnnl_wino_wei_aaOBiOo;
  if ((!Chunked && Desc.wino_format != dnnl_wino_wei_aaOio) || Desc.r != R ||
      Desc.alpha != Alpha || Desc.ic_block <= 0 || Desc.oc_block <= 0 ||
      Desc.ic < I || Desc.oc < O || Desc.ic % Desc.ic_block != 0 ||
      Desc.oc % Desc.oc_block != 0)
    return false;
  const int64_t Icb = Desc.ic_block, Ocb = Desc.oc_block,
                NbIc = Desc.ic / Icb, NbOc = Desc.oc / Ocb,
                Oc2 = Chunked ? Desc.oc2_block : 1;
  if (Oc2 <= 0 || NbOc % Oc2 != 0 ||
      uint64_t(Desc.size) != uint64_t(Alpha * Alpha) * uint64_t(Desc.ic) *
                                 uint64_t(Desc.oc) * sizeof(float))
    return false;
  if (O < Desc.oc || I < Desc.ic)
    std::fill(Out, Out + Alpha * Alpha * Desc.ic * Desc.oc, 0.f);
  // Both layouts order a, b (the tile position), then a chunk of output
  // channel blocks, an input channel block, an input channel, an output
  // channel block of the chunk, an output channel; aaOBiOo puts Oc2 output
  // blocks in a chunk, aaOio one.
  const int64_t OcChunks = NbOc / Oc2, ChunkSize = Oc2 * Icb * Ocb;
  std::vector<float> Taps(size_t(R * R * O)), T(size_t(R * Alpha * O)),
      U(size_t(Alpha * Alpha * O));
  for (int64_t Ic = 0; Ic < I; ++Ic) {
    for (int64_t Oc = 0; Oc < O; ++Oc)
      for (int K = 0; K < R * R; ++K)
        Taps[size_t(K * O + Oc)] = W[(Oc * R * R + K) * I + Ic];
    transformKernels(O, Taps.data(), T.data(), U.data());
    for (int A = 0; A < Alpha; ++A)
      for (int B = 0; B < Alpha; ++B)
        for (int64_t Ob = 0; Ob * Ocb < O; ++Ob) {
          int64_t Chunk = ((A * Alpha + B) * OcChunks + Ob / Oc2) * NbIc +
                          Ic / Icb;
          const float *From = U.data() + (A * Alpha + B) * O + Ob * Ocb;
          std::copy(From, From + std::min(Ocb, O - Ob * Ocb),
                    Out + Chunk * ChunkSize +
                        ((Ic % Icb) * Oc2 + Ob % Oc2) * Ocb);
        }
  }
  return true;
}

} // namespace kiln::rt

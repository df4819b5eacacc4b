// The kernel of PanelConv.h. The output channels go in panels of Block
// (the weights' blocking), each accumulated in a Pixels x Block buffer that
// stays in L1; the reduction (kh, kw, input channel) goes in chunks of at
// most ChunkBytes of weights. For each chunk, every group of Rows pixels is
// a register tile of Rows x Block sums (24 vector registers), fed one input
// value (broadcast) and one row of the chunk at a time, while the chunk
// stays in L1 and L2. Pixels outside the input read a row of zeros; which
// input pixel each tap reads is worked out once per run. While
// the tiles of a chunk run, they prefetch the chunk two ahead into L2,
// spread evenly over the chunk's steps: the stream from memory then
// overlaps the arithmetic, which the hardware prefetchers alone did not do
// (measured much slower without the prefetches on 2048 -> 512 at 7x7 with
// the weights rotated out of cache; docs/benchmarks.md has the figures).
#include "cpu/panel/PanelConv.h"

#include "RoundUp.h"

#include <algorithm>
#include <utility>

#if defined(__x86_64__)
#include <immintrin.h>
#define KILN_AVX512 __attribute__((target("avx512f")))
#endif

namespace kiln::rt {

namespace {

constexpr int64_t MaxPixels = 64, MinWeightBytes = int64_t(1) << 20;
/// The weights of one chunk: 32 KiB. Measured against 8-128 KiB on the
/// benchmark machine (48 KiB of L1, 2 MiB of L2 per core), in 48-channel
/// panels on 2048 -> 512 at 7x7, 32 KiB was the fastest, with smaller and
/// larger chunks slower; docs/benchmarks.md has the figures.
constexpr int64_t ChunkBytes = 32 << 10;
constexpr int64_t AheadChunks = 2;

} // namespace

namespace {

/// The parts of runPanelConv's working memory, in order: the panel's sums,
/// a row of zeros as long as an input pixel, and the input row each tap
/// reads for each output pixel.
uint64_t sumsBytes(const PanelConvProblem &P) {
  return roundUp(uint64_t(P.OH * P.OW * P.Block) * sizeof(float), 64);
}
uint64_t zerosBytes(const PanelConvProblem &P) {
  return roundUp(uint64_t(P.IC) * sizeof(float), 64);
}
uint64_t rowsBytes(const PanelConvProblem &P) {
  return roundUp(uint64_t(P.KH * P.KW * P.OH * P.OW) * sizeof(float *), 64);
}

} // namespace

size_t panelConvScratchBytes(const PanelConvProblem &P) {
  return sumsBytes(P) + zerosBytes(P) + rowsBytes(P);
}

bool panelConvPrefers(const PanelConvProblem &P) {
  int64_t WeightBytes =
      P.KH * P.KW * P.IC * P.OC * int64_t(sizeof(float));
  return P.OH * P.OW <= MaxPixels && WeightBytes > MinWeightBytes;
}

#if defined(__x86_64__)

bool panelConvAvailable() { return __builtin_cpu_supports("avx512f"); }

namespace {

/// Where a tile's prefetches go: the address of the next line to ask for,
/// the end of the weights (addresses as integers: the next line may lie
/// past the end), and the error term spreading Lanes lines per step over
/// Tiles tiles.
struct Prefetcher {
  uintptr_t Next, End;
  int64_t Lanes, Tiles, Error = 0;
};

/// Rows pixels (input rows In[r], from channel C0, the chunk's first) times
/// the chunk's Steps x (16 * Lanes) weights, added to the sums at Sums (16 *
/// Lanes floats per pixel), or written there when First.
template <int Lanes, int Rows>
KILN_AVX512 void tile(const float *const *In, int64_t C0, const float *Chunk,
                      int64_t Steps, float *Sums, bool First,
                      Prefetcher &Ahead) {
  constexpr int64_t Width = 16 * Lanes;
  __m512 Acc[Rows][Lanes];
#pragma GCC unroll 24
  for (int R = 0; R < Rows; ++R)
#pragma GCC unroll 4
    for (int L = 0; L < Lanes; ++L)
      Acc[R][L] = First ? _mm512_setzero_ps()
                        : _mm512_load_ps(Sums + R * Width + 16 * L);
  uintptr_t Next = Ahead.Next;
  int64_t Error = Ahead.Error;
  for (int64_t K = 0; K < Steps; ++K) {
    Error += Ahead.Lanes;
    while (Error >= Ahead.Tiles) {
      Error -= Ahead.Tiles;
      if (Next < Ahead.End)
        _mm_prefetch(reinterpret_cast<const char *>(Next), _MM_HINT_T1);
      Next += 64;
    }
    __m512 W[Lanes];
#pragma GCC unroll 4
    for (int L = 0; L < Lanes; ++L)
      W[L] = _mm512_loadu_ps(Chunk + K * Width + 16 * L);
#pragma GCC unroll 24
    for (int R = 0; R < Rows; ++R) {
      __m512 V = _mm512_set1_ps(In[R][C0 + K]);
#pragma GCC unroll 4
      for (int L = 0; L < Lanes; ++L)
        Acc[R][L] = _mm512_fmadd_ps(V, W[L], Acc[R][L]);
    }
  }
  Ahead.Next = Next;
  Ahead.Error = Error;
#pragma GCC unroll 24
  for (int R = 0; R < Rows; ++R)
#pragma GCC unroll 4
    for (int L = 0; L < Lanes; ++L)
      _mm512_store_ps(Sums + R * Width + 16 * L, Acc[R][L]);
}

template <int Lanes> constexpr int FullRows = 24 / Lanes;

using TileFn = void (*)(const float *const *, int64_t, const float *,
                        int64_t, float *, bool, Prefetcher &);

template <int Lanes, int... Rows>
constexpr TileFn tileFor(int N, std::integer_sequence<int, Rows...>) {
  TileFn Table[] = {tile<Lanes, Rows + 1>...};
  return Table[N - 1];
}

/// The tile kernel for N pixels (1 <= N <= FullRows<Lanes>).
template <int Lanes> TileFn tileFor(int N) {
  return tileFor<Lanes>(N, std::make_integer_sequence<int, FullRows<Lanes>>());
}

/// The bias, activation and residual add of one panel's Width channels from
/// channel C0 (Count of them real), from Sums into Y.
KILN_AVX512 void finishPanel(const PanelConvProblem &P, const float *Sums,
                             int64_t Width, int64_t C0, int64_t Count) {
  const int64_t Pixels = P.OH * P.OW;
  const __m512 Lo = _mm512_set1_ps(P.Min), Hi = _mm512_set1_ps(P.Max),
               AddLo = _mm512_set1_ps(P.AddMin),
               AddHi = _mm512_set1_ps(P.AddMax);
  for (int64_t C = 0; C < Count; C += 16) {
    const __mmask16 Mask =
        __mmask16(Count - C >= 16 ? 0xFFFF : (1u << (Count - C)) - 1);
    const __m512 B = P.Bias ? _mm512_maskz_loadu_ps(Mask, P.Bias + C0 + C)
                            : _mm512_setzero_ps();
    for (int64_t M = 0; M < Pixels; ++M) {
      __m512 V = _mm512_add_ps(_mm512_load_ps(Sums + M * Width + C), B);
      V = _mm512_min_ps(_mm512_max_ps(V, Lo), Hi);
      float *Out = P.Y + M * P.OC + C0 + C;
      if (P.Add) {
        V = _mm512_add_ps(V, _mm512_maskz_loadu_ps(Mask, Out));
        V = _mm512_min_ps(_mm512_max_ps(V, AddLo), AddHi);
      }
      _mm512_mask_storeu_ps(Out, Mask, V);
    }
  }
}

/// Rows[t * Pixels + m]: the input pixel that tap t (kh * KW + kw) reads
/// for output pixel m, or Zeros where that lies in the padding.
void tapRows(const PanelConvProblem &P, const float *Zeros,
             const float **Rows) {
  for (int64_t Ky = 0; Ky < P.KH; ++Ky)
    for (int64_t Kx = 0; Kx < P.KW; ++Kx)
      for (int64_t Oy = 0; Oy < P.OH; ++Oy)
        for (int64_t Ox = 0; Ox < P.OW; ++Ox) {
          const int64_t Iy = Oy * P.StrideH - P.PadTop + Ky,
                        Ix = Ox * P.StrideW - P.PadLeft + Kx;
          *Rows++ = Iy >= 0 && Iy < P.IH && Ix >= 0 && Ix < P.IW
                        ? P.X + (Iy * P.IW + Ix) * P.IC
                        : Zeros;
        }
}

template <int Lanes>
KILN_AVX512 void run(const PanelConvProblem &P, float *Sums,
                     const float *const *TapRows) {
  constexpr int64_t Width = 16 * Lanes, Rows = FullRows<Lanes>;
  const int64_t Pixels = P.OH * P.OW, Tiles = (Pixels + Rows - 1) / Rows;
  const int64_t MaxSteps = ChunkBytes / int64_t(sizeof(float)) / Width;
  const int64_t PanelFloats = P.KH * P.KW * P.IC * Width;
  const int64_t Panels = (P.OC + Width - 1) / Width;
  const uintptr_t WeightsEnd =
      reinterpret_cast<uintptr_t>(P.Weights + Panels * PanelFloats);
  for (int64_t Panel = 0; Panel < Panels; ++Panel) {
    const float *PanelWeights = P.Weights + Panel * PanelFloats;
    bool First = true;
    for (int64_t Tap = 0; Tap < P.KH * P.KW; ++Tap)
      for (int64_t C0 = 0; C0 < P.IC; C0 += MaxSteps) {
        const int64_t Steps = std::min(MaxSteps, P.IC - C0);
        const float *Chunk = PanelWeights + (Tap * P.IC + C0) * Width;
        Prefetcher Ahead{reinterpret_cast<uintptr_t>(Chunk) +
                             AheadChunks * MaxSteps * Width * sizeof(float),
                         WeightsEnd, Lanes, Tiles};
        for (int64_t M0 = 0; M0 < Pixels; M0 += Rows)
          tileFor<Lanes>(int(std::min(Rows, Pixels - M0)))(
              TapRows + Tap * Pixels + M0, C0, Chunk, Steps,
              Sums + M0 * Width, First, Ahead);
        First = false;
      }
    finishPanel(P, Sums, Width, Panel * Width,
                std::min(Width, P.OC - Panel * Width));
  }
}

} // namespace

void runPanelConv(const PanelConvProblem &P, void *Scratch) {
  auto *Bytes = static_cast<uint8_t *>(Scratch);
  float *Sums = reinterpret_cast<float *>(Bytes);
  float *Zeros = reinterpret_cast<float *>(Bytes + sumsBytes(P));
  auto **TapRows = reinterpret_cast<const float **>(Bytes + sumsBytes(P) +
                                                    zerosBytes(P));
  std::fill(Zeros, Zeros + P.IC, 0.f);
  tapRows(P, Zeros, TapRows);
  switch (P.Block) {
  case 16: return run<1>(P, Sums, TapRows);
  case 32: return run<2>(P, Sums, TapRows);
  case 48: return run<3>(P, Sums, TapRows);
  case 64: return run<4>(P, Sums, TapRows);
  default: return;
  }
}

#else

bool panelConvAvailable() { return false; }
void runPanelConv(const PanelConvProblem &, void *) {}

#endif

} // namespace kiln::rt

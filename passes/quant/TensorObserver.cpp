#include "passes/quant/TensorObserver.h"

#include "IR/FloatFormat.h"
#include "Support/Error.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define KILN_OBSERVER_AVX2 1
#endif

namespace kiln {

bool TensorObserver::validBinCount(uint64_t Bins) {
  return Bins >= MinBins && Bins <= MaxBins && (Bins & (Bins - 1)) == 0;
}

TensorObserver::TensorObserver(uint32_t Bins) : Counts(Bins, 0), NumBins(Bins) {
  while ((uint32_t(1) << Log2Bins) < Bins)
    ++Log2Bins;
}

std::vector<uint64_t> TensorObserver::counts() const {
  if (!IsSparse)
    return Counts;
  std::vector<uint64_t> Dense(NumBins, 0);
  for (const auto &[Bin, Count] : Sparse)
    Dense[Bin] = Count;
  return Dense;
}

uint32_t TensorObserver::usedBins() const {
  if (IsSparse)
    return uint32_t(Sparse.size());
  return uint32_t(std::count_if(Counts.begin(), Counts.end(),
                                [](uint64_t C) { return C != 0; }));
}

void TensorObserver::makeDense() {
  if (!IsSparse)
    return;
  Counts = counts();
  Sparse.clear();
  Sparse.shrink_to_fit();
  IsSparse = false;
}

int64_t TensorObserver::binOf(double V) const {
  // As observe bins it: floor(x * Bins / 2^(E+1)) + Bins/2, exact in double.
  return int64_t(std::floor(V * std::ldexp(1.0, Log2Bins - 1 - Exponent))) +
         int64_t(NumBins / 2);
}

int32_t rangeExponentFor(double AbsMax) {
  if (!(AbsMax > 0))
    return TensorObserver::MinExponent;
  int E = 0;
  std::frexp(AbsMax, &E); // AbsMax = m * 2^E, m in [0.5, 1): AbsMax < 2^E
  return std::max<int32_t>(TensorObserver::MinExponent, E);
}

double TensorObserver::binWidth() const {
  return std::ldexp(1.0, Exponent + 1 - Log2Bins);
}

double TensorObserver::binEdge(int64_t I) const {
  return double(I - int64_t(bins() / 2)) * binWidth();
}

void TensorObserver::widenTo(int32_t E) {
  if (E <= Exponent)
    return;
  // Each doubling folds pairs of bins towards the middle: the bin at offset
  // k from the middle goes to floor(k / 2). Steps doublings at once send it to
  // floor(k / 2^Steps), an arithmetic shift; after Log2Bins + 1 doublings
  // nothing moves any more. With no counts yet (the first observation)
  // there is nothing to fold.
  const int Steps = std::min(E - Exponent, Log2Bins + 1);
  Exponent = E;
  const int64_t Half = int64_t(bins() / 2);
  if (IsSparse) {
    // The same fold on the non-zero bins: it keeps their order, so equal
    // destinations are neighbours.
    std::vector<BinCount> Wider;
    for (const auto &[Bin, Count] : Sparse) {
      uint32_t To = uint32_t(((int64_t(Bin) - Half) >> Steps) + Half);
      if (!Wider.empty() && Wider.back().first == To)
        Wider.back().second += Count;
      else
        Wider.push_back({To, Count});
    }
    Sparse.swap(Wider);
    return;
  }
  if (std::all_of(Counts.begin(), Counts.end(),
                  [](uint64_t C) { return C == 0; }))
    return;
  std::vector<uint64_t> Wider(Counts.size(), 0);
  for (int64_t I = 0; I < int64_t(Counts.size()); ++I)
    Wider[size_t(((I - Half) >> Steps) + Half)] += Counts[size_t(I)];
  Counts.swap(Wider);
}

namespace {
/// The float's bits as an int32 whose integer order is the float order, with
/// -0 below +0: min and max then depend on the values only, never on the
/// order they came in (the order varies with threads and shards).
inline int32_t orderedKey(float V) {
  int32_t B;
  std::memcpy(&B, &V, sizeof B);
  return B ^ ((B >> 31) & 0x7fffffff);
}

inline float fromOrderedKey(int32_t K) {
  int32_t B = K ^ ((K >> 31) & 0x7fffffff);
  float V;
  std::memcpy(&V, &B, sizeof V);
  return V;
}

inline float orderedMin(float A, float B) {
  return orderedKey(B) < orderedKey(A) ? B : A;
}
inline float orderedMax(float A, float B) {
  return orderedKey(B) > orderedKey(A) ? B : A;
}

/// Folds the lanes the vector loops kept (minimum keys L, maximum keys H,
/// and non-finite counts C unless null) into Lo, Hi and Bad.
inline void foldLanes(int Lanes, const int32_t *L, const int32_t *H,
                      const int32_t *C, int32_t &Lo, int32_t &Hi,
                      uint32_t &Bad) {
  for (int J = 0; J < Lanes; ++J) {
    Lo = std::min(Lo, L[J]);
    Hi = std::max(Hi, H[J]);
    if (C)
      Bad += uint32_t(C[J]);
  }
}

#ifdef KILN_OBSERVER_AVX2
// AVX2 and AVX-512 versions of the two loops, chosen at run time: the same
// integer compares and the same exact float products as the portable code,
// eight or sixteen lanes at a time, so the statistics are bit for bit the
// same.
TensorObserver::VectorPath Path = TensorObserver::VectorPath::Best;

bool hasAvx2() {
  static const bool Has = __builtin_cpu_supports("avx2");
  return Has && Path != TensorObserver::VectorPath::Sse2;
}

/// Folds Data[I, End) eight at a time into the min/max keys and the
/// non-finite count; returns where it stopped.
__attribute__((target("avx2"))) size_t
scanAvx2(const float *Data, size_t I, size_t End, int32_t &Lo, int32_t &Hi,
         uint32_t &Bad) {
  const __m256i Abs = _mm256_set1_epi32(0x7fffffff);
  const __m256i ExpBits = _mm256_set1_epi32(0x7f800000);
  const __m256i Top = _mm256_set1_epi32(INT32_MAX);
  const __m256i Bottom = _mm256_set1_epi32(INT32_MIN);
  __m256i VLo = Top, VHi = Bottom, VBad = _mm256_setzero_si256();
  for (; I + 8 <= End; I += 8) {
    __m256i B =
        _mm256_loadu_si256(reinterpret_cast<const __m256i *>(Data + I));
    __m256i K = _mm256_xor_si256(B, _mm256_and_si256(_mm256_srai_epi32(B, 31), Abs));
    __m256i Bad8 = _mm256_cmpeq_epi32(_mm256_and_si256(B, ExpBits), ExpBits);
    VLo = _mm256_min_epi32(VLo, _mm256_blendv_epi8(K, Top, Bad8));
    VHi = _mm256_max_epi32(VHi, _mm256_blendv_epi8(K, Bottom, Bad8));
    VBad = _mm256_sub_epi32(VBad, Bad8);
  }
  alignas(32) int32_t L[8], H[8], C[8];
  _mm256_store_si256(reinterpret_cast<__m256i *>(L), VLo);
  _mm256_store_si256(reinterpret_cast<__m256i *>(H), VHi);
  _mm256_store_si256(reinterpret_cast<__m256i *>(C), VBad);
  foldLanes(8, L, H, C, Lo, Hi, Bad);
  return I;
}

/// For each 8-lane mask, the lanes that are set, packed to the front: the
/// permutation that drops the zeros' bins.
struct PackTable {
  alignas(8) uint8_t Lanes[256][8] = {};
  PackTable() {
    for (int M = 0; M < 256; ++M)
      for (int L = 0, K = 0; L < 8; ++L)
        if (M >> L & 1)
          Lanes[M][K++] = uint8_t(L);
  }
};

/// computeBins for float scales, eight at a time: the bins of the non-zero
/// values, packed, and the count of zeros (after a ReLU often half the
/// values; they all fall in the middle bin, counted once at the end).
/// Returns the values it read; *Written gets the bins it wrote.
__attribute__((target("avx2"))) size_t
binsAvx2(const float *Data, size_t Len, float Scale, int32_t Half,
         int32_t *Bin, size_t *Written, uint64_t &Zeros) {
  static const PackTable Pack;
  const __m256 S = _mm256_set1_ps(Scale);
  const __m256i H = _mm256_set1_epi32(Half);
  size_t I = 0, Out = 0;
  for (; I + 8 <= Len; I += 8) {
    __m256 P = _mm256_mul_ps(_mm256_loadu_ps(Data + I), S);
    __m256i T = _mm256_cvttps_epi32(P); // toward zero; floor below:
    __m256i Below = _mm256_castps_si256(
        _mm256_cmp_ps(P, _mm256_cvtepi32_ps(T), _CMP_LT_OQ)); // -1 or 0
    __m256i B = _mm256_add_epi32(_mm256_add_epi32(T, Below), H);
    int Zero = _mm256_movemask_ps(_mm256_cmp_ps(P, _mm256_setzero_ps(), _CMP_EQ_OQ));
    int Keep = ~Zero & 0xff;
    __m256i Perm = _mm256_cvtepu8_epi32(
        _mm_loadl_epi64(reinterpret_cast<const __m128i *>(Pack.Lanes[Keep])));
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(Bin + Out),
                        _mm256_permutevar8x32_epi32(B, Perm));
    Out += size_t(__builtin_popcount(unsigned(Keep)));
    Zeros += uint64_t(__builtin_popcount(unsigned(Zero)));
  }
  *Written = Out;
  return I;
}
#endif

bool hasAvx512() {
  static const bool Has = __builtin_cpu_supports("avx512f");
  return Has && Path == TensorObserver::VectorPath::Best;
}

/// scanAvx2, sixteen lanes at a time.
__attribute__((target("avx512f"))) size_t
scanAvx512(const float *Data, size_t I, size_t End, int32_t &Lo, int32_t &Hi,
           uint32_t &Bad) {
  const __m512i Abs = _mm512_set1_epi32(0x7fffffff);
  const __m512i ExpBits = _mm512_set1_epi32(0x7f800000);
  __m512i VLo = _mm512_set1_epi32(INT32_MAX), VHi = _mm512_set1_epi32(INT32_MIN);
  uint32_t Count = 0;
  for (; I + 16 <= End; I += 16) {
    __m512i B = _mm512_loadu_si512(Data + I);
    __m512i K = _mm512_xor_si512(B, _mm512_and_si512(_mm512_srai_epi32(B, 31), Abs));
    __mmask16 Bad16 =
        _mm512_cmpeq_epi32_mask(_mm512_and_si512(B, ExpBits), ExpBits);
    VLo = _mm512_mask_min_epi32(VLo, __mmask16(~Bad16), VLo, K);
    VHi = _mm512_mask_max_epi32(VHi, __mmask16(~Bad16), VHi, K);
    Count += uint32_t(__builtin_popcount(unsigned(Bad16)));
  }
  alignas(64) int32_t L[16], H[16];
  _mm512_store_si512(L, VLo);
  _mm512_store_si512(H, VHi);
  foldLanes(16, L, H, nullptr, Lo, Hi, Bad);
  Bad += Count;
  return I;
}

/// binsAvx2, sixteen lanes at a time, packing with a compress.
__attribute__((target("avx512f"))) size_t
binsAvx512(const float *Data, size_t Len, float Scale, int32_t Half,
           int32_t *Bin, size_t *Written, uint64_t &Zeros) {
  const __m512 S = _mm512_set1_ps(Scale);
  const __m512i H = _mm512_set1_epi32(Half), One = _mm512_set1_epi32(1);
  size_t I = 0, Out = 0;
  for (; I + 16 <= Len; I += 16) {
    __m512 P = _mm512_mul_ps(_mm512_loadu_ps(Data + I), S);
    __m512i T = _mm512_cvttps_epi32(P); // toward zero; floor below:
    __mmask16 Below = _mm512_cmp_ps_mask(P, _mm512_cvtepi32_ps(T), _CMP_LT_OQ);
    __m512i B = _mm512_add_epi32(_mm512_mask_sub_epi32(T, Below, T, One), H);
    __mmask16 Zero = _mm512_cmp_ps_mask(P, _mm512_setzero_ps(), _CMP_EQ_OQ);
    _mm512_storeu_si512(Bin + Out,
                        _mm512_maskz_compress_epi32(__mmask16(~Zero), B));
    Out += size_t(16 - __builtin_popcount(unsigned(Zero)));
    Zeros += uint64_t(__builtin_popcount(unsigned(Zero)));
  }
  *Written = Out;
  return I;
}

/// The bins floor(x * Scale) + Half of Len <= 256 finite values, into Bin
/// (room for Len + 16); returns how many it wrote. Zeros may be left out and
/// counted in Zeros instead (their bin is Half).
template <typename F>
size_t computeBins(const float *Data, size_t Len, F Scale, int32_t Half,
                   int32_t *Bin, uint64_t &Zeros) {
  size_t Start = 0, Out = 0;
#ifdef KILN_OBSERVER_AVX2
  if constexpr (std::is_same_v<F, float>)
    Start = hasAvx512() ? binsAvx512(Data, Len, Scale, Half, Bin, &Out, Zeros)
            : hasAvx2() ? binsAvx2(Data, Len, Scale, Half, Bin, &Out, Zeros)
                        : 0;
#endif
  for (size_t I = Start; I < Len; ++I) {
    F P = F(Data[I]) * Scale; // |P| < Half: fits an int32
    int32_t T = int32_t(P);   // toward zero; floor below:
    Bin[Out++] = T - (P < F(T) ? 1 : 0) + Half;
  }
  return Out;
}

/// Min and max keys of the finite values, and the count of the others:
/// integer compares, four lanes at a time where SSE2 is there (the compiler
/// does not vectorize the select of a sentinel for non-finite values).
struct Scan {
  int32_t Lo = INT32_MAX, Hi = INT32_MIN;
  uint64_t NonFinite = 0;
};
Scan scanValues(const float *Data, size_t N) {
  Scan S;
  constexpr size_t Chunk = size_t(1) << 24; // keeps the 32-bit counts exact
  for (size_t C = 0; C < N; C += Chunk) {
    const size_t End = std::min(N, C + Chunk);
    int32_t Lo = S.Lo, Hi = S.Hi;
    uint32_t Bad = 0;
    size_t I = C;
#ifdef KILN_OBSERVER_AVX2
    if (hasAvx512())
      I = scanAvx512(Data, I, End, Lo, Hi, Bad);
    else if (hasAvx2())
      I = scanAvx2(Data, I, End, Lo, Hi, Bad);
#endif
#if defined(__SSE2__)
    const __m128i Abs = _mm_set1_epi32(0x7fffffff);
    const __m128i ExpBits = _mm_set1_epi32(0x7f800000);
    const __m128i Top = _mm_set1_epi32(INT32_MAX);
    const __m128i Bottom = _mm_set1_epi32(INT32_MIN);
    __m128i VLo = Top, VHi = Bottom, VBad = _mm_setzero_si128();
    for (; I + 4 <= End; I += 4) {
      __m128i B = _mm_loadu_si128(reinterpret_cast<const __m128i *>(Data + I));
      __m128i K = _mm_xor_si128(B, _mm_and_si128(_mm_srai_epi32(B, 31), Abs));
      __m128i Bad4 = _mm_cmpeq_epi32(_mm_and_si128(B, ExpBits), ExpBits);
      __m128i KLo = _mm_or_si128(_mm_andnot_si128(Bad4, K),
                                 _mm_and_si128(Bad4, Top));
      __m128i KHi = _mm_or_si128(_mm_andnot_si128(Bad4, K),
                                 _mm_and_si128(Bad4, Bottom));
      __m128i Less = _mm_cmplt_epi32(KLo, VLo);
      VLo = _mm_or_si128(_mm_and_si128(Less, KLo), _mm_andnot_si128(Less, VLo));
      __m128i More = _mm_cmpgt_epi32(KHi, VHi);
      VHi = _mm_or_si128(_mm_and_si128(More, KHi), _mm_andnot_si128(More, VHi));
      VBad = _mm_sub_epi32(VBad, Bad4); // Bad4 lanes are -1 or 0
    }
    alignas(16) int32_t L[4], H[4], Cnt[4];
    _mm_store_si128(reinterpret_cast<__m128i *>(L), VLo);
    _mm_store_si128(reinterpret_cast<__m128i *>(H), VHi);
    _mm_store_si128(reinterpret_cast<__m128i *>(Cnt), VBad);
    foldLanes(4, L, H, Cnt, Lo, Hi, Bad);
#endif
    for (; I < End; ++I) {
      int32_t B;
      std::memcpy(&B, Data + I, sizeof B);
      int32_t K = B ^ ((B >> 31) & 0x7fffffff);
      bool Finite = (B & 0x7f800000) != 0x7f800000;
      Lo = std::min(Lo, Finite ? K : INT32_MAX);
      Hi = std::max(Hi, Finite ? K : INT32_MIN);
      Bad += Finite ? 0u : 1u;
    }
    S.Lo = Lo;
    S.Hi = Hi;
    S.NonFinite += Bad;
  }
  return S;
}

/// Adds finite values to the histogram: bin floor(x * Scale) + Half, with
/// x * Scale exact in F (see observe). Bin numbers are computed a block at a
/// time (vectorized; zeros counted apart), then counted. Long arrays count
/// into four partial
/// histograms in turn (kept per thread, zero between calls): a run of equal
/// values then does not make every increment wait for the previous one to
/// the same counter.
template <typename F>
void binFinite(const float *Data, size_t N, F Scale, int32_t Half,
               std::vector<uint64_t> &Counts) {
  constexpr size_t Block = 256;
  const size_t Bins = Counts.size();
  int32_t Bin[Block + 16];
  uint64_t *C = Counts.data();
  uint64_t Zeros = 0;
  if (N < 4 * Bins) {
    for (size_t B = 0; B < N; B += Block) {
      const size_t Len = std::min(Block, N - B);
      const size_t Written = computeBins(Data + B, Len, Scale, Half, Bin, Zeros);
      for (size_t I = 0; I < Written; ++I)
        ++C[Bin[I]];
    }
    C[Half] += Zeros;
    return;
  }
  thread_local std::vector<uint32_t> Parts;
  if (Parts.size() < 4 * Bins)
    Parts.assign(4 * Bins, 0);
  uint32_t *P0 = Parts.data(), *P1 = P0 + Bins, *P2 = P1 + Bins,
           *P3 = P2 + Bins;
  auto Flush = [&] {
    for (size_t I = 0; I < Bins; ++I) {
      C[I] += uint64_t(P0[I]) + P1[I] + P2[I] + P3[I];
      P0[I] = P1[I] = P2[I] = P3[I] = 0;
    }
  };
  size_t SinceFlush = 0;
  for (size_t B = 0; B < N; B += Block) {
    const size_t Len = std::min(Block, N - B);
    const size_t Written = computeBins(Data + B, Len, Scale, Half, Bin, Zeros);
    size_t I = 0;
    for (; I + 4 <= Written; I += 4) {
      ++P0[Bin[I]];
      ++P1[Bin[I + 1]];
      ++P2[Bin[I + 2]];
      ++P3[Bin[I + 3]];
    }
    for (; I < Written; ++I)
      ++P0[Bin[I]];
    if ((SinceFlush += Len) >= (size_t(1) << 31)) { // 32-bit counters
      Flush();
      SinceFlush = 0;
    }
  }
  Flush();
  C[Half] += Zeros;
}
} // namespace

void TensorObserver::setVectorPath(VectorPath P) {
#ifdef KILN_OBSERVER_AVX2
  Path = P;
#else
  (void)P;
#endif
}

void TensorObserver::observe(const float *Data, size_t N) {
  makeDense();
  Scan S = scanValues(Data, N);
  NonFinite += S.NonFinite;
  if (N == S.NonFinite)
    return;
  float Lo = fromOrderedKey(S.Lo), Hi = fromOrderedKey(S.Hi);
  if (Finite == 0) {
    Min = Lo;
    Max = Hi;
  } else {
    Min = orderedMin(Min, Lo);
    Max = orderedMax(Max, Hi);
  }
  Finite += N - S.NonFinite;
  widenTo(rangeExponentFor(std::max(std::fabs(double(Lo)), std::fabs(double(Hi)))));
  // x * 2^(Log2Bins - 1 - E) is exact in double for every float x: the
  // factor is a power of two between 2^-118 and 2^143, so the product stays
  // a normal double with x's 24-bit significand. When the factor is >= 1 the
  // product is exact in float too (|x| < 2^E keeps it below 2^(Log2Bins-1),
  // and scaling a subnormal up only shifts its bits); below 1 it could
  // underflow in float, and above 2^127 it is not a float: double then. The
  // bin is the floor, computed before Half is added: a tiny negative x plus
  // Half would round up to Half.
  const int Shift = Log2Bins - 1 - Exponent;
  const int32_t Half = int32_t(bins() / 2);
  uint64_t *C = Counts.data();
  if (S.NonFinite == 0) {
    if (Shift >= 0 && Shift <= 127)
      binFinite(Data, N, std::ldexp(1.0f, Shift), Half, Counts);
    else
      binFinite(Data, N, std::ldexp(1.0, Shift), Half, Counts);
    return;
  }
  const double Scale = std::ldexp(1.0, Shift);
  for (size_t I = 0; I < N; ++I) {
    float V = Data[I];
    if (!std::isfinite(V))
      continue;
    C[size_t(int64_t(std::floor(double(V) * Scale)) + Half)] += 1;
  }
}

void TensorObserver::merge(const TensorObserver &O) {
  NonFinite += O.NonFinite;
  if (O.Finite == 0)
    return;
  if (Finite == 0) {
    Min = O.Min;
    Max = O.Max;
  } else {
    Min = orderedMin(Min, O.Min);
    Max = orderedMax(Max, O.Max);
  }
  Finite += O.Finite;
  TensorObserver Other = O;
  int32_t E = std::max(Exponent, O.Exponent);
  widenTo(E);
  Other.widenTo(E);
  if (IsSparse && Other.IsSparse) {
    // Shards read from files stay sparse: merge the two sorted lists.
    std::vector<BinCount> Sum;
    Sum.reserve(Sparse.size() + Other.Sparse.size());
    size_t I = 0, J = 0;
    while (I < Sparse.size() || J < Other.Sparse.size()) {
      if (J == Other.Sparse.size() ||
          (I < Sparse.size() && Sparse[I].first < Other.Sparse[J].first))
        Sum.push_back(Sparse[I++]);
      else if (I == Sparse.size() || Other.Sparse[J].first < Sparse[I].first)
        Sum.push_back(Other.Sparse[J++]);
      else {
        Sum.push_back({Sparse[I].first, Sparse[I].second + Other.Sparse[J].second});
        ++I;
        ++J;
      }
    }
    Sparse.swap(Sum);
    return;
  }
  makeDense();
  Other.forEachBin([&](uint32_t Bin, uint64_t Count) { Counts[Bin] += Count; });
}

bool TensorObserver::operator==(const TensorObserver &O) const {
  return NumBins == O.NumBins && counts() == O.counts() && Finite == O.Finite && NonFinite == O.NonFinite &&
         Exponent == O.Exponent && (Finite == 0 || (Min == O.Min && Max == O.Max));
}

llvm::Expected<TensorObserver>
TensorObserver::fromParts(uint32_t Bins, float Min, float Max, uint64_t Finite,
                          uint64_t NonFinite, int32_t Exponent,
                          std::vector<uint64_t> Counts) {
  if (Counts.size() != Bins)
    return inputError("histogram has {0} bins, not {1}", Counts.size(), Bins);
  std::vector<BinCount> Used;
  for (uint32_t I = 0; I < Bins; ++I)
    if (Counts[I])
      Used.push_back({I, Counts[I]});
  return fromParts(Bins, Min, Max, Finite, NonFinite, Exponent, std::move(Used));
}

llvm::Expected<TensorObserver>
TensorObserver::fromParts(uint32_t Bins, float Min, float Max, uint64_t Finite,
                          uint64_t NonFinite, int32_t Exponent,
                          std::vector<BinCount> Used) {
  if (!validBinCount(Bins))
    return inputError("histogram has {0} bins; expected a power of two in "
                      "[{1}, {2}]",
                      Bins, MinBins, MaxBins);
  if (Exponent < MinExponent || Exponent > MaxExponent)
    return inputError("histogram range exponent {0} is outside [{1}, {2}]",
                      Exponent, MinExponent, MaxExponent);
  uint64_t Sum = 0;
  int64_t Previous = -1;
  for (const auto &[Bin, Count] : Used) {
    if (int64_t(Bin) <= Previous || Bin >= Bins || Count == 0)
      return inputError("histogram entries must have increasing bins below "
                        "the bin count and non-zero counts");
    Previous = Bin;
    if (Count > std::numeric_limits<uint64_t>::max() - Sum)
      return inputError("histogram counts overflow");
    Sum += Count;
  }
  if (Sum != Finite)
    return inputError("histogram counts sum to {0}, but {1} values were "
                      "observed",
                      Sum, Finite);
  TensorObserver T(MinBins); // its dense counts are replaced below
  T.NumBins = Bins;
  T.Log2Bins = 0;
  while ((uint32_t(1) << T.Log2Bins) < Bins)
    ++T.Log2Bins;
  T.Exponent = Exponent;
  if (Finite > 0) {
    if (!std::isfinite(Min) || !std::isfinite(Max) || Min > Max)
      return inputError("min {0} / max {1} are not an ordered finite pair",
                        formatFloat(Min), formatFloat(Max));
    double AbsMax = std::max(std::fabs(double(Min)), std::fabs(double(Max)));
    if (rangeExponentFor(AbsMax) > Exponent)
      return inputError("histogram range 2^{0} does not hold max |x| = {1}",
                        Exponent, formatDouble(AbsMax));
    // The smallest and largest values were binned: their bins are the first
    // and last used ones.
    int64_t First = T.binOf(Min), Last = T.binOf(Max);
    if (int64_t(Used.front().first) != First || int64_t(Used.back().first) != Last)
      return inputError("the histogram's bins {0} to {1} do not match min {2} "
                        "and max {3} (bins {4} and {5})",
                        Used.front().first, Used.back().first,
                        formatFloat(Min), formatFloat(Max), First, Last);
  }
  T.Min = Finite ? Min : 0.f;
  T.Max = Finite ? Max : 0.f;
  T.Finite = Finite;
  T.NonFinite = NonFinite;
  T.Counts.clear();
  T.Counts.shrink_to_fit();
  T.Sparse = std::move(Used);
  T.IsSparse = true;
  return T;
}

} // namespace kiln

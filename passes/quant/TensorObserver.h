// What calibration records about one tensor: min, max and a fixed-size
// histogram, so memory never grows with the dataset, and two observers merge
// EXACTLY (the merged observer equals one that saw all the data, whatever the
// order or the split).
//
// The histogram covers [-2^E, 2^E) with Bins equal bins (Bins a power of
// two), E the smallest exponent with max|x| < 2^E. With those power-of-two
// edges, a value's bin is floor(x * Bins / 2^(E+1)) + Bins/2, an exact
// computation in double; and doubling the range maps bin i to
// floor((i - Bins/2) / 2) + Bins/2, which is exactly the bin the value would
// have had at the wider range. So re-binning when the range grows, and
// merging observers with different ranges, only add integer counts.
// Non-finite values (NaN, inf) are counted apart and never binned. Min and
// max order floats totally (-0 below +0), so they too are the same whatever
// order the values come in.
#pragma once

#include "llvm/Support/Error.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace kiln {

class TensorObserver {
public:
  static constexpr uint32_t DefaultBins = 2048;
  static constexpr uint32_t MinBins = 64;
  static constexpr uint32_t MaxBins = 65536;
  /// The smallest range exponent: ranges are never narrower than 2^-126.
  static constexpr int32_t MinExponent = -126;
  static constexpr int32_t MaxExponent = 128;

  /// Bins must be a power of two in [MinBins, MaxBins] (see validBinCount).
  explicit TensorObserver(uint32_t Bins = DefaultBins);
  static bool validBinCount(uint64_t Bins);

  void observe(const float *Data, size_t N);

  /// The vector code observe uses: the best this CPU has (the default), or
  /// a lower one (tests check that every path gives the same observer).
  enum class VectorPath { Best, Avx2, Sse2 };
  static void setVectorPath(VectorPath P);
  /// Adds O's data; O must have the same bin count.
  void merge(const TensorObserver &O);

  uint32_t bins() const { return NumBins; }
  /// Finite values seen.
  uint64_t count() const { return Finite; }
  uint64_t nonFiniteCount() const { return NonFinite; }
  /// Smallest and largest finite value (0 when count() is 0); -0 counts as
  /// below +0.
  float min() const { return Min; }
  float max() const { return Max; }
  /// The histogram covers [-2^exponent, 2^exponent).
  int32_t exponent() const { return Exponent; }
  double binWidth() const;
  /// Lower edge of bin I (I may be bins(): the upper edge of the last bin).
  double binEdge(int64_t I) const;
  /// Every bin's count (bins() of them, built for the call).
  std::vector<uint64_t> counts() const;
  /// Calls F(bin, count) for each non-zero bin, in increasing bin order.
  template <typename Fn> void forEachBin(Fn &&F) const {
    if (IsSparse) {
      for (const auto &[Bin, Count] : Sparse)
        F(Bin, Count);
      return;
    }
    for (uint32_t I = 0; I < NumBins; ++I)
      if (Counts[I])
        F(I, Counts[I]);
  }
  /// Non-zero bins.
  uint32_t usedBins() const;

  using BinCount = std::pair<uint32_t, uint64_t>;
  /// Rebuilds an observer from its parts (a .kcal file) and checks that they
  /// are consistent: bins increasing and below Bins with non-zero counts
  /// summing to Finite, min <= max finite, the range holding max|x|, and
  /// the histogram agreeing with min and max (every used bin within their
  /// bins, and theirs used).
  static llvm::Expected<TensorObserver>
  fromParts(uint32_t Bins, float Min, float Max, uint64_t Finite,
            uint64_t NonFinite, int32_t Exponent, std::vector<BinCount> Used);
  /// The same from every bin's count (tests).
  static llvm::Expected<TensorObserver>
  fromParts(uint32_t Bins, float Min, float Max, uint64_t Finite,
            uint64_t NonFinite, int32_t Exponent, std::vector<uint64_t> Counts);

  bool operator==(const TensorObserver &O) const;

private:
  /// Re-bins to the range exponent E >= exponent().
  void widenTo(int32_t E);
  /// Turns a sparse observer dense (before it observes data).
  void makeDense();
  /// The bin finite value V falls in, at the current range.
  int64_t binOf(double V) const;

  std::vector<uint64_t> Counts;  // dense: bins() counts, when !IsSparse
  std::vector<BinCount> Sparse;  // sparse: the non-zero bins, when IsSparse
  bool IsSparse = false;
  uint32_t NumBins = 0;
  float Min = 0, Max = 0;
  uint64_t Finite = 0, NonFinite = 0;
  int32_t Exponent = MinExponent;
  int Log2Bins = 0;
};

/// The smallest E >= MinExponent with |V| < 2^E.
int32_t rangeExponentFor(double AbsMax);

} // namespace kiln

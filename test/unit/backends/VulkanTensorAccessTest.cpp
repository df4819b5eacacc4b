// The generic kernels' operand addressing (backends/gpu/TensorAccess.h),
// checked by evaluating the spec constants the way kernels/tensor_access.glsl
// does and comparing with offsets computed by hand from the C4 and
// row-major layouts.
#include "backends/gpu/TensorAccess.h"

#include <catch2/catch.hpp>

using namespace kiln::vulkan;

namespace {

/// The shader's offset(p) for the operand whose constants start at Base.
int64_t offsetOf(const std::map<uint32_t, uint32_t> &Spec, uint32_t Base,
                 const std::array<int64_t, 6> &P) {
  auto Int = [&](uint32_t Id) { return int64_t(int32_t(Spec.at(Id))); };
  int64_t Blocked = Int(Base + 6), O = Int(Base + 9);
  for (int K = 0; K < 6; ++K)
    if (K != Blocked)
      O += P[size_t(K)] * Int(Base + uint32_t(K));
  if (Blocked < 6) {
    int64_t C = P[size_t(Blocked)] * Int(Base + 7) + Int(Base + 8);
    O += (C >> 2) * Int(Base + uint32_t(Blocked)) + (C & 3);
  }
  return O;
}

/// Hand-written C4 offset of [n, h, w, c] in dims [N, H, W, C].
int64_t c4Offset(int64_t N, int64_t H, int64_t W, int64_t C, int64_t n,
                 int64_t h, int64_t w, int64_t c) {
  (void)N;
  int64_t C4 = (C + 3) / 4;
  return (((n * C4 + c / 4) * H + h) * W + w) * 4 + c % 4;
}

} // namespace

TEST_CASE("C4 storage sizes pad channels to four", "[vulkan][access]") {
  Storage S{{2, 3, 5, 7}, true};
  CHECK(S.elements() == 2 * 3 * 5 * 8);
  CHECK(S.strides() == std::vector<int64_t>{2 * 3 * 5 * 4, 5 * 4, 4, 3 * 5 * 4});
  Storage P{{2, 3, 5, 7}, false};
  CHECK(P.elements() == 210);
  CHECK(P.strides() == std::vector<int64_t>{105, 35, 7, 1});
}

TEST_CASE("an NCHW input read into C4 order (the input transpose)",
          "[vulkan][access]") {
  // Domain = the C4 output [N, H, W, C]; the source is NCHW [N, C, H, W]
  // with perm [0, 2, 3, 1].
  Storage Src{{1, 6, 3, 5}, false}, Dst{{1, 3, 5, 6}, true};
  DomainDims Domain = domainOf(Dst.Dims);
  OperandMap S;
  S.Start.assign(4, 0);
  S.Axis = {-1, -1, 0, 2, 3, 1};
  OperandMap D = alignedMap(Dst, Domain);
  std::map<uint32_t, uint32_t> Spec;
  operandConstants(Src, S, 20, Spec);
  operandConstants(Dst, D, 40, Spec);
  for (int64_t h = 0; h < 3; ++h)
    for (int64_t w = 0; w < 5; ++w)
      for (int64_t c = 0; c < 6; ++c) {
        std::array<int64_t, 6> P{0, 0, 0, h, w, c};
        CHECK(offsetOf(Spec, 20, P) == (c * 3 + h) * 5 + w);
        CHECK(offsetOf(Spec, 40, P) == c4Offset(1, 3, 5, 6, 0, h, w, c));
      }
}

TEST_CASE("a channel slice with a start and step inside C4 blocks",
          "[vulkan][access]") {
  // Read channels 3, 5, 7 (start 3, step 2) of a C4 [1, 2, 2, 9].
  Storage Src{{1, 2, 2, 9}, true};
  DomainDims Domain{1, 1, 1, 2, 2, 3};
  OperandMap S = alignedMap(Src, Domain);
  S.Start = {0, 0, 0, 3};
  S.Step[5] = 2;
  std::map<uint32_t, uint32_t> Spec;
  operandConstants(Src, S, 20, Spec);
  for (int64_t h = 0; h < 2; ++h)
    for (int64_t w = 0; w < 2; ++w)
      for (int64_t k = 0; k < 3; ++k)
        CHECK(offsetOf(Spec, 20, {0, 0, 0, h, w, k}) ==
              c4Offset(1, 2, 2, 9, 0, h, w, 3 + 2 * k));
}

TEST_CASE("broadcast operands read with stride 0", "[vulkan][access]") {
  // [1, 1, 1, 5] (per-channel constant, PLAIN) against a [1, 4, 3, 5] domain.
  Storage Bias{{1, 1, 1, 5}, false};
  DomainDims Domain = domainOf({1, 4, 3, 5});
  std::map<uint32_t, uint32_t> Spec;
  operandConstants(Bias, alignedMap(Bias, Domain), 20, Spec);
  CHECK(offsetOf(Spec, 20, {0, 0, 0, 3, 2, 4}) == 4);
  CHECK(offsetOf(Spec, 20, {0, 0, 0, 1, 0, 2}) == 2);
  // A C4 [1, 4, 3, 1] (one channel, broadcast over 5) reads lane 0.
  Storage One{{1, 4, 3, 1}, true};
  std::map<uint32_t, uint32_t> Spec2;
  operandConstants(One, alignedMap(One, Domain), 20, Spec2);
  CHECK(offsetOf(Spec2, 20, {0, 0, 0, 2, 1, 3}) == c4Offset(1, 4, 3, 1, 0, 2, 1, 0));
}

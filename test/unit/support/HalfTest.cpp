// IEEE half and bfloat16 conversions against hand-derived bit patterns.
#include "IR/Tensor.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace kiln;

TEST_CASE("half conversions", "[support][half]") {
  CHECK(floatToHalf(1.0f) == 0x3c00);
  CHECK(floatToHalf(-2.0f) == 0xc000);
  CHECK(floatToHalf(65504.0f) == 0x7bff);      // largest half
  CHECK(floatToHalf(65520.0f) == 0x7c00);      // rounds up to inf
  CHECK(floatToHalf(5.9604645e-08f) == 0x0001); // smallest subnormal 2^-24
  CHECK(floatToHalf(1.0f + 1.0f / 2048) == 0x3c00); // tie -> even (down)
  CHECK(floatToHalf(1.0f + 3.0f / 2048) == 0x3c02); // tie -> even (up)
  CHECK(halfToFloat(0x3555) == Approx(0.333251953125f));
  CHECK(halfToFloat(0x0001) == std::ldexp(1.0f, -24));
  CHECK(std::isinf(halfToFloat(0xfc00)));
  CHECK(std::isnan(halfToFloat(floatToHalf(std::nanf("")))));
  for (uint32_t H = 0; H < 0x7c00; ++H) // every finite positive half
    REQUIRE(floatToHalf(halfToFloat(uint16_t(H))) == H);
}

TEST_CASE("bfloat16 conversions", "[support][half]") {
  CHECK(floatToBf16(1.0f) == 0x3f80);
  CHECK(floatToBf16(3.140625f) == 0x4049);
  CHECK(bf16ToFloat(0x4049) == 3.140625f);
  CHECK(floatToBf16(1.0f + 1.0f / 256) == 0x3f80); // tie -> even
  CHECK(std::isnan(bf16ToFloat(floatToBf16(std::nanf("")))));
}

// KilnTensorView: a runtime tensor as the IR sees it (toIrView) and back
// (fromIrView), on hand-computed NHWC and int8 cases.
#include "Tooling/KilnTensorView.h"

#include "kiln/kiln.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

using namespace kiln;

namespace {

/// Dims must outlive the value (info.shape points into it).
kiln_tensor_value valueOf(kiln_dtype Dtype, kiln_layout Layout,
                          const std::vector<int64_t> &Dims, const void *Data,
                          size_t Bytes) {
  kiln_tensor_value V;
  std::memset(&V, 0, sizeof V);
  V.info.dtype = Dtype;
  V.info.layout = Layout;
  V.info.rank = Dims.size();
  V.info.shape = Dims.data();
  V.info.byte_size = Bytes;
  V.data = Data;
  return V;
}

} // namespace

TEST_CASE("an NHWC f32 tensor reads as NCHW and writes back", "[tooling][view]") {
  // [1, 1, 2, 3] NHWC: pixel p, channel c holds 10 p + c.
  float Nhwc[6] = {0, 1, 2, 10, 11, 12};
  std::vector<int64_t> Dims{1, 1, 2, 3};
  kiln_tensor_value V =
      valueOf(KILN_DTYPE_F32, KILN_LAYOUT_NHWC, Dims, Nhwc, sizeof Nhwc);
  std::optional<Tensor> Ir = toIrView(V);
  REQUIRE(Ir);
  REQUIRE(Ir->type().Dims == Shape{Dim(1), Dim(3), Dim(1), Dim(2)});
  std::vector<double> Got;
  for (int64_t I = 0; I < Ir->numElements(); ++I)
    Got.push_back(Ir->asDouble(I));
  REQUIRE(Got == std::vector<double>{0, 10, 1, 11, 2, 12});
  std::optional<std::vector<uint8_t>> Back = fromIrView(*Ir, V);
  REQUIRE(Back);
  REQUIRE(std::memcmp(Back->data(), Nhwc, sizeof Nhwc) == 0);
  // Another IR shape with as many elements is not this tensor.
  Tensor Flat = Tensor::fromValues<float>(ElementType::F32, {Dim(6)},
                                          {0, 10, 1, 11, 2, 12});
  REQUIRE(!fromIrView(Flat, V));
}

TEST_CASE("int8 values are quantized with the tensor's scale and zero point, "
          "half to even, saturated",
          "[tooling][view]") {
  int8_t Stored[6] = {};
  float Scale = 0.5f;
  int64_t Zero = 3;
  std::vector<int64_t> Dims{2, 3};
  kiln_tensor_value V =
      valueOf(KILN_DTYPE_I8, KILN_LAYOUT_PLAIN, Dims, Stored, sizeof Stored);
  V.num_scales = 1;
  V.scales = &Scale;
  V.zero_points = &Zero;
  V.quant_axis = -1;
  // x / 0.5 + 3: 0 -> 3, 0.25 -> 0.5 -> 0 (even) -> 3, 0.75 -> 1.5 -> 2 -> 5,
  // -1 -> 1, 100 -> 203 -> 127, -100 -> -197 -> -128.
  Tensor Ir = Tensor::fromValues<float>(ElementType::F32, {Dim(2), Dim(3)},
                                        {0, 0.25f, 0.75f, -1, 100, -100});
  std::optional<std::vector<uint8_t>> Q = fromIrView(Ir, V);
  REQUIRE(Q);
  std::vector<int8_t> Got(Q->begin(), Q->end());
  REQUIRE(Got == std::vector<int8_t>{3, 3, 5, 1, 127, -128});
  // Read back: the grid values.
  std::memcpy(Stored, Q->data(), sizeof Stored);
  std::optional<Tensor> R = toIrView(V);
  REQUIRE(R);
  std::vector<double> Real;
  for (int64_t I = 0; I < R->numElements(); ++I)
    Real.push_back(R->asDouble(I));
  REQUIRE(Real == std::vector<double>{0, 0, 1, -1, 62, -65.5});
  // NaN takes the zero point; infinities saturate.
  Tensor Odd = Tensor::fromValues<float>(
      ElementType::F32, {Dim(2), Dim(3)},
      {std::nanf(""), INFINITY, -INFINITY, 0, 0, 0});
  Q = fromIrView(Odd, V);
  REQUIRE(Q);
  Got.assign(Q->begin(), Q->end());
  REQUIRE(Got == std::vector<int8_t>{3, 127, -128, 3, 3, 3});
  // A type the view cannot write (i32) is refused.
  V.info.dtype = KILN_DTYPE_I32;
  REQUIRE(!fromIrView(Ir, V));
}

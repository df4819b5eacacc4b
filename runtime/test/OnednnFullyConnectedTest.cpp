// oneDNN's f32 fully connected kernel (OnednnKernels.cpp): at one row over
// more than 1 MiB of weights it runs oneDNN's GEMV on the file's OI weights
// in place; smaller weights and more rows get a blocked copy for brgemm
// (AVX-512; GEMM's plain layout without it).
// Either way the outputs are the sum computed here in double.
#include "cpu/Kernel.h"
#include "KernelTestTensors.h"
#include "OnednnIsa.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

using namespace kiln;
using namespace kiln::rt;
using kiln::testing::f32Desc;
using kiln::testing::finishedOperator;
using kiln::testing::operand;
using kiln::testing::ramp;

namespace {

/// y = relu(x W^T + b) for Rows rows of Inputs values, Outputs outputs.
struct FullyConnectedOp {
  int64_t Rows, Inputs, Outputs;
  flatbuffers::FlatBufferBuilder Fbb;
  TensorDesc XD, WD, BD, YD;
  std::vector<float> X, W, B, Y;
  WeightArena Arena; // the kernel's reordered weights

  FullyConnectedOp(int64_t Rows, int64_t Inputs, int64_t Outputs)
      : Rows(Rows), Inputs(Inputs), Outputs(Outputs),
        XD(f32Desc({Rows, Inputs})), WD(f32Desc({Outputs, Inputs})),
        BD(f32Desc({Outputs})), YD(f32Desc({Rows, Outputs})),
        X(ramp(size_t(Rows * Inputs), 1, 0.1f)),
        W(ramp(size_t(Outputs * Inputs), 2, 0.01f)),
        B(ramp(size_t(Outputs), 3, 0.05f)), Y(size_t(Rows * Outputs), NAN) {
    fb::OperatorT Op;
    Op.kind = fb::OpKind::FULLY_CONNECTED;
    Op.inputs = {0, 1, 2};
    Op.outputs = {3};
    fb::FullyConnectedOptionsT O;
    O.output_min = 0;
    Op.options.Set(O);
    Fbb.Finish(fb::Operator::Pack(Fbb, &Op));
  }
  std::unique_ptr<Kernel> kernel() {
    KernelArgs A{finishedOperator(Fbb),
                 {operand(XD, X), operand(WD, W), operand(BD, B)},
                 {operand(YD, Y)}};
    return createOnednnKernel(A, Arena);
  }
  /// The largest |y - reference| over the largest |reference|.
  double relativeError() const {
    double MaxErr = 0, MaxAbs = 0;
    for (int64_t R = 0; R < Rows; ++R)
      for (int64_t O = 0; O < Outputs; ++O) {
        double Sum = B[size_t(O)];
        for (int64_t I = 0; I < Inputs; ++I)
          Sum += double(X[size_t(R * Inputs + I)]) * W[size_t(O * Inputs + I)];
        Sum = std::max(Sum, 0.0);
        MaxErr = std::max(MaxErr, std::fabs(Y[size_t(R * Outputs + O)] - Sum));
        MaxAbs = std::max(MaxAbs, std::fabs(Sum));
      }
    return MaxAbs > 0 ? MaxErr / MaxAbs : INFINITY;
  }
};

/// Where the weights a kernel reads come from.
enum class WeightCopy { None, Plain, Blocked };

/// Runs Op's kernel; returns whether it reads the caller's OI bytes in
/// place, or a copy (what `--prepack native` would store) in a plain
/// (permuted) or a blocked layout.
WeightCopy runAndReportWeightCopy(FullyConnectedOp &Op) {
  std::unique_ptr<Kernel> K = Op.kernel();
  REQUIRE(K);
  REQUIRE(std::string(K->engine()) == "onednn");
  kiln::testing::KernelScratch Scratch(*K);
  Status Ran = K->run(nullptr);
  INFO(Ran.message());
  REQUIRE(Ran.isOk());
  std::optional<PackedWeights> Packed = K->packedWeights();
  if (!Packed)
    return WeightCopy::None;
  CHECK(Packed->Data != reinterpret_cast<const uint8_t *>(Op.W.data()));
  return Packed->Layout.InnerBlocks.empty() ? WeightCopy::Plain
                                            : WeightCopy::Blocked;
}

/// What oneDNN does with weights GEMV does not take: with AVX-512 its
/// brgemm kernel reads a blocked copy; without, oneDNN 2.6 has no brgemm
/// inner product, and its GEMM kernel reads a plain layout (the file's, or
/// a transposed copy).
void checkCopyForBrgemm(WeightCopy Copy) {
  if (kiln::testing::onednnHasAvx512()) {
    CHECK(Copy == WeightCopy::Blocked);
    return;
  }
  WARN("no AVX-512 in oneDNN's ISA: no brgemm, so no blocked weights");
  CHECK(Copy != WeightCopy::Blocked);
}

} // namespace

TEST_CASE("A one-row fully connected layer over more than 1 MiB of weights "
          "reads them in place",
          "[onednn][fc]") {
  // 1000 x 288 floats: 1,152,000 bytes.
  FullyConnectedOp Op(1, 288, 1000);
  CHECK(runAndReportWeightCopy(Op) == WeightCopy::None);
  CHECK(Op.relativeError() < 1e-5);
}

TEST_CASE("Smaller weights, or more rows, get oneDNN's blocked copy where "
          "it runs brgemm",
          "[onednn][fc]") {
  SECTION("one row, 512 x 512 floats: exactly 1 MiB") {
    FullyConnectedOp Op(1, 512, 512);
    checkCopyForBrgemm(runAndReportWeightCopy(Op));
    CHECK(Op.relativeError() < 1e-5);
  }
  SECTION("two rows over the same 1000 x 288 weights") {
    FullyConnectedOp Op(2, 288, 1000);
    checkCopyForBrgemm(runAndReportWeightCopy(Op));
    CHECK(Op.relativeError() < 1e-5);
  }
}

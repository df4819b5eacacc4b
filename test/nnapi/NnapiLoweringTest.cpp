// The NNAPI lowering of operators no example reaches in int8, built by
// hand as kiln modules, lowered, and run through the host NNAPI device
// (KILN_NNAPI_LIBRARY) against values worked out from AOSP's arithmetic.
#include "ModelChecks.h"
#include "backends/common/KilnWriter.h"
#include "backends/nnapi/NnapiLowering.h"
#include "schema/nnapi/NeuralNetworksApi.h"

#include <catch2/catch.hpp>

#include <cstring>

using namespace kiln;

namespace {

std::unique_ptr<fb::TensorT> int8Tensor(const char *Name,
                                        std::vector<int64_t> Shape,
                                        float Scale, int64_t Zp) {
  auto T = std::make_unique<fb::TensorT>();
  T->name = Name;
  T->dtype = fb::DType::I8;
  T->shape = std::move(Shape);
  T->layout = fb::Layout::NHWC;
  T->quant = std::make_unique<fb::QuantParamsT>();
  T->quant->scale = {Scale};
  T->quant->zero_point = {Zp};
  return T;
}

/// x: i8[1, 2, 2, 3] (scale 0.5, zero point 3) -> mean over channels,
/// kept -> m: i8[1, 2, 2, 1] (scale 0.25, zero point -1).
KilnModule meanModule() {
  KilnModule M;
  M.Model.tensors.push_back(int8Tensor("x", {1, 2, 2, 3}, 0.5f, 3));
  M.Model.tensors.push_back(int8Tensor("m", {1, 2, 2, 1}, 0.25f, -1));
  auto Op = std::make_unique<fb::OperatorT>();
  Op->name = "mean";
  Op->kind = fb::OpKind::REDUCE;
  fb::ReduceOptionsT R;
  R.op = fb::ReduceOp::MEAN;
  R.axes = {3};
  Op->options.Set(std::move(R));
  Op->inputs = {0};
  Op->outputs = {1};
  M.Model.operators.push_back(std::move(Op));
  M.Model.inputs = {0};
  M.Model.outputs = {1};
  auto MD = std::make_unique<fb::MetadataT>();
  MD->target = "nnapi";
  MD->inputs.push_back(tensorInfoOf(*M.Model.tensors[0]));
  MD->outputs.push_back(tensorInfoOf(*M.Model.tensors[1]));
  M.Model.metadata = std::move(MD);
  M.Model.target = fb::Target::NNAPI;
  return M;
}

} // namespace

TEST_CASE("NNAPI lowering: a quantized MEAN keeps its input's parameters, "
          "then requantizes") {
  KilnModule M = meanModule();
  nnapi::Lowering L(M, {30, false});
  llvm::Error E = L.run();
  const std::string Why = E ? llvm::toString(std::move(E)) : "";
  REQUIRE(Why == "");
  const fb::NnapiPayloadT &P = *M.Model.payload.AsNnapiPayload();
  REQUIRE(P.operations.size() == 2);
  const fb::NnapiOperationT &Mean = *P.operations[0], &Add = *P.operations[1];
  CHECK(Mean.type == nnapi::MEAN);
  CHECK(Add.type == nnapi::ADD);
  const fb::NnapiOperandT &In = *P.operands[Mean.inputs[0]];
  const fb::NnapiOperandT &Written = *P.operands[Mean.outputs[0]];
  CHECK(Written.scale == In.scale);
  CHECK(Written.zero_point == In.zero_point);
  CHECK(Add.inputs[0] == Mean.outputs[0]);
  const fb::NnapiOperandT &Out = *P.operands[Add.outputs[0]];
  CHECK(Out.scale == 0.25f);
  CHECK(Out.zero_point == -1);

  // Through the host device. MEAN sums the raw values and truncates; the
  // ADD of zero then maps (q - 3) * 0.5 to q' = real / 0.25 - 1, exact here:
  //   10 11 11: 32 / 3 -> 10, real 3.5 -> 13
  //   -5 -6 -6: -17 / 3 -> -5, real -4 -> -17
  //   20 21 21: 62 / 3 -> 20, real 8.5 -> 33
  //    0  0  1:  1 / 3 -> 0, real -1.5 -> -7
  auto Bytes = serializeKilnModule(M);
  REQUIRE(bool(Bytes));
  const std::vector<int8_t> X = {10, 11, 11, -5, -6, -6, 20, 21, 21, 0, 0, 1};
  std::vector<uint8_t> Raw(X.size());
  std::memcpy(Raw.data(), X.data(), X.size());
  std::vector<Tensor> Inputs, Got;
  Inputs.emplace_back(TensorType(ElementType::I8, makeShape({1, 2, 2, 3})),
                      Buffer::copy(Raw));
  kiln_session_options O;
  kiln_session_options_init(&O);
  O.num_threads = 1;
  REQUIRE(testing::runCompiled(*Bytes, Inputs, O, Got) == "");
  REQUIRE(Got.size() == 1);
  const auto *Y = reinterpret_cast<const int8_t *>(Got[0].buffer().data());
  CHECK(std::vector<int>(Y, Y + 4) == std::vector<int>{13, -17, 33, -7});
}

// keep_intermediates and kiln_session_tensor: every operator's output read
// back after a run, with hand-computed values.
#include "RuntimeTestModels.h"
#include "TestSession.h"

#include <catch2/catch.hpp>

#include <cstddef>

using namespace kiln;
using namespace kiln::testmodels;

namespace {

/// One thread; every intermediate kept when Keep.
kiln_session_options keepOptions(bool Keep, bool Reference = false) {
  kiln_session_options O = TestSession::options(
      Reference ? Kernels::ReferenceOnly : Kernels::Default);
  O.keep_intermediates = Keep;
  return O;
}

std::vector<float> floatsOf(const kiln_tensor_value &V) {
  std::vector<float> F(V.info.byte_size / 4);
  std::memcpy(F.data(), V.data, V.info.byte_size);
  return F;
}

} // namespace

TEST_CASE("keep_intermediates: every operator output is readable after a run",
          "[capi][intermediates]") {
  for (bool Reference : {false, true}) {
    TestSession O;
    O.open(bytesOf(addMulModule()), keepOptions(true, Reference));
    float X[6] = {0, 1, -5, 2.5f, -1, 0.5f};
    O.run(X, sizeof X);
    // x, c, two, y, z.
    REQUIRE(kiln_session_num_tensors(O.Session) == 5);
    REQUIRE(kiln_session_num_operators(O.Session) == 2);
    REQUIRE(kiln_session_operator_num_outputs(O.Session, 0) == 1);
    size_t Y = 0, Z = 0;
    REQUIRE(kiln_session_operator_output(O.Session, 0, 0, &Y) == KILN_OK);
    REQUIRE(kiln_session_operator_output(O.Session, 1, 0, &Z) == KILN_OK);
    REQUIRE(Y == 3);
    REQUIRE(Z == 4);
    kiln_tensor_value V;
    REQUIRE(kiln_session_tensor(O.Session, Y, &V) == KILN_OK);
    REQUIRE(std::string(V.info.name) == "y");
    REQUIRE(V.info.dtype == KILN_DTYPE_F32);
    REQUIRE(V.info.layout == KILN_LAYOUT_PLAIN);
    REQUIRE(V.info.rank == 2);
    REQUIRE(V.info.shape[0] == 2);
    REQUIRE(V.info.shape[1] == 3);
    REQUIRE(V.num_scales == 0);
    REQUIRE(V.is_constant == 0);
    // y = x + [1, 2, 3]
    REQUIRE(floatsOf(V) == std::vector<float>{1, 3, -2, 3.5f, 1, 3.5f});
    // z = max(y * 2, 0)
    REQUIRE(kiln_session_tensor(O.Session, Z, &V) == KILN_OK);
    REQUIRE(floatsOf(V) == std::vector<float>{2, 6, 0, 7, 2, 7});
    // A constant reads its weights.
    REQUIRE(kiln_session_tensor(O.Session, 1, &V) == KILN_OK);
    REQUIRE(V.is_constant == 1);
    REQUIRE(floatsOf(V) == std::vector<float>{1, 2, 3});
  }
}

TEST_CASE("keep_intermediates gives every activation its own bytes",
          "[capi][intermediates]") {
  // A chain x -> y -> z -> w of three [2,3] f32 operators: without keeping,
  // y and w may share (y is dead when w is written); kept, the arena holds
  // all four activations apart.
  KilnModule M = addMulModule();
  int32_t Z = M.Model.outputs[0];
  int32_t W = addTensor(M, "w", fb::DType::F32, {2, 3});
  int32_t One = addFloats(M, "one", {1}, {1});
  fb::BinaryOptionsT Sub;
  Sub.op = fb::BinaryOp::SUB;
  addOp(M, fb::OpKind::BINARY, {Z, One}, {W}, Sub);
  M.Model.outputs = {W};
  std::string Bytes = bytesOf(std::move(M));
  TestSession Shared, Kept;
  Shared.open(Bytes, keepOptions(false));
  Kept.open(Bytes, keepOptions(true));
  REQUIRE(kiln_session_arena_bytes(Kept.Session) >
          kiln_session_arena_bytes(Shared.Session));
  float X[6] = {0, 1, -5, 2.5f, -1, 0.5f};
  for (TestSession *O : {&Shared, &Kept}) {
    REQUIRE(kiln_session_set_input(O->Session, 0, X, sizeof X) == KILN_OK);
    REQUIRE(kiln_session_run(O->Session) == KILN_OK);
  }
  kiln_tensor_value V;
  size_t Y = 0;
  REQUIRE(kiln_session_operator_output(Kept.Session, 0, 0, &Y) == KILN_OK);
  REQUIRE(kiln_session_tensor(Kept.Session, Y, &V) == KILN_OK);
  REQUIRE(floatsOf(V) == std::vector<float>{1, 3, -2, 3.5f, 1, 3.5f});
  // Not kept: the intermediate is refused, graph inputs and outputs are not.
  REQUIRE(kiln_session_tensor(Shared.Session, Y, &V) ==
          KILN_ERROR_INVALID_ARGUMENT);
  REQUIRE(std::string(kiln_last_error()).find("'y' is an intermediate") !=
          std::string::npos);
  size_t Out = 0;
  REQUIRE(kiln_session_operator_output(Shared.Session, 2, 0, &Out) == KILN_OK);
  REQUIRE(kiln_session_tensor(Shared.Session, Out, &V) == KILN_OK);
  REQUIRE(floatsOf(V) == std::vector<float>{1, 5, -1, 6, 1, 6});
  REQUIRE(kiln_session_operator_output(Shared.Session, 3, 0, &Out) ==
          KILN_ERROR_INVALID_ARGUMENT);
  REQUIRE(kiln_session_tensor(Shared.Session, 99, &V) ==
          KILN_ERROR_INVALID_ARGUMENT);
}

TEST_CASE("options of a caller built before keep_intermediates are accepted",
          "[capi][intermediates]") {
  // keep_intermediates is beyond the old struct: not read.
  kiln_session_options Opts = keepOptions(true);
  Opts.struct_size = offsetof(kiln_session_options, keep_intermediates);
  TestSession O;
  O.open(bytesOf(addMulModule()), Opts);
  float X[6] = {0, 1, -5, 2.5f, -1, 0.5f};
  O.run(X, sizeof X);
  kiln_tensor_value V;
  REQUIRE(kiln_session_tensor(O.Session, 3, &V) == KILN_ERROR_INVALID_ARGUMENT);
  Opts.struct_size = 12;
  kiln_session *S = nullptr;
  REQUIRE(kiln_session_create(O.Model, &Opts, &S) ==
          KILN_ERROR_INVALID_ARGUMENT);
}

TEST_CASE("an int8 NHWC intermediate comes with its layout and quantization",
          "[capi][intermediates]") {
  // x f32 NHWC [1,2,2,2] -> QUANTIZE (scale 0.5, zero point 3) -> q i8 ->
  // DEQUANTIZE -> y f32.
  KilnModule M;
  int32_t X = addTensor(M, "x", fb::DType::F32, {1, 2, 2, 2}, fb::Layout::NHWC);
  int32_t Q = addTensor(M, "q", fb::DType::I8, {1, 2, 2, 2}, fb::Layout::NHWC);
  auto QP = std::make_unique<fb::QuantParamsT>();
  QP->scale = {0.5f};
  QP->zero_point = {3};
  QP->axis = -1;
  M.Model.tensors[size_t(Q)]->quant = std::move(QP);
  int32_t Y = addTensor(M, "y", fb::DType::F32, {1, 2, 2, 2}, fb::Layout::NHWC);
  addOp(M, fb::OpKind::QUANTIZE, {X}, {Q}, fb::QuantizeOptionsT());
  addOp(M, fb::OpKind::DEQUANTIZE, {Q}, {Y}, fb::QuantizeOptionsT());
  M.Model.inputs = {X};
  M.Model.outputs = {Y};
  std::string Bytes = bytesOf(std::move(M));
  for (bool Reference : {false, true}) {
    TestSession O;
    O.open(Bytes, keepOptions(true, Reference));
    float In[8] = {0, 0.5f, -1, 1.5f, 2, -0.5f, 3, -2};
    O.run(In, sizeof In);
    size_t T = 0;
    REQUIRE(kiln_session_operator_output(O.Session, 0, 0, &T) == KILN_OK);
    kiln_tensor_value V;
    REQUIRE(kiln_session_tensor(O.Session, T, &V) == KILN_OK);
    REQUIRE(std::string(V.info.name) == "q");
    REQUIRE(V.info.dtype == KILN_DTYPE_I8);
    REQUIRE(V.info.layout == KILN_LAYOUT_NHWC);
    REQUIRE(V.info.rank == 4);
    REQUIRE(V.info.byte_size == 8);
    REQUIRE(V.num_scales == 1);
    REQUIRE(V.scales[0] == 0.5f);
    REQUIRE(V.zero_points[0] == 3);
    REQUIRE(V.quant_axis == -1);
    // q = x / 0.5 + 3
    std::vector<int8_t> Got(8);
    std::memcpy(Got.data(), V.data, 8);
    REQUIRE(Got == std::vector<int8_t>{3, 4, 1, 6, 7, 2, 9, -1});
  }
}

TEST_CASE("run_operators steps through a model; set_tensor replaces an "
          "activation for the operators after it",
          "[capi][intermediates][step]") {
  // y = x + [1, 2, 3]; z = max(y * 2, 0).
  for (bool Reference : {false, true}) {
    TestSession O;
    O.open(bytesOf(addMulModule()), keepOptions(true, Reference));
    float X[6] = {0, 1, -5, 2.5f, -1, 0.5f};
    REQUIRE(kiln_session_run_operators(O.Session, 0, 1) ==
            KILN_ERROR_INVALID_ARGUMENT); // the input is not set yet
    REQUIRE(std::string(kiln_last_error()).find("'x' was not set") !=
            std::string::npos);
    REQUIRE(kiln_session_set_input(O.Session, 0, X, sizeof X) == KILN_OK);
    kiln_tensor_value V;
    // Operator 0 alone writes y.
    REQUIRE(kiln_session_run_operators(O.Session, 0, 1) == KILN_OK);
    REQUIRE(kiln_session_tensor(O.Session, 3, &V) == KILN_OK);
    REQUIRE(floatsOf(V) == std::vector<float>{1, 3, -2, 3.5f, 1, 3.5f});
    // y replaced before operator 1: z follows the new y, not x.
    float NewY[6] = {-1, 0.25f, 4, -3, 10, 0};
    REQUIRE(kiln_session_set_tensor(O.Session, 3, NewY, sizeof NewY) == KILN_OK);
    REQUIRE(kiln_session_run_operators(O.Session, 1, 1) == KILN_OK);
    REQUIRE(kiln_session_tensor(O.Session, 4, &V) == KILN_OK);
    REQUIRE(floatsOf(V) == std::vector<float>{0, 0.5f, 8, 0, 20, 0});
    // Steps of one compute what a whole run computes.
    REQUIRE(kiln_session_run_operators(O.Session, 0, 1) == KILN_OK);
    REQUIRE(kiln_session_run_operators(O.Session, 1, 1) == KILN_OK);
    REQUIRE(kiln_session_tensor(O.Session, 4, &V) == KILN_OK);
    REQUIRE(floatsOf(V) == std::vector<float>{2, 6, 0, 7, 2, 7});
    // An empty range does nothing; a range past the end is refused.
    REQUIRE(kiln_session_run_operators(O.Session, 2, 0) == KILN_OK);
    REQUIRE(kiln_session_run_operators(O.Session, 1, 2) ==
            KILN_ERROR_INVALID_ARGUMENT);
    REQUIRE(std::string(kiln_last_error()).find("out of range") !=
            std::string::npos);
    // set_tensor on the graph input is set_input.
    float X2[6] = {1, 1, 1, 1, 1, 1};
    REQUIRE(kiln_session_set_tensor(O.Session, 0, X2, sizeof X2) == KILN_OK);
    REQUIRE(kiln_session_run(O.Session) == KILN_OK);
    REQUIRE(kiln_session_tensor(O.Session, 4, &V) == KILN_OK);
    REQUIRE(floatsOf(V) == std::vector<float>{4, 6, 8, 4, 6, 8});
    // Constants, wrong sizes and bad indices are refused.
    float C[3] = {0, 0, 0};
    REQUIRE(kiln_session_set_tensor(O.Session, 1, C, sizeof C) ==
            KILN_ERROR_INVALID_ARGUMENT);
    REQUIRE(std::string(kiln_last_error()).find("is a constant") !=
            std::string::npos);
    REQUIRE(kiln_session_set_tensor(O.Session, 3, C, sizeof C) ==
            KILN_ERROR_INVALID_ARGUMENT);
    REQUIRE(std::string(kiln_last_error()).find("takes 24 bytes, got 12") !=
            std::string::npos);
    REQUIRE(kiln_session_set_tensor(O.Session, 9, C, sizeof C) ==
            KILN_ERROR_INVALID_ARGUMENT);
    REQUIRE(kiln_session_set_tensor(nullptr, 3, C, sizeof C) ==
            KILN_ERROR_INVALID_ARGUMENT);
    REQUIRE(kiln_session_run_operators(nullptr, 0, 1) ==
            KILN_ERROR_INVALID_ARGUMENT);
  }
}

TEST_CASE("stepping needs keep_intermediates", "[capi][intermediates][step]") {
  TestSession O;
  O.open(bytesOf(addMulModule()), keepOptions(false));
  float X[6] = {0, 1, -5, 2.5f, -1, 0.5f};
  REQUIRE(kiln_session_set_input(O.Session, 0, X, sizeof X) == KILN_OK);
  REQUIRE(kiln_session_run_operators(O.Session, 0, 2) ==
          KILN_ERROR_INVALID_ARGUMENT);
  REQUIRE(std::string(kiln_last_error()).find("keep_intermediates") !=
          std::string::npos);
  float Y[6] = {};
  REQUIRE(kiln_session_set_tensor(O.Session, 3, Y, sizeof Y) ==
          KILN_ERROR_INVALID_ARGUMENT);
  REQUIRE(std::string(kiln_last_error()).find("keep_intermediates") !=
          std::string::npos);
}

// The loader's checks of NNAPI files (NnapiPayloadVerifier.h): a valid
// one-convolution model loads, and each mutant of it is rejected with
// KILN_ERROR_INVALID_MODEL and a message naming what is wrong.
#include "NnapiTestModels.h"

#include "kiln/kiln.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>

using namespace kiln;
using namespace kiln::nntest;

namespace {

kiln_status load(const std::string &Bytes, std::string &Error) {
  kiln_model *Model = nullptr;
  kiln_status S = kiln_model_load_buffer(Bytes.data(), Bytes.size(), &Model);
  Error = S == KILN_OK ? "" : kiln_last_error();
  kiln_model_destroy(Model);
  return S;
}

void requireRejected(const NnapiModel &M, const std::string &Text) {
  std::string Error;
  kiln_status S = load(M.bytes(), Error);
  INFO("message: " << Error);
  REQUIRE(S == KILN_ERROR_INVALID_MODEL);
  REQUIRE(Error.find(Text) != std::string::npos);
}

/// x f32[1,2,4,4] (NCHW) -> host TRANSPOSE -> xt [1,4,4,2] -> convModel's
/// convolution -> y.
NnapiModel hostModel() {
  NnapiModel M = convModel();
  M.Model.tensors[0]->shape = {1, 2, 4, 4};
  M.Model.tensors[0]->layout = fb::Layout::NCHW;
  int32_t Xt = M.tensor("xt", {1, 4, 4, 2}, fb::DType::F32, fb::Layout::NHWC);
  auto T = std::make_unique<fb::OperatorT>();
  T->kind = fb::OpKind::TRANSPOSE;
  fb::TransposeOptionsT Perm;
  Perm.perm = {0, 2, 3, 1};
  T->options.Set(std::move(Perm));
  T->inputs = {0};
  T->outputs = {Xt};
  M.Model.operators.insert(M.Model.operators.begin(), std::move(T));
  M.Model.operators[1]->inputs = {Xt};
  M.operation(0).operator_ = 1;
  M.operand(0).tensor = Xt;
  M.payload().host_before = {0};
  return M;
}

} // namespace

TEST_CASE("a valid NNAPI file loads", "[nnapi][loader]") {
  for (const NnapiModel &M : {convModel(), hostModel()}) {
    std::string Bytes = M.bytes(), Error;
    REQUIRE(load(Bytes, Error) == KILN_OK);
    kiln_model *Model = nullptr;
    REQUIRE(kiln_model_load_buffer(Bytes.data(), Bytes.size(), &Model) ==
            KILN_OK);
    REQUIRE(std::string(kiln_model_target(Model)) == "nnapi");
    kiln_model_destroy(Model);
  }
}

TEST_CASE("hostile NNAPI payloads are rejected", "[nnapi][loader]") {
  struct Mutant {
    const char *Name;
    std::function<void(NnapiModel &)> Mutate;
    const char *Message;
  };
  const float NaN = std::nanf("");
  const std::vector<Mutant> Mutants = {
      {"another target's payload",
       [](NnapiModel &M) { M.Model.payload.Set(fb::VulkanPayloadT()); },
       "the payload (VulkanPayload) is not the nnapi target's"},
      {"feature level too low",
       [](NnapiModel &M) { M.payload().feature_level = 26; },
       "NNAPI feature level 26 is not one of 27, 28, 29, 30, 31 and 1000006"},
      {"feature level between 31 and 6",
       [](NnapiModel &M) { M.payload().feature_level = 32; },
       "NNAPI feature level 32 is not one of 27, 28, 29, 30, 31 and 1000006"},
      {"an operation above the payload's level",
       [](NnapiModel &M) { M.payload().operations[0]->type = 102; },
       "NNAPI operation 0 (BATCH_MATMUL): needs feature level 1000006, the "
       "payload's is"},
      {"unknown operand type", [](NnapiModel &M) { M.operand(3).type = 7; },
       "NNAPI operand 3: unknown operand type 7"},
      {"operand type above the level",
       [](NnapiModel &M) { M.operand(3).type = nn::BOOL; },
       "NNAPI operand 3: BOOL needs feature level 29, the payload's is 27"},
      {"operation above the level",
       [](NnapiModel &M) { M.operation(0).type = nn::ABS; },
       "NNAPI operation 0 (ABS): needs feature level 29"},
      {"unknown operation", [](NnapiModel &M) { M.operation(0).type = 1000; },
       "NNAPI operation 0: unknown operation code 1000"},
      {"operand index out of range",
       [](NnapiModel &M) { M.operation(0).inputs[1] = 99; },
       "NNAPI operation 0 (CONV_2D): input operand 99 of 8"},
      {"wrong input count",
       [](NnapiModel &M) { M.operation(0).inputs.pop_back(); },
       "NNAPI operation 0 (CONV_2D): 6 inputs whose count or types fit "
       "none"},
      {"an INT32 where the layout BOOL goes",
       [](NnapiModel &M) { M.operation(0).inputs.push_back(3); },
       "NNAPI operation 0 (CONV_2D): 8 inputs whose count or types fit "
       "none"},
      {"a tensor where a scalar goes",
       [](NnapiModel &M) { M.operation(0).inputs[3] = 0; },
       "NNAPI operation 0 (CONV_2D): 7 inputs whose count or types fit "
       "none"},
      {"two outputs",
       [](NnapiModel &M) { M.operation(0).outputs.push_back(1); },
       "NNAPI operation 0 (CONV_2D): 2 outputs at feature level 27"},
      {"a required input left out (OMITTED)",
       [](NnapiModel &M) {
         M.operand(2).source = fb::NnapiValueSource::OMITTED;
         M.operand(2).segment = -1;
       },
       "NNAPI operation 0 (CONV_2D): input 2 (operand 2) is omitted, but "
       "the operation needs it"},
      {"an omitted operand with a value",
       [](NnapiModel &M) {
         M.operand(3).source = fb::NnapiValueSource::OMITTED;
       },
       "NNAPI operand 3: an omitted operand with a value or a tensor"},
      {"quantized scale 0",
       [](NnapiModel &M) { M.operand(1).type = nn::TENSOR_QUANT8_ASYMM; },
       "NNAPI operand 1: scale is 0, expected a finite value > 0"},
      {"quantized scale NaN",
       [NaN](NnapiModel &M) {
         M.operand(1).type = nn::TENSOR_QUANT8_ASYMM;
         M.operand(1).scale = NaN;
       },
       "NNAPI operand 1: scale is nan"},
      {"negative float scale", [](NnapiModel &M) { M.operand(0).scale = -1; },
       "NNAPI operand 0: scale is -1, expected a finite value >= 0"},
      {"zero point out of range",
       [](NnapiModel &M) {
         M.operand(1).type = nn::TENSOR_QUANT8_ASYMM;
         M.operand(1).scale = 0.5f;
         M.operand(1).zero_point = 256;
       },
       "NNAPI operand 1: zero point 256 is outside [0, 255]"},
      {"signed zero point out of range",
       [](NnapiModel &M) {
         M.payload().feature_level = 30;
         M.operand(1).type = nn::TENSOR_QUANT8_ASYMM_SIGNED;
         M.operand(1).scale = 0.5f;
         M.operand(1).zero_point = 128;
       },
       "NNAPI operand 1: zero point 128 is outside [-128, 127]"},
      {"per-channel scale count",
       [](NnapiModel &M) {
         M.payload().feature_level = 29;
         M.operand(1).type = nn::TENSOR_QUANT8_SYMM_PER_CHANNEL;
         M.operand(1).channel_scales = {1, 1};
       },
       "NNAPI operand 1: 2 channel scales, expected 3 (dim 0)"},
      {"negative channel scale",
       [](NnapiModel &M) {
         M.payload().feature_level = 29;
         M.operand(1).type = nn::TENSOR_QUANT8_SYMM_PER_CHANNEL;
         M.operand(1).channel_scales = {1, -1, 1};
       },
       "NNAPI operand 1: channel scale 1 is -1"},
      {"channel dim out of range",
       [](NnapiModel &M) {
         M.payload().feature_level = 29;
         M.operand(1).type = nn::TENSOR_QUANT8_SYMM_PER_CHANNEL;
         M.operand(1).channel_dim = 4;
       },
       "NNAPI operand 1: channel_dim 4 of rank 4"},
      {"segment size mismatch",
       [](NnapiModel &M) { M.operand(2).dimensions = {4}; },
       "NNAPI operand 2: segment 1 holds 12 bytes, but the operand takes 16"},
      {"segment out of range", [](NnapiModel &M) { M.operand(2).segment = 5; },
       "NNAPI operand 2: segment 5 of 2"},
      {"inline size mismatch",
       [](NnapiModel &M) { M.operand(3).value.resize(2); },
       "NNAPI operand 3: inline value of 2 bytes, but the operand takes 4"},
      {"an inline value over NNAPI's 128 bytes",
       [](NnapiModel &M) {
         fb::NnapiOperandT &B = M.operand(2);
         B.dimensions = {40};
         B.source = fb::NnapiValueSource::INLINE;
         B.segment = -1;
         B.value.assign(160, 0);
       },
       "NNAPI operand 2: inline value of 160 bytes (NNAPI copies at most 128 "
       "bytes"},
      {"a denormal quantized scale",
       [](NnapiModel &M) {
         M.operand(1).type = nn::TENSOR_QUANT8_ASYMM;
         M.operand(1).scale = 1e-45f;
       },
       "NNAPI operand 1: scale is 1.4013e-45, a denormal number"},
      {"a denormal channel scale",
       [](NnapiModel &M) {
         M.payload().feature_level = 29;
         M.operand(1).type = nn::TENSOR_QUANT8_SYMM_PER_CHANNEL;
         M.operand(1).channel_scales = {1, 1e-40f, 1};
       },
       "NNAPI operand 1: channel scale 1 is 9.99995e-41, a denormal number"},
      {"a denormal scale on a float operand",
       [](NnapiModel &M) { M.operand(0).scale = 1e-39f; },
       "NNAPI operand 0: scale is 1e-39, a denormal number"},
      {"a dim 0", [](NnapiModel &M) { M.operand(0).dimensions[2] = 0; },
       "NNAPI operand 0: TENSOR_FLOAT32 with a dim 0"},
      {"a scalar with dims",
       [](NnapiModel &M) { M.operand(3).dimensions = {1}; },
       "NNAPI operand 3: scalar INT32 with 1 dims"},
      {"tensor of another size", [](NnapiModel &M) { M.operand(7).tensor = 0; },
       "NNAPI operand 7: TENSOR_FLOAT32 of 48 elements does not match tensor "
       "0"},
      {"tensor out of range", [](NnapiModel &M) { M.operand(7).tensor = 9; },
       "NNAPI operand 7: tensor 9 of 2"},
      {"use before definition",
       [](NnapiModel &M) {
         M.operation(0).inputs[1] = M.operand(nn::TENSOR_FLOAT32, {3, 1, 1, 2});
       },
       "NNAPI operation 0 (CONV_2D): input operand 8 is used before it is "
       "defined"},
      {"an operand written twice",
       [](NnapiModel &M) { M.operation(nn::RELU, {7}, {7}); },
       "NNAPI operation 1 (RELU): output operand 7 already has a value"},
      {"a constant written",
       [](NnapiModel &M) { M.operation(0).outputs = {1}; },
       "NNAPI operation 0 (CONV_2D): output operand 1 already has a value"},
      {"two operands holding one tensor",
       [](NnapiModel &M) {
         uint32_t Z = M.operand(nn::TENSOR_FLOAT32, {1, 4, 4, 3}, 1);
         M.operation(nn::RELU, {7}, {Z});
         M.payload().outputs = {Z};
       },
       "NNAPI operation 1 (RELU): output operand 8 maps tensor 1, which "
       "operand 7 maps too"},
      {"an operation writing the model input's tensor",
       [](NnapiModel &M) {
         uint32_t Z = M.operand(nn::TENSOR_FLOAT32, {1, 4, 4, 2}, 0);
         M.operation(nn::RELU, {0}, {Z});
       },
       "NNAPI operation 1 (RELU): output operand 8 maps tensor 0, which "
       "operand 0 maps too"},
      {"a model input mapping no tensor",
       [](NnapiModel &M) { M.payload().inputs = {1}; },
       "NNAPI model input 0: operand 1 maps no tensor"},
      {"a model output no operation computes",
       [](NnapiModel &M) { M.payload().outputs = {0}; },
       "NNAPI model output operand 0 is computed by no operation"},
      {"a model input index out of range",
       [](NnapiModel &M) { M.payload().inputs = {8}; },
       "NNAPI model input 0: operand 8 of 8"},
      {"a host step of another kind",
       [](NnapiModel &M) { M.payload().host_before = {0}; },
       "host_before 0 (operator 0, UNARY): the host runs only TRANSPOSE"},
      {"a host step out of range",
       [](NnapiModel &M) { M.payload().host_after = {3}; },
       "host_after 0: operator 3 of 1"},
      {"an operation's operator out of range",
       [](NnapiModel &M) { M.operation(0).operator_ = 4; },
       "NNAPI operation 0: operator 4 of 1"},
  };
  for (const Mutant &Mu : Mutants) {
    DYNAMIC_SECTION(Mu.Name) {
      NnapiModel M = convModel();
      Mu.Mutate(M);
      requireRejected(M, Mu.Message);
    }
  }
}

TEST_CASE("NNAPI host steps must feed the model", "[nnapi][loader]") {
  NnapiModel M = hostModel();
  M.payload().host_before.clear();
  requireRejected(M, "NNAPI model input operand 0: tensor 2 is neither a "
                     "graph input nor a host_before result");
}

// Self-tests (kiln convert --self-test, kiln_session_self_test) on a graph
// small enough to check by hand: y = 2 * relu(x). The stored reference is
// recomputed here from the stored sample with a naive loop; the runtime's
// verdict is checked against a reference changed by a known amount; and
// the C API's argument checks.
#include "Driver/SelfTestBuild.h"
#include "IR/Parser.h"
#include "LlvmErrorChecks.h"
#include "backends/common/KilnWriter.h"
#include "backends/common/SelfTestRecord.h"
#include "backends/kilnops/KilnOps.h"

#include "kiln/kiln.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <cstring>

using namespace kiln;

namespace {

constexpr const char *TwiceRelu = R"(
graph @twice_relu(%x: f32[1,6]) -> (%y: f32[1,6]) {
  %r = relu(%x) : f32[1,6]
  %two = const f32[1] dense[2.0]
  %y = mul(%r, %two) : f32[1,6]
  return %y
}
)";

constexpr const char *TokenIds = R"(
graph @ids(%ids: i64[1,2]) -> (%e: f32[1,2,2]) {
  %table = const f32[3,2] dense[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
  %e = gather(%table, %ids) {axis=0} : f32[1,2,2]
  return %e
}
)";

// An integer output past float32's exact range (2^24 + 1): the reference
// holds it as a float, and the runtime compares it as one.
constexpr const char *BigInts = R"(
graph @big(%ids: i64[1,2]) -> (%e: i32[1,2,2]) {
  %table = const i32[3,2] dense[16777217, 16777219, 2, 3, 33554433, 5]
  %e = gather(%table, %ids) {axis=0} : i32[1,2,2]
  return %e
}
)";

std::vector<float> floatsOf(const Buffer &B) {
  std::vector<float> V(B.size() / 4);
  std::memcpy(V.data(), B.data(), B.size());
  return V;
}

SelfTestRecord record(const Graph &G, QuantizeMode Mode = QuantizeMode::None) {
  SelfTestFlags F;
  F.Enabled = true;
  return requireValue(buildSelfTest(G, F, Mode, "twice_relu.kir"));
}

/// The CPU file of G carrying R (as kiln convert --self-test writes it).
std::string fileWith(const Graph &G, const SelfTestRecord *R) {
  auto C = requireValue(lowerToKilnOps(G));
  if (R)
    attachSelfTest(C.Module, *R);
  return requireValue(serializeKilnModule(C.Module));
}

struct Loaded {
  kiln_model *Model = nullptr;
  kiln_session *Session = nullptr;
  explicit Loaded(const std::string &Bytes) {
    REQUIRE(kiln_model_load_buffer(Bytes.data(), Bytes.size(), &Model) ==
            KILN_OK);
    REQUIRE(kiln_session_create(Model, nullptr, &Session) == KILN_OK);
  }
  ~Loaded() {
    kiln_session_destroy(Session);
    kiln_model_destroy(Model);
  }
};

} // namespace

TEST_CASE("the stored reference is the graph on the stored sample",
          "[self-test]") {
  auto G = requireValue(parseGraph(TwiceRelu, "twice_relu.kir"));
  SelfTestRecord R = record(*G);
  REQUIRE(R.Inputs.size() == 1);
  REQUIRE(R.Outputs.size() == 1);
  std::vector<float> X = floatsOf(R.Inputs[0]);
  REQUIRE(X.size() == 6);
  float Peak = 0;
  int Negative = 0;
  for (size_t I = 0; I < X.size(); ++I) {
    CHECK(X[I] >= -1.0f);
    CHECK(X[I] < 1.0f);
    Negative += X[I] < 0;
    float Want = 2.0f * std::max(X[I], 0.0f);
    CHECK(R.Outputs[0].Reference[I] == Want);
    Peak = std::max(Peak, Want);
  }
  CHECK(Negative > 0); // a sample that exercises relu's both sides
  CHECK(Negative < 6);
  CHECK(R.Outputs[0].Stride == 1);
  CHECK(R.Outputs[0].Peak == Peak);
  CHECK(R.Outputs[0].Tolerance == Approx(1e-3 * Peak));
  // fp16 and int8 files get wider tolerances.
  CHECK(record(*G, QuantizeMode::Fp16).Outputs[0].Tolerance ==
        Approx(3e-2 * Peak));
  CHECK(record(*G, QuantizeMode::Int8).Outputs[0].Tolerance ==
        Approx(0.1 * Peak));
  // The same graph gives the same sample (and so the same file).
  CHECK(record(*G).Inputs[0].str() == R.Inputs[0].str());
}

TEST_CASE("integer inputs need a given sample", "[self-test]") {
  auto G = requireValue(parseGraph(TokenIds, "ids.kir"));
  SelfTestFlags F;
  F.Enabled = true;
  auto R = buildSelfTest(*G, F, QuantizeMode::None, "ids.kir");
  REQUIRE(!R);
  CHECK_THAT(llvm::toString(R.takeError()),
             Catch::Contains("cannot make up values for input 'ids' "
                             "(i64[1,2])"));
}

TEST_CASE("kiln_session_self_test passes a correct file and measures a wrong "
          "one",
          "[self-test]") {
  auto G = requireValue(parseGraph(TwiceRelu, "twice_relu.kir"));
  SelfTestRecord R = record(*G);
  std::string Good = fileWith(*G, &R);
  {
    Loaded L(Good);
    CHECK(kiln_model_has_self_test(L.Model) == 1);
    kiln_self_test_result T;
    T.struct_size = sizeof T;
    REQUIRE(kiln_session_self_test(L.Session, &T) == KILN_OK);
    CHECK(T.passed == 1);
    CHECK(T.deterministic == 1);
    CHECK(T.max_error == 0.0); // 2 * relu(x) is exact in float
    CHECK(T.compared == 6);
    CHECK(T.non_finite == 0);
    CHECK(T.tolerance == Approx(R.Outputs[0].Tolerance));
    // The session ran on the sample: its output is the reference.
    const void *Out = nullptr;
    size_t Bytes = 0;
    REQUIRE(kiln_session_get_output(L.Session, 0, &Out, &Bytes) == KILN_OK);
    REQUIRE(Bytes == 24);
    CHECK(std::memcmp(Out, R.Outputs[0].Reference.data(), 24) == 0);
  }
  // A reference off by 0.25 at one element: the error is 0.25, over the
  // tolerance, and relative to the peak.
  SelfTestRecord Off = R;
  Off.Outputs[0].Reference[3] += 0.25f;
  Loaded L(fileWith(*G, &Off));
  kiln_self_test_result T;
  T.struct_size = sizeof T;
  REQUIRE(kiln_session_self_test(L.Session, &T) == KILN_OK);
  CHECK(T.passed == 0);
  CHECK(T.deterministic == 1);
  CHECK(T.max_error == Approx(0.25).margin(1e-6));
  CHECK(T.relative_error == Approx(0.25 / R.Outputs[0].Peak).epsilon(1e-4));
  CHECK(T.worst_output == 0);
}

TEST_CASE("kiln_session_self_test's argument checks", "[self-test]") {
  auto G = requireValue(parseGraph(TwiceRelu, "twice_relu.kir"));
  SelfTestRecord R = record(*G);
  {
    Loaded L(fileWith(*G, nullptr));
    CHECK(kiln_model_has_self_test(L.Model) == 0);
    kiln_self_test_result T;
    T.struct_size = sizeof T;
    CHECK(kiln_session_self_test(L.Session, &T) ==
          KILN_ERROR_INVALID_ARGUMENT);
    CHECK_THAT(kiln_last_error(), Catch::Contains("kiln convert --self-test"));
  }
  Loaded L(fileWith(*G, &R));
  kiln_self_test_result T;
  T.struct_size = 0;
  CHECK(kiln_session_self_test(L.Session, &T) == KILN_ERROR_INVALID_ARGUMENT);
  CHECK(kiln_session_self_test(nullptr, &T) == KILN_ERROR_INVALID_ARGUMENT);
  CHECK(kiln_session_self_test(L.Session, nullptr) ==
        KILN_ERROR_INVALID_ARGUMENT);
  CHECK(kiln_model_has_self_test(nullptr) == 0);
  // A caller that knows only the first fields gets only those.
  struct {
    kiln_self_test_result Head;
    unsigned char Canary[8];
  } Short;
  std::memset(&Short, 0xab, sizeof Short);
  Short.Head.struct_size = offsetof(kiln_self_test_result, deterministic);
  REQUIRE(kiln_session_self_test(L.Session, &Short.Head) == KILN_OK);
  CHECK(Short.Head.passed == 1);
  CHECK(Short.Head.deterministic == int(0xabababab));
  for (unsigned char C : Short.Canary)
    CHECK(C == 0xab);
}

TEST_CASE("integer outputs past 2^24 compare as their float references",
          "[self-test]") {
  auto G = requireValue(parseGraph(BigInts, "big.kir"));
  // ids {0, 2} (an i64 input has no generated sample: the user gives one)
  // and the rows they pick, stored as the driver stores integers: floats.
  auto Ids = Tensor::fromValues<int64_t>(ElementType::I64, {Dim(1), Dim(2)},
                                         {0, 2});
  SelfTestRecord R;
  R.Inputs = {Ids.buffer()};
  SelfTestRecord::Output O;
  for (int32_t V : {16777217, 16777219, 33554433, 5})
    O.Reference.push_back(float(V));
  O.Peak = float(33554433);
  R.Outputs = {O};
  Loaded L(fileWith(*G, &R));
  kiln_self_test_result T;
  T.struct_size = sizeof T;
  REQUIRE(kiln_session_self_test(L.Session, &T) == KILN_OK);
  CHECK(T.passed == 1); // exact (tolerance 0), in float32
  CHECK(T.max_error == 0.0);
  CHECK(T.compared == 4);
  // A row off by one in float32 (33554433 -> 33554436) is one of four.
  R.Outputs[0].Reference[2] = float(33554436);
  Loaded Off(fileWith(*G, &R));
  REQUIRE(kiln_session_self_test(Off.Session, &T) == KILN_OK);
  CHECK(T.passed == 0);
  CHECK(T.max_error == 0.25);
}

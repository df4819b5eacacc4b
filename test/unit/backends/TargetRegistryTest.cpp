// The target registry (backends/Target.h): the targets of Targets.def, in
// order, each with its capability table and a check that lists every node
// it cannot run in one error.
#include "backends/Target.h"

#include "IR/Parser.h"
#include "LlvmErrorChecks.h"
#include "Support/Error.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace kiln;

namespace {

/// The error's message; empty for success.
std::string messageOf(llvm::Error E) {
  return E ? llvm::toString(std::move(E)) : std::string();
}

} // namespace

TEST_CASE("cpu, onnx, vulkan, nnapi and metal are registered, in order",
          "[targets]") {
  std::vector<std::string> Names;
  for (const Target &T : allTargets())
    Names.push_back(T.Name);
  CHECK(Names ==
        std::vector<std::string>{"cpu", "onnx", "vulkan", "nnapi", "metal"});
  REQUIRE(findTarget("cpu"));
  CHECK(findTarget("cpu")->FileTarget == 1); // schema Target.CPU
  CHECK(findTarget("cpu")->Status == TargetStatus::Works);
  REQUIRE(findTarget("onnx"));
  CHECK(findTarget("onnx")->FileTarget == 0); // no .kiln file
  REQUIRE(findTarget("vulkan"));
  CHECK(findTarget("vulkan")->FileTarget == 2); // schema Target.VULKAN
  REQUIRE(findTarget("nnapi"));
  CHECK(findTarget("nnapi")->FileTarget == 4); // schema Target.NNAPI
  REQUIRE(findTarget("metal"));
  CHECK(findTarget("metal")->FileTarget == 3); // schema Target.METAL
  CHECK_FALSE(findTarget("webgpu"));
  CHECK_FALSE(findTarget("CPU")); // names are exact
}

TEST_CASE("an unknown target is a usage error naming the known ones",
          "[targets]") {
  llvm::Error E = unknownTargetError("foo");
  Diagnosis D = diagnose(std::move(E));
  CHECK(D.Code == ExitCode::Usage);
  CHECK(D.Message == "--target foo: unknown target; kiln builds for: cpu, onnx, "
                     "vulkan, nnapi, metal");
}

TEST_CASE("capability tables are sorted and name real ops", "[targets]") {
  for (const Target &T : allTargets()) {
    std::vector<std::string> Ops = T.SupportedOps();
    CHECK(std::is_sorted(Ops.begin(), Ops.end()));
    CHECK(std::adjacent_find(Ops.begin(), Ops.end()) == Ops.end());
    CHECK(std::find(Ops.begin(), Ops.end(), "conv") != Ops.end());
  }
  // gelu runs on the CPU runtime but has no opset-14 ONNX form.
  auto Has = [](const char *Target, const char *Op) {
    std::vector<std::string> Ops = findTarget(Target)->SupportedOps();
    return std::find(Ops.begin(), Ops.end(), Op) != Ops.end();
  };
  CHECK(Has("cpu", "gelu"));
  CHECK_FALSE(Has("onnx", "gelu"));
}

TEST_CASE("the onnx check lists every node without an ONNX form",
          "[targets]") {
  auto G = requireValue(parseGraph(R"(graph @g(%x: f32[1,4]) -> (%z: f32[1,4]) {
  %a = gelu(%x) : f32[1,4]
  %b = relu(%a) : f32[1,4]
  %z = gelu(%b) : f32[1,4]
  return %z
}
)",
                                   "g.kir"));
  std::string M = messageOf(findTarget("onnx")->Check(*G));
  CHECK(M == "2 node(s) have no ONNX export yet: '%a' (gelu), '%z' (gelu)");
  CHECK(messageOf(findTarget("cpu")->Check(*G)).empty());
}

TEST_CASE("the cpu check lists every dynamic input and node at once",
          "[targets]") {
  auto G = requireValue(parseGraph(R"(graph @g(%x: f32[N,4]) -> (%z: f32[N,4]) {
  %a = relu(%x) : f32[N,4]
  %z = sigmoid(%a) : f32[N,4]
  return %z
}
)",
                                   "g.kir"));
  std::string M = messageOf(findTarget("cpu")->Check(*G));
  CHECK(M.find("cannot run 3 part(s)") != std::string::npos);
  CHECK(M.find("input 'x'") != std::string::npos);
  CHECK(M.find("node '%a' (relu)") != std::string::npos);
  CHECK(M.find("node '%z' (sigmoid)") != std::string::npos);
}

TEST_CASE("targets supply their pipeline per -O level", "[targets]") {
  for (const Target &T : allTargets()) {
    CHECK(T.Pipeline(0).empty());
    std::vector<std::string> O2 = T.Pipeline(2);
    REQUIRE_FALSE(O2.empty());
    CHECK(O2.back() == "dce");
    CHECK(T.Pipeline(1).size() < O2.size());
  }
}

TEST_CASE("the vulkan check lists every input and operator it cannot run at once",
          "[targets]") {
  // The gather of a computed tensor (not an embedding of a constant table
  // by the ids), and the u8 input that is no image with its cast, are
  // refused.
  auto G = requireValue(parseGraph(R"(graph @g(%x: f32[1,4], %i: i64[2], %h: u8[4]) -> (%z: f32[1,4], %y: f32[2,4], %c: f32[4]) {
  %a = relu(%x) : f32[1,4]
  %pads = const i64[4] dense[0, 0, 0, 0]
  %z = pad(%a, %pads) {mode="edge"} : f32[1,4]
  %t = transpose(%a) {perm=[1, 0]} : f32[4,1]
  %y = gather(%x, %i) {axis=0} : f32[2,4]
  %c = cast(%h) {to="f32"} : f32[4]
  return %z, %y, %c
}
)",
                                   "g.kir"));
  std::string M = messageOf(findTarget("vulkan")->Check(*G));
  INFO(M);
  CHECK(M.find("the Vulkan target cannot run 4 part(s)") != std::string::npos);
  CHECK(M.find("(CAST): a cast of other than an integer graph input") !=
        std::string::npos);
  CHECK(M.find("input 'h' is U8") != std::string::npos);
  CHECK(M.find("input 'i'") == std::string::npos);
  CHECK(M.find("(PAD)") != std::string::npos);
  CHECK(M.find("(GATHER)") != std::string::npos);
  CHECK(messageOf(findTarget("cpu")->Check(*G)).empty());
}

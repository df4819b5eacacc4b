// The -O pipelines name only registered passes, in the order their comments
// promise.
#include "passes/Pass.h"
#include "passes/Pipelines.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace kiln;

static size_t position(const std::vector<std::string> &P, const char *Name) {
  auto It = std::find(P.begin(), P.end(), Name);
  REQUIRE(It != P.end());
  return size_t(It - P.begin());
}

TEST_CASE("every pipeline names registered passes", "[passes][pipelines]") {
  CHECK(pipelineForLevel(0).empty());
  for (int L = 1; L <= 2; ++L)
    for (const std::string &N : pipelineForLevel(L)) {
      INFO("-O" << L << ": " << N);
      CHECK(findPass(N) != nullptr);
    }
  CHECK(pipelineForLevel(1) ==
        std::vector<std::string>{"remove-dropout", "eliminate-noops",
                                 "fold-constants", "cse",
                                 "fold-integer-op-scales",
                                 "adopt-imported-qdq", "dce"});
}

TEST_CASE("-O2 orders the passes as documented", "[passes][pipelines]") {
  std::vector<std::string> P = pipelineForLevel(2);
  CHECK(P.front() == "remove-dropout");
  CHECK(P.back() == "dce");
  // canonicalize before fusion; BN and scales before activation fusion.
  CHECK(position(P, "canonicalize") < position(P, "fuse-conv-bn"));
  CHECK(position(P, "fuse-conv-bn") < position(P, "fuse-activation"));
  CHECK(position(P, "fuse-conv-scale") < position(P, "fuse-activation"));
  CHECK(position(P, "fold-pad-into-conv") < position(P, "fuse-activation"));
  CHECK(position(P, "fuse-conv-bn") < position(P, "fuse-add-activation"));
  // A pre-quantized model is adopted once its zero points are folded, its
  // gemm/matmul layers are linear and its hardswish is one op.
  CHECK(position(P, "fold-constants") < position(P, "adopt-imported-qdq"));
  CHECK(position(P, "canonicalize") < position(P, "adopt-imported-qdq"));
  CHECK(position(P, "fuse-hard-swish") < position(P, "adopt-imported-qdq"));
  // ONNX Runtime's integer matmuls take their scales before canonicalize
  // looks for a dequantized weight.
  CHECK(position(P, "fold-integer-op-scales") < position(P, "canonicalize"));
  // Every pass of -O1 is in -O2 too.
  for (const std::string &N : pipelineForLevel(1))
    CHECK(std::count(P.begin(), P.end(), N) >= 1);
}

TEST_CASE("runtime targets materialize constants and unroll recurrent "
          "layers once, after the first fold",
          "[passes][pipelines]") {
  CHECK(pipelineForRuntimeTarget(0).empty());
  for (int L = 1; L <= 2; ++L) {
    std::vector<std::string> P = pipelineForRuntimeTarget(L);
    for (const char *Added : {"materialize-constants", "unroll-recurrence"})
      CHECK(std::count(P.begin(), P.end(), Added) == 1);
    CHECK(position(P, "materialize-constants") ==
          position(P, "fold-constants") + 1);
    CHECK(position(P, "unroll-recurrence") ==
          position(P, "materialize-constants") + 1);
    CHECK(position(P, "unroll-recurrence") < position(P, "cse"));
    for (const char *Added : {"materialize-constants", "unroll-recurrence"})
      P.erase(P.begin() + long(position(P, Added)));
    CHECK(P == pipelineForLevel(L));
  }
}

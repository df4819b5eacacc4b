// The interpreter core: input validation, error context, result checks, the
// observer, graph outputs that are inputs or constants, the kernel registry
// (every op has a kernel) and the thread pool's parallelFor.
#include "InterpreterTestHarness.h"

#include "IR/OpRegistry.h"
#include "Interpreter/Kernel.h"

#include "llvm/ADT/StringExtras.h"

#include <atomic>
#include <mutex>

using namespace kiln;
using namespace interptest;

static const char *AddRelu = R"(
graph @g(%x: f32[N,3], %y: f32[N,3]) -> (%r: f32[N,3]) {
  %s = add(%x, %y) : f32[N,3] loc("sum")
  %r = relu(%s) : f32[N,3] loc("act")
  return %r
}
)";

TEST_CASE("runs a small graph", "[interpreter]") {
  // relu(x + y): [1-4, 2+0.5, -3+1, 4+4, 0-1, 5-5] = [-3, 2.5, -2, 8, -1, 0]
  // -> [0, 2.5, 0, 8, 0, 0].
  auto R = ok(run(AddRelu, {f32({2, 3}, {1, 2, -3, 4, 0, 5}),
                            f32({2, 3}, {-4, 0.5, 1, 4, -1, -5})}));
  REQUIRE(R.size() == 1);
  CHECK(R[0].type().Elem == ElementType::F32);
  checkValues(R[0], {2, 3}, {0, 2.5, 0, 8, 0, 0});
}

TEST_CASE("input validation names the input", "[interpreter]") {
  Tensor Good = f32({1, 3}, {1, 2, 3});
  SECTION("count") {
    CHECK_THAT(err(run(AddRelu, {Good})), Catch::Contains("takes 2 inputs, got 1"));
  }
  SECTION("element type") {
    Tensor I = make<int32_t>(ElementType::I32, {1, 3}, {1, 2, 3});
    std::string E = err(run(AddRelu, {Good, I}));
    CHECK_THAT(E, Catch::Contains("'%y'"));
    CHECK_THAT(E, Catch::Contains("element type"));
  }
  SECTION("rank") {
    CHECK_THAT(err(run(AddRelu, {f32({3}, {1, 2, 3}), Good})),
               Catch::Contains("'%x'") && Catch::Contains("rank"));
  }
  SECTION("static dim") {
    CHECK_THAT(err(run(AddRelu, {f32({1, 2}, {1, 2}), Good})),
               Catch::Contains("'%x'") && Catch::Contains("dim 1"));
  }
  SECTION("a symbol takes one size across inputs") {
    Tensor Two = f32({2, 3}, {1, 2, 3, 4, 5, 6});
    CHECK_THAT(err(run(AddRelu, {Good, Two})),
               Catch::Contains("'%y'") && Catch::Contains("symbol N"));
  }
}

TEST_CASE("kernel errors carry the node name and op", "[interpreter]") {
  // The shapes are symbolic, so the mismatch only shows at run time.
  const char *Kir = R"(
graph @g(%x: f32[A], %y: f32[B]) -> (%r: f32[?]) {
  %r = add(%x, %y) : f32[?] loc("the_sum")
  return %r
}
)";
  std::string E = err(run(Kir, {f32({2}, {1, 2}), f32({3}, {1, 2, 3})}));
  CHECK_THAT(E, Catch::StartsWith("node 'the_sum' (add): "));
  CHECK_THAT(E, Catch::Contains("do not broadcast"));
}

TEST_CASE("results are checked against the declared type", "[interpreter]") {
  // reshape to a run-time shape the node mis-declares as [3,2].
  const char *Kir = R"(
graph @g(%x: f32[6], %s: i64[2]) -> (%r: f32[3,2]) {
  %r = reshape(%x, %s) : f32[3,2]
  return %r
}
)";
  Tensor X = f32({6}, {1, 2, 3, 4, 5, 6});
  CHECK(sizes(ok(run(Kir, {X, i64({2}, {3, 2})}))[0]) ==
        std::vector<int64_t>{3, 2});
  std::string E = err(run(Kir, {X, i64({2}, {2, 3})}));
  CHECK_THAT(E, Catch::StartsWith("node '%r' (reshape): "));
  CHECK_THAT(E, Catch::Contains("f32[2,3]") && Catch::Contains("declares"));
}

TEST_CASE("outputs may be inputs, constants or repeated", "[interpreter]") {
  const char *Kir = R"(
graph @g(%x: i32[2]) -> (%x: i32[2], %c: i64[2], %n: i32[2], %n: i32[2]) {
  %c = const i64[2] dense[7, -8]
  %n = neg(%x) : i32[2]
  return %x, %c, %n, %n
}
)";
  auto R = ok(run(Kir, {make<int32_t>(ElementType::I32, {2}, {3, -4})}));
  REQUIRE(R.size() == 4);
  CHECK(ints(R[0]) == std::vector<int64_t>{3, -4});
  CHECK(ints(R[1]) == std::vector<int64_t>{7, -8});
  CHECK(ints(R[2]) == std::vector<int64_t>{-3, 4});
  CHECK(ints(R[3]) == std::vector<int64_t>{-3, 4});
}

TEST_CASE("the observer sees every computed node once, in order",
          "[interpreter]") {
  std::vector<std::string> Seen;
  std::vector<double> FirstValues;
  InterpreterOptions Opts;
  Opts.Observer = [&](const Node &N, llvm::ArrayRef<Tensor> Results) {
    Seen.push_back(N.displayName());
    FirstValues.push_back(Results[0].asDouble(0));
  };
  const char *Kir = R"(
graph @g(%x: f32[1]) -> (%r: f32[1]) {
  %c = const f32[1] dense[2.0]
  %m = mul(%x, %c) : f32[1] loc("m")
  %unused = exp(%m) : f32[1] loc("dead")
  %r = neg(%m) : f32[1] loc("r")
  return %r
}
)";
  // x = 1.5: m = 3, exp(3) = 20.0855369, r = -3. const nodes are not observed.
  ok(run(Kir, {f32({1}, {1.5})}, Opts));
  CHECK(Seen == std::vector<std::string>{"m", "dead", "r"});
  REQUIRE(FirstValues.size() == 3);
  CHECK(FirstValues[0] == 3.0);
  CHECK(FirstValues[1] == Approx(20.0855369));
  CHECK(FirstValues[2] == -3.0);
}

TEST_CASE("unaligned constants are copied before kernels see them",
          "[interpreter]") {
  // An f32 constant aliasing bytes at an odd address.
  auto Storage = std::make_shared<std::vector<uint8_t>>(1 + 8);
  float Vals[2] = {1.25f, -2.5f};
  std::memcpy(Storage->data() + 1, Vals, 8);
  Graph G;
  Value *X = G.addInput(TensorType(ElementType::F32, makeShape({2})), "x");
  Value *C = G.createConstant(Tensor(TensorType(ElementType::F32, makeShape({2})),
                                     Buffer::alias(Storage, Storage->data() + 1, 8)));
  auto N = createInferred(G, "add", {X, C});
  REQUIRE(bool(N));
  G.addOutput((*N)->result());
  Interpreter I(G, InterpreterOptions{1, {}});
  auto R = I.run({f32({2}, {1, 1})});
  REQUIRE(bool(R));
  checkValues((*R)[0], {2}, {2.25, -1.5});
}

TEST_CASE("the kernel registry", "[interpreter][registry]") {
  CHECK(hasKernel("add"));
  CHECK(hasKernel("const"));
  CHECK(!hasKernel("no_such_op"));
  CHECK(findKernel("no_such_op") == nullptr);
}

// The registry and the interpreter agree: no op without a reference kernel.
TEST_CASE("every registered op has a kernel", "[interpreter][registry]") {
  std::vector<std::string> Missing;
  for (const OpDef *D : OpRegistry::instance().all())
    if (!hasKernel(D->Name))
      Missing.push_back(D->Name);
  INFO("ops without a kernel: " << llvm::join(Missing, ", "));
  CHECK(Missing.empty());
}

TEST_CASE("parallelFor covers each index exactly once", "[interpreter][pool]") {
  for (unsigned Threads : {1u, 2u, 4u, 0u}) {
    ThreadPoolRunner Pool(Threads);
    CHECK(Pool.threads() >= 1);
    for (int64_t Count : {0, 1, 7, 100, 10007}) {
      for (int64_t MinChunk : {1, 16, 1000}) {
        INFO(Threads << " threads, count " << Count << ", chunk " << MinChunk);
        std::vector<std::atomic<int>> Hits(static_cast<size_t>(Count));
        std::atomic<int64_t> Calls{0}, EmptyChunks{0};
        // Catch2 v2's assertions are not thread-safe: the workers count,
        // the test thread checks.
        Pool.parallelFor(Count, MinChunk, [&](int64_t B, int64_t E) {
          EmptyChunks += B >= E;
          ++Calls;
          for (int64_t I = B; I < E; ++I)
            ++Hits[size_t(I)];
        });
        int Bad = 0;
        for (auto &H : Hits)
          Bad += H.load() != 1;
        CHECK(Bad == 0);
        CHECK(EmptyChunks.load() == 0);
        if (Count > 0 && Count <= MinChunk)
          CHECK(Calls.load() == 1); // small work stays serial
      }
    }
  }
}

TEST_CASE("a multi-threaded run equals a single-threaded one", "[interpreter][pool]") {
  // 3*70000 elements: large enough to be split into chunks.
  const char *Kir = R"(
graph @g(%x: f32[3,70000], %b: f32[3,1]) -> (%r: f32[3,70000]) {
  %s = mul(%x, %b) : f32[3,70000]
  %r = sigmoid(%s) : f32[3,70000]
  return %r
}
)";
  std::vector<float> XV(3 * 70000);
  for (size_t I = 0; I < XV.size(); ++I)
    XV[I] = float(int(I % 201) - 100) / 25.0f;
  Tensor X = f32({3, 70000}, XV), B = f32({3, 1}, {1, -2, 0.5});
  InterpreterOptions One, Four;
  One.Threads = 1;
  Four.Threads = 4;
  auto R1 = ok(run(Kir, {X, B}, One)), R4 = ok(run(Kir, {X, B}, Four));
  CHECK(R1[0].buffer().str() == R4[0].buffer().str());
  // Spot check: element (1, 5) is flat index 70005 = 348 * 201 + 57, so
  // x = (57 - 100)/25 = -1.72; times b[1] = -2 gives 3.44;
  // sigmoid(3.44) = 1/(1+e^-3.44) = 0.9689315.
  CHECK(R1[0].asDouble(70005) == Approx(1.0 / (1.0 + std::exp(-3.44))));
}

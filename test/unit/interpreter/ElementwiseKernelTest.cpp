// Elementwise kernels: unary math and activations, clip, broadcast binaries
// (incl. integer wrap and C-style division), pow with mixed types,
// comparisons, where and cast. Float expectations come from the formulas,
// evaluated independently (Python's math module), and are quoted inline.
#include "InterpreterTestHarness.h"

#include "IR/Tensor.h"

#include <limits>

using namespace kiln;
using namespace interptest;

/// Runs one unary node `%r = OP(%x) {ATTRS} : TYPE` on X.
static Tensor unary(const std::string &Op, const Tensor &X,
                    const std::string &Attrs = "") {
  std::string Ty = toString(X.type());
  std::string Kir = "graph @g(%x: " + Ty + ") -> (%r: " + Ty + ") {\n  %r = " +
                    Op + "(%x) " + Attrs + " : " + Ty + "\n  return %r\n}\n";
  return ok(run(Kir, {X}))[0];
}

/// Runs one binary node on A and B with result type RTy.
static llvm::Expected<std::vector<Tensor>>
binary(const std::string &Op, const Tensor &A, const Tensor &B,
       const std::string &RTy) {
  std::string Kir = "graph @g(%a: " + toString(A.type()) + ", %b: " +
                    toString(B.type()) + ") -> (%r: " + RTy + ") {\n  %r = " +
                    Op + "(%a, %b) : " + RTy + "\n  return %r\n}\n";
  return run(Kir, {A, B});
}

TEST_CASE("unary float ops", "[elementwise]") {
  Tensor X = f32({3}, {-1, 0, 2});
  // 1/(1+e^1), 1/2, 1/(1+e^-2)
  checkValues(unary("sigmoid", X), {3}, {0.2689414214, 0.5, 0.8807970780});
  checkValues(unary("tanh", X), {3}, {-0.7615941560, 0, 0.9640275801});
  checkValues(unary("exp", X), {3}, {0.3678794412, 1, 7.3890560989});
  // log(1 + e^x)
  checkValues(unary("softplus", X), {3}, {0.3132616875, 0.6931471806, 2.1269280110});
  // x * tanh(softplus(x))
  checkValues(unary("mish", X), {3}, {-0.3034014614, 0, 1.9439589595});
  // x * clamp(x/6 + 1/2, 0, 1): -1 * 1/3, 0, 2 * 5/6
  checkValues(unary("hard_swish", X), {3}, {-1.0 / 3, 0, 5.0 / 3});
  checkValues(unary("erf", X), {3}, {-0.8427007929, 0, 0.9953222650});
  checkValues(unary("relu", X), {3}, {0, 0, 2});
  checkValues(unary("identity", X), {3}, {-1, 0, 2});
  // e^-1 - 1 = -0.6321205588
  checkValues(unary("elu", X), {3}, {-0.6321205588, 0, 2});
  // gamma * alpha * (e^-1 - 1), 0, gamma * 2 (ONNX default alpha, gamma)
  checkValues(unary("selu", X), {3}, {-1.1113307413, 0, 2.1014020443});
  // alpha = 2: min(0, 2(e^-0.5 - 1)) = -0.7869386806
  checkValues(unary("celu", X, "{alpha=2.0}"), {3}, {-0.7869386806, 0, 2});
  // clamp(0.2x + 0.5, 0, 1)
  checkValues(unary("hard_sigmoid", X), {3}, {0.3, 0.5, 0.9});
  checkValues(unary("leaky_relu", X, "{alpha=0.1}"), {3}, {-0.1, 0, 2});
  // 0.5x(1 + erf(x/sqrt 2))
  checkValues(unary("gelu", X), {3}, {-0.1586552539, 0, 1.9544997361});
  // 0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x^3)))
  checkValues(unary("gelu", X, "{approximate=\"tanh\"}"), {3},
              {-0.1588080094, 0, 1.9545976941});
  checkValues(unary("sign", f32({4}, {-2.5, 0, 3, NAN})), {4}, {-1, 0, 1, NAN});

  Tensor P = f32({3}, {0.25, 1, 4});
  checkValues(unary("log", P), {3}, {-1.3862943611, 0, 1.3862943611});
  checkValues(unary("sqrt", P), {3}, {0.5, 1, 2});
  checkValues(unary("reciprocal", P), {3}, {4, 1, 0.25});
  Tensor H = f32({4}, {-1.5, -0.5, 0.5, 2});
  checkValues(unary("floor", H), {4}, {-2, -1, 0, 2});
  checkValues(unary("ceil", H), {4}, {-1, 0, 1, 2});
  checkValues(unary("neg", H), {4}, {1.5, 0.5, -0.5, -2});
  checkValues(unary("abs", H), {4}, {1.5, 0.5, 0.5, 2});
}

TEST_CASE("unary ops on f64, f16 and bf16", "[elementwise]") {
  Tensor D = make<double>(ElementType::F64, {2}, {1, -1});
  Tensor RD = unary("exp", D);
  CHECK(RD.type().Elem == ElementType::F64);
  CHECK(RD.at<double>(0) == Approx(2.718281828459045).epsilon(1e-15));
  // f16 exp(1): the halves around e are 2.716796875 and 2.71875 (ulp 2^-9);
  // e = 2.7182818 is nearer 2.71875.
  Tensor Half = make<uint16_t>(ElementType::F16, {2}, {floatToHalf(1), floatToHalf(-2)});
  Tensor RH = unary("exp", Half);
  CHECK(RH.type().Elem == ElementType::F16);
  CHECK(halfToFloat(RH.at<uint16_t>(0)) == 2.71875f);
  Tensor RB = unary("relu", make<uint16_t>(ElementType::BF16, {2},
                                           {floatToBf16(-3), floatToBf16(1.5)}));
  CHECK(RB.type().Elem == ElementType::BF16);
  CHECK(values(RB) == std::vector<double>{0, 1.5});
}

TEST_CASE("integer unary ops wrap like numpy", "[elementwise]") {
  Tensor I = make<int8_t>(ElementType::I8, {4}, {-128, -3, 0, 5});
  CHECK(ints(unary("neg", I)) == std::vector<int64_t>{-128, 3, 0, -5});
  CHECK(ints(unary("abs", I)) == std::vector<int64_t>{-128, 3, 0, 5});
  CHECK(ints(unary("relu", I)) == std::vector<int64_t>{0, 0, 0, 5});
  CHECK(ints(unary("sign", I)) == std::vector<int64_t>{-1, -1, 0, 1});
  Tensor U = make<uint32_t>(ElementType::U32, {2}, {0, 7});
  CHECK(ints(unary("abs", U)) == std::vector<int64_t>{0, 7});
  CHECK(ints(unary("sign", U)) == std::vector<int64_t>{0, 1});
  // A float-only op refuses integers with a clear message.
  std::string Kir = "graph @g(%x: i32[1]) -> (%r: i32[1]) {\n"
                    "  %r = sigmoid(%x) : i32[1]\n  return %r\n}\n";
  CHECK_THAT(err(run(Kir, {make<int32_t>(ElementType::I32, {1}, {1})})),
             Catch::Contains("(sigmoid)") && Catch::Contains("i32"));
}

TEST_CASE("clip: attributes, operands, integers, NaN", "[elementwise]") {
  Tensor X = f32({4}, {-1, 3, 7, NAN});
  checkValues(unary("clip", X, "{min=0.0, max=6.0}"), {4}, {0, 3, 6, NAN});
  checkValues(unary("clip", X), {4}, {-1, 3, 7, NAN}); // +-inf defaults
  // Operands override the attributes: min from %lo = -0.5, max absent.
  const char *Kir = R"(
graph @g(%x: f32[3]) -> (%r: f32[3]) {
  %lo = const f32[] dense[-0.5]
  %r = clip(%x, %lo, none) {min=5.0, max=6.0} : f32[3]
  return %r
}
)";
  checkValues(ok(run(Kir, {f32({3}, {-2, 0, 9})}))[0], {3}, {-0.5, 0, 6});
  // Integers: default bounds keep everything; operand bounds clamp.
  Tensor I = make<int8_t>(ElementType::I8, {4}, {-128, -6, 6, 127});
  CHECK(ints(unary("clip", I)) == std::vector<int64_t>{-128, -6, 6, 127});
  const char *IntKir = R"(
graph @g(%x: i8[4]) -> (%r: i8[4]) {
  %lo = const i8[] dense[-5]
  %hi = const i8[] dense[5]
  %r = clip(%x, %lo, %hi) : i8[4]
  return %r
}
)";
  CHECK(ints(ok(run(IntKir, {I}))[0]) == std::vector<int64_t>{-5, -5, 5, 5});
  // min > max gives max everywhere (numpy.clip order).
  checkValues(unary("clip", f32({2}, {0, 10}), "{min=3.0, max=1.0}"), {2}, {1, 1});
}

TEST_CASE("binary ops broadcast", "[elementwise][broadcast]") {
  // Same shape.
  checkValues(ok(binary("add", f32({3}, {1, 2, 3}), f32({3}, {10, 20, 30}),
                        "f32[3]"))[0], {3}, {11, 22, 33});
  // Scalar on either side: 10 - x and x - 10.
  checkValues(ok(binary("sub", f32({}, {10}), f32({3}, {1, 2, 3}), "f32[3]"))[0],
              {3}, {9, 8, 7});
  checkValues(ok(binary("sub", f32({3}, {1, 2, 3}), f32({}, {10}), "f32[3]"))[0],
              {3}, {-9, -8, -7});
  // Per-channel: x[1,2,2,2] = 0..7, b[1,2,1,1] = [100, 200].
  checkValues(ok(binary("add", f32({1, 2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}),
                        f32({1, 2, 1, 1}, {100, 200}), "f32[1,2,2,2]"))[0],
              {1, 2, 2, 2}, {100, 101, 102, 103, 204, 205, 206, 207});
  // Outer product shape: [2,1] * [3] -> [2,3] = [[1*1, 1*2, 1*3], [2*1, ...]].
  checkValues(ok(binary("mul", f32({2, 1}, {1, 2}), f32({3}, {1, 2, 3}),
                        "f32[2,3]"))[0], {2, 3}, {1, 2, 3, 2, 4, 6});
  // Middle-axis broadcast: [2,1,2] + [1,3,1] -> [2,3,2];
  // r[i,j,k] = a[i,k] + b[j] with a = [[1,2],[3,4]], b = [10,20,30].
  checkValues(ok(binary("add", f32({2, 1, 2}, {1, 2, 3, 4}),
                        f32({1, 3, 1}, {10, 20, 30}), "f32[2,3,2]"))[0],
              {2, 3, 2}, {11, 12, 21, 22, 31, 32, 13, 14, 23, 24, 33, 34});
  // f16: 1.5 + 2.25 = 3.75 (exact in half).
  Tensor HA = make<uint16_t>(ElementType::F16, {1}, {floatToHalf(1.5)});
  Tensor HB = make<uint16_t>(ElementType::F16, {1}, {floatToHalf(2.25)});
  CHECK(values(ok(binary("add", HA, HB, "f16[1]"))[0]) == std::vector<double>{3.75});
}

TEST_CASE("integer arithmetic wraps and divides like C", "[elementwise]") {
  auto U8 = [](std::vector<uint8_t> V) {
    int64_t N = int64_t(V.size());
    return make<uint8_t>(ElementType::U8, {N}, V);
  };
  // 1 - 2 = -1 = 255 mod 256; 200 + 100 = 300 = 44 mod 256.
  CHECK(ints(ok(binary("sub", U8({1}), U8({2}), "u8[1]"))[0]) == std::vector<int64_t>{255});
  CHECK(ints(ok(binary("add", U8({200}), U8({100}), "u8[1]"))[0]) == std::vector<int64_t>{44});
  // int16: 300 * 300 = 90000 = 90000 - 65536 = 24464.
  Tensor S = make<int16_t>(ElementType::I16, {1}, {300});
  CHECK(ints(ok(binary("mul", S, S, "i16[1]"))[0]) == std::vector<int64_t>{24464});
  // Truncating division: 7/-2 = -3, -7/2 = -3, -8/-2 = 4; INT32_MIN / -1 wraps.
  Tensor A = make<int32_t>(ElementType::I32, {4}, {7, -7, -8, INT32_MIN});
  Tensor B = make<int32_t>(ElementType::I32, {4}, {-2, 2, -2, -1});
  CHECK(ints(ok(binary("div", A, B, "i32[4]"))[0]) ==
        std::vector<int64_t>{-3, -3, 4, INT32_MIN});
  Tensor Z = make<int32_t>(ElementType::I32, {4}, {1, 0, 1, 1});
  CHECK_THAT(err(binary("div", A, Z, "i32[4]")), Catch::Contains("division by zero"));
  // Float division by zero is IEEE: 1/0 = inf.
  checkValues(ok(binary("div", f32({1}, {1}), f32({1}, {0}), "f32[1]"))[0], {1},
              {std::numeric_limits<double>::infinity()});
}

TEST_CASE("min and max, NaN propagates", "[elementwise]") {
  Tensor A = f32({3}, {1, NAN, 5}), B = f32({3}, {2, 1, NAN});
  checkValues(ok(binary("min", A, B, "f32[3]"))[0], {3}, {1, NAN, NAN});
  checkValues(ok(binary("max", A, B, "f32[3]"))[0], {3}, {2, NAN, NAN});
  Tensor U = make<uint64_t>(ElementType::U64, {2}, {uint64_t(1) << 63, 3});
  Tensor V = make<uint64_t>(ElementType::U64, {2}, {5, 2});
  Tensor Mx = ok(binary("max", U, V, "u64[2]"))[0];
  CHECK(Mx.at<uint64_t>(0) == uint64_t(1) << 63);
  CHECK(Mx.at<uint64_t>(1) == 3);
}

TEST_CASE("pow with mixed element types", "[elementwise][pow]") {
  // f32 ^ f32: 2^3 = 8, 3^0.5 = 1.7320508076, 4^-1 = 0.25.
  checkValues(ok(binary("pow", f32({3}, {2, 3, 4}), f32({3}, {3, 0.5, -1}),
                        "f32[3]"))[0], {3}, {8, 1.7320508076, 0.25});
  // f32 ^ i64 (exponent broadcast as a scalar): [1,2,3]^2.
  checkValues(ok(binary("pow", f32({3}, {1, 2, 3}), i64({}, {2}), "f32[3]"))[0],
              {3}, {1, 4, 9});
  // i32 ^ i64 exact: 2^10 = 1024, 3^3 = 27, (-2)^3 = -8; 2^-1 truncates to 0.
  Tensor IB = make<int32_t>(ElementType::I32, {4}, {2, 3, -2, 2});
  CHECK(ints(ok(binary("pow", IB, i64({4}, {10, 3, 3, -1}), "i32[4]"))[0]) ==
        std::vector<int64_t>{1024, 27, -8, 0});
  // i64 ^ i64 beyond 2^53 stays exact: 3^39 = 4052555153018976267.
  CHECK(ok(binary("pow", i64({1}, {3}), i64({1}, {39}), "i64[1]"))[0].at<int64_t>(0) ==
        4052555153018976267LL);
  // i32 ^ f32 truncates: 1^1.5 = 1, 2^0.5 = 1.41 -> 1, 3^2 = 9 (ONNX Pow).
  Tensor IF = make<int32_t>(ElementType::I32, {3}, {1, 2, 3});
  CHECK(ints(ok(binary("pow", IF, f32({3}, {1.5, 0.5, 2}), "i32[3]"))[0]) ==
        std::vector<int64_t>{1, 1, 9});
}

TEST_CASE("comparisons give bool", "[elementwise]") {
  Tensor A = f32({2, 2}, {1, 2, 3, NAN}), B = f32({2}, {2, 2});
  Tensor Eq = ok(binary("equal", A, B, "bool[2,2]"))[0];
  CHECK(Eq.type().Elem == ElementType::Bool);
  CHECK(ints(Eq) == std::vector<int64_t>{0, 1, 0, 0});
  CHECK(ints(ok(binary("less", A, B, "bool[2,2]"))[0]) ==
        std::vector<int64_t>{1, 0, 0, 0});
  CHECK(ints(ok(binary("greater", A, B, "bool[2,2]"))[0]) ==
        std::vector<int64_t>{0, 0, 1, 0});
  Tensor BA = make<uint8_t>(ElementType::Bool, {2}, {1, 0});
  Tensor BB = make<uint8_t>(ElementType::Bool, {2}, {1, 1});
  CHECK(ints(ok(binary("equal", BA, BB, "bool[2]"))[0]) == std::vector<int64_t>{1, 0});
}

TEST_CASE("where broadcasts all three operands", "[elementwise]") {
  const char *Kir = R"(
graph @g(%c: bool[2,1], %a: i64[2,2], %b: i64[]) -> (%r: i64[2,2]) {
  %r = where(%c, %a, %b) : i64[2,2]
  return %r
}
)";
  // Row 0 takes a, row 1 takes the scalar b = -1.
  auto R = ok(run(Kir, {make<uint8_t>(ElementType::Bool, {2, 1}, {1, 0}),
                        i64({2, 2}, {1, 2, 3, 4}), i64({}, {-1})}));
  CHECK(ints(R[0]) == std::vector<int64_t>{1, 2, -1, -1});
}

TEST_CASE("prelu: slope broadcasts per channel", "[elementwise]") {
  // x[1,2,2] with slopes [0.5, 2]: negatives scale by their channel's slope.
  checkValues(ok(binary("prelu", f32({1, 2, 2}, {-2, 3, -4, 5}),
                        f32({2, 1}, {0.5, 2}), "f32[1,2,2]"))[0],
              {1, 2, 2}, {-1, 3, -8, 5});
}

static Tensor cast(const Tensor &X, const std::string &To) {
  std::string Out = toString(TensorType(*parseElementType(To), X.type().Dims));
  std::string Kir = "graph @g(%x: " + toString(X.type()) + ") -> (%r: " + Out +
                    ") {\n  %r = cast(%x) {to=\"" + To + "\"} : " + Out +
                    "\n  return %r\n}\n";
  return ok(run(Kir, {X}))[0];
}

TEST_CASE("cast between element types", "[elementwise][cast]") {
  Tensor F = f32({4}, {-2.7f, 2.7f, 0.5f, -0.5f});
  CHECK(ints(cast(F, "i32")) == std::vector<int64_t>{-2, 2, 0, 0}); // truncation
  CHECK(ints(cast(F, "i64")) == std::vector<int64_t>{-2, 2, 0, 0});
  CHECK(ints(cast(f32({4}, {0, -0.0f, 0.5f, NAN}), "bool")) ==
        std::vector<int64_t>{0, 0, 1, 1});
  CHECK(values(cast(make<uint8_t>(ElementType::Bool, {2}, {1, 0}), "f32")) ==
        std::vector<double>{1, 0});
  // int -> int wraps: 300 = 256 + 44; -129 = -256 + 127.
  CHECK(ints(cast(i64({2}, {300, -129}), "i8")) == std::vector<int64_t>{44, 127});
  CHECK(ints(cast(i64({1}, {-1}), "u16")) == std::vector<int64_t>{65535});
  // u64 2^63 -> f64 exactly.
  CHECK(cast(make<uint64_t>(ElementType::U64, {1}, {uint64_t(1) << 63}), "f64")
            .at<double>(0) == 9223372036854775808.0);
  // f32 -> f16: 1/3 rounds to 0x3555 = (1 + 341/1024) / 4 = 0.333251953125.
  Tensor H = cast(f32({1}, {1.0f / 3}), "f16");
  CHECK(H.at<uint16_t>(0) == 0x3555);
  CHECK(values(cast(H, "f64")) == std::vector<double>{0.333251953125});
  // f64 -> f16 rounds once: 1 + 2^-11 + 2^-40 is above the midpoint of 1 and
  // 1 + 2^-10, so it rounds up (through f32 first it would tie to 1).
  Tensor D = make<double>(ElementType::F64, {1}, {1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)});
  CHECK(values(cast(D, "f16")) == std::vector<double>{1 + std::ldexp(1.0, -10)});
  // f32 -> bf16 truncates (ONNX 1.12 test_cast_FLOAT_to_BFLOAT16): 1 + 3*2^-9
  // is 0.75 of a bf16 ulp (2^-7) above 1, yet gives 1. NaN stays NaN.
  Tensor B = cast(f32({3}, {1 + 3 * std::ldexp(1.0f, -9), -2.5f, NAN}), "bf16");
  CHECK(B.type().Elem == ElementType::BF16);
  checkValues(cast(B, "f32"), {3}, {1, -2.5, NAN}, 0, 0);
  // Identity cast keeps the data.
  CHECK(values(cast(F, "f32")) == values(F));
}

// What the CPU target makes of small graphs: NHWC between spatial ops with
// one transpose at the input, pre-packed weights, fused activations as clamp
// bounds (or an extra operator), depthwise detection, and one error listing
// every unsupported node.
#include "backends/kilnops/KilnOps.h"
#include "backends/kilnops/QuantLowering.h"

#include "IR/Parser.h"
#include "LlvmErrorChecks.h"
#include "Support/Error.h"

#include <catch2/catch.hpp>


using namespace kiln;

namespace {

KilnOpsResult compile(const std::string &Kir) {
  auto G = requireValue(parseGraph(Kir, "test.kir"));
  return requireValue(lowerToKilnOps(*G));
}

std::vector<std::string> kinds(const fb::ModelT &M) {
  std::vector<std::string> K;
  for (const auto &Op : M.operators)
    K.push_back(fb::EnumNameOpKind(Op->kind));
  return K;
}

const fb::TensorT &tensor(const fb::ModelT &M, int32_t I) {
  return *M.tensors[size_t(I)];
}

} // namespace

TEST_CASE("conv + relu + global pool + flatten + linear", "[cpu]") {
  KilnOpsResult R = compile(R"(graph @g(%x: f32[1,2,4,4]) -> (%y: f32[1,3]) {
  %w = const f32[3,2,1,1] dense[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
  %c = conv(%x, %w) {activation="relu"} : f32[1,3,4,4]
  %p = global_avg_pool(%c) : f32[1,3,1,1]
  %f = flatten(%p) {axis=1} : f32[1,3]
  %fw = const f32[3,3] dense[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]
  %y = linear(%f, %fw) : f32[1,3]
  return %y
})");
  const fb::ModelT &M = R.Module.Model;
  // The input is transposed once; the pool's [1,1,1,3] NHWC result has the
  // same bytes as [1,3,1,1], so it goes back to NCHW with a reshape.
  REQUIRE(kinds(M) == std::vector<std::string>{"TRANSPOSE", "CONV_2D",
                                               "GLOBAL_AVERAGE_POOL_2D",
                                               "RESHAPE", "RESHAPE",
                                               "FULLY_CONNECTED"});
  REQUIRE(M.operators[0]->options.AsTransposeOptions()->perm ==
          std::vector<int32_t>{0, 2, 3, 1});
  const fb::Conv2DOptionsT &Conv = *M.operators[1]->options.AsConv2DOptions();
  REQUIRE(Conv.output_min == 0.0f);
  REQUIRE(Conv.output_max == std::numeric_limits<float>::infinity());
  REQUIRE(Conv.group_input_channels == 2);
  REQUIRE(Conv.group_output_channels == 3);
  REQUIRE(!Conv.depthwise);
  const fb::TensorT &W = tensor(M, M.operators[1]->inputs[1]);
  REQUIRE(W.layout == fb::Layout::OHWI);
  REQUIRE(W.shape == std::vector<int64_t>{3, 1, 1, 2});
  REQUIRE(tensor(M, M.operators[1]->inputs[0]).layout == fb::Layout::NHWC);
  REQUIRE(M.operators[1]->inputs[2] == -1); // no bias
  REQUIRE(M.operators[1]->engine == fb::Engine::XNNPACK);
  // The layout transpose: the runtime picks (oneDNN's reorder on x86).
  REQUIRE(M.operators[0]->engine == fb::Engine::ANY);
  // Graph I/O keep the source layout; metadata describes them.
  REQUIRE(tensor(M, M.inputs[0]).layout == fb::Layout::NCHW);
  REQUIRE(M.metadata->target == "cpu");
  REQUIRE(M.metadata->inputs[0]->name == "x");
  REQUIRE(M.metadata->outputs[0]->shape == std::vector<int64_t>{1, 3});
  // The report attributes the transpose to the conv that needed it.
  REQUIRE(R.Nodes[0].Op == "conv");
  REQUIRE(R.Nodes[0].Ops.size() == 2);
  REQUIRE(R.Nodes[0].Ops[1] ==
          std::pair<std::string, std::string>{"CONV_2D", "xnnpack"});
}

TEST_CASE("a depthwise conv gets HWO weights", "[cpu]") {
  KilnOpsResult R = compile(R"(graph @g(%x: f32[1,2,3,3]) -> (%y: f32[1,4,3,3]) {
  %w = const f32[4,1,1,1] dense[1.0, 2.0, 3.0, 4.0]
  %y = conv(%x, %w) {group=2, activation="clip", activation_min=0.0, activation_max=6.0} : f32[1,4,3,3]
  return %y
})");
  const fb::ModelT &M = R.Module.Model;
  const fb::OperatorT &Conv = *M.operators[1];
  const fb::Conv2DOptionsT &O = *Conv.options.AsConv2DOptions();
  REQUIRE(O.depthwise);
  REQUIRE(O.groups == 2);
  REQUIRE(O.group_output_channels == 2);
  REQUIRE(O.output_max == 6.0f);
  const fb::TensorT &W = tensor(M, Conv.inputs[1]);
  REQUIRE(W.layout == fb::Layout::HWO);
  REQUIRE(W.shape == std::vector<int64_t>{1, 1, 1, 4});
  // The output goes back to NCHW for the caller.
  REQUIRE(kinds(M).back() == "TRANSPOSE");
  REQUIRE(M.operators.back()->options.AsTransposeOptions()->perm ==
          std::vector<int32_t>{0, 3, 1, 2});
}

TEST_CASE("leaky_relu and hard_swish become an operator after the producer",
          "[cpu]") {
  KilnOpsResult R = compile(R"(graph @g(%x: f32[2,3]) -> (%y: f32[2,2]) {
  %w = const f32[2,3] dense[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
  %y = linear(%x, %w) {activation="leaky_relu", activation_alpha=0.2} : f32[2,2]
  return %y
})");
  const fb::ModelT &M = R.Module.Model;
  REQUIRE(kinds(M) == std::vector<std::string>{"FULLY_CONNECTED", "UNARY"});
  const fb::UnaryOptionsT &U = *M.operators[1]->options.AsUnaryOptions();
  REQUIRE(U.op == fb::UnaryOp::LEAKY_RELU);
  REQUIRE(U.alpha == 0.2f);
  REQUIRE(M.operators[1]->outputs[0] == M.outputs[0]);
}

TEST_CASE("elementwise ops stay in NHWC after a conv", "[cpu]") {
  KilnOpsResult R = compile(R"(graph @g(%x: f32[1,2,2,2]) -> (%y: f32[1,2,2,2]) {
  %w = const f32[2,2,1,1] dense[1.0, 0.0, 0.0, 1.0]
  %c = conv(%x, %w) : f32[1,2,2,2]
  %s = const f32[2,1,1] dense[10.0, 20.0]
  %a = add(%c, %s) : f32[1,2,2,2]
  %y = sigmoid(%a) : f32[1,2,2,2]
  return %y
})");
  const fb::ModelT &M = R.Module.Model;
  REQUIRE(kinds(M) == std::vector<std::string>{"TRANSPOSE", "CONV_2D", "BINARY",
                                               "UNARY", "TRANSPOSE"});
  // The per-channel constant is permuted at compile time: [1,1,1,2].
  const fb::TensorT &S = tensor(M, M.operators[2]->inputs[1]);
  REQUIRE(S.shape == std::vector<int64_t>{1, 1, 1, 2});
  REQUIRE(S.layout == fb::Layout::NHWC);
  REQUIRE(M.operators[3]->options.AsUnaryOptions()->op == fb::UnaryOp::SIGMOID);
}

TEST_CASE("every unsupported node is listed in one error", "[cpu]") {
  auto G = requireValue(parseGraph(R"(graph @g(%x: f32[2,3], %i: i64[2]) -> (%y: f32[2,3], %z: f32[2,3], %v: i64[2]) {
  %y = instance_norm(%x, %x, %x) : f32[2,3]
  %z = lrn(%x) {size=3} : f32[2,3]
  %v = abs(%i) : i64[2]
  return %y, %z, %v
})",
                                   "test.kir"));
  auto R = lowerToKilnOps(*G);
  REQUIRE(!R);
  Diagnosis D = diagnose(R.takeError());
  REQUIRE(D.Code == ExitCode::BadInput);
  REQUIRE(D.Message ==
          "the CPU target cannot run 3 part(s) of this model:\n"
          "  node '%y' (instance_norm): the CPU target has no kernel for "
          "'instance_norm'\n"
          "  node '%z' (lrn): the CPU target has no kernel for 'lrn'\n"
          "  node '%v' (abs): f32 operands only (got i64)");
}

TEST_CASE("a symbolic batch stays open in the module", "[cpu]") {
  auto G = requireValue(parseGraph(R"(graph @g(%x: f32[N,3,2,2], %z: f32[2]) -> (%y: f32[N,2], %v: f32[2]) {
  %w = const f32[2,12] dense[0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5]
  %v = relu(%z) : f32[2]
  %r = relu(%x) : f32[N,3,2,2]
  %f = flatten(%r) {axis=1} : f32[N,12]
  %y = linear(%f, %w) : f32[N,2]
  return %y, %v
})",
                                   "test.kir"));
  KilnOpsResult R = requireValue(lowerToKilnOps(*G));
  const fb::ModelT &M = R.Module.Model;
  REQUIRE(M.symbols == std::vector<std::string>{"N"});
  for (int32_t T : {M.inputs[0], M.outputs[0]}) {
    const fb::TensorT &Open = tensor(M, T);
    REQUIRE(Open.shape[0] == -1);
    REQUIRE(Open.symbolic_dims.size() == 1);
    REQUIRE(Open.symbolic_dims[0]->axis == 0);
    REQUIRE(Open.symbolic_dims[0]->symbol == 0);
    REQUIRE(Open.symbolic_dims[0]->factor == 1);
  }
  REQUIRE(tensor(M, M.inputs[0]).shape == std::vector<int64_t>{-1, 3, 2, 2});
  REQUIRE(tensor(M, M.outputs[0]).shape == std::vector<int64_t>{-1, 2});
  // A static input and output stay static.
  REQUIRE(tensor(M, M.inputs[1]).symbolic_dims.empty());
  REQUIRE(tensor(M, M.outputs[1]).shape == std::vector<int64_t>{2});
}

TEST_CASE("a dim the file cannot keep names the node", "[cpu]") {
  auto G = requireValue(parseGraph(R"(graph @g(%x: f32[N,3]) -> (%y: f32[?,3]) {
  %st = const i64[1] dense[1]
  %en = const i64[1] dense[1000000]
  %ax = const i64[1] dense[0]
  %y = slice(%x, %st, %en, %ax, none) : f32[?,3]
  return %y
})",
                                   "test.kir"));
  auto R = lowerToKilnOps(*G);
  REQUIRE(!R);
  std::string Message = llvm::toString(R.takeError());
  INFO(Message);
  REQUIRE(Message.find("node '%y' (slice): its result f32[?,3] has a dim "
                       "that depends on the symbolic dim(s) 'N'") !=
          std::string::npos);
  REQUIRE(Message.find("--input-shape") != std::string::npos);
}

TEST_CASE("the int8 extensions follow the lowering options",
          "[cpu][lowering]") {
  // NNAPI lowers with the bias scales kept; a lowering without the
  // elementwise extensions keeps the activation tables float. The options
  // are a value: nothing one conversion sets reaches another.
  auto G = requireValue(parseGraph(R"(graph @g(%x: f32[4]) -> (%y: f32[4]) {
  %y = sigmoid(%x) : f32[4]
  return %y
})",
                                   "test.kir"));
  const Node &Sigmoid = *G->nodes().begin();
  LoweringOptions Defaults;
  CHECK(Defaults.Int8Elementwise);
  CHECK(Defaults.OmitInt8BiasScales);
  CHECK(isInt8Table(Sigmoid, Defaults));
  LoweringOptions NoElementwise;
  NoElementwise.Int8Elementwise = false;
  CHECK(!isInt8Table(Sigmoid, NoElementwise));
  CHECK(isInt8Table(Sigmoid, Defaults)); // unchanged by the other value
}

TEST_CASE("constants behind casts and dequantizes fold once per lowering",
          "[cpu][lowering]") {
  // w = dequantize(i8 [2, -4], scale 0.25, zero point 0) = [0.5, -1.0];
  // lo = cast(f16 -1.5) = -1.5; x is computed. Worked out by hand from
  // dequantize's (q - zp) * scale.
  auto G = requireValue(parseGraph(R"(graph @g(%x: f32[2]) -> (%y: f32[2]) {
  %q = const i8[2] dense[2, -4]
  %s = const f32[] dense[0.25]
  %z = const i8[] dense[0]
  %w = dequantize(%q, %s, %z) : f32[2]
  %h = const f16[] dense[-1.5]
  %lo = cast(%h) {to="f32"} : f32[]
  %a = add(%x, %w) : f32[2]
  %y = clip(%a, %lo) : f32[2]
  return %y
})",
                                   "test.kir"));
  const Value *W = nullptr, *Lo = nullptr, *A = nullptr;
  for (const Node &N : G->nodes()) {
    if (N.isOp("dequantize"))
      W = N.result();
    if (N.isOp("cast"))
      Lo = N.result();
    if (N.isOp("add"))
      A = N.result();
  }
  REQUIRE(W);
  REQUIRE(Lo);
  REQUIRE(A);
  // Checks see through the narrowing nodes without a lowering in progress.
  CHECK(isConstantOrFolded(W));
  CHECK(isConstantOrFolded(Lo));
  CHECK(!isConstantOrFolded(A));
  CHECK(!constantScalar(W)); // two elements
  REQUIRE(constantScalar(Lo));
  CHECK(*constantScalar(Lo) == -1.5);
  // One owner's folds: the same tensor each time it is asked for, with the
  // dequantized values; another owner folds its own.
  ConstantFolds Folds;
  const Tensor *Folded = Folds.constantOf(W);
  REQUIRE(Folded);
  CHECK(Folded->type().Elem == ElementType::F32);
  REQUIRE(Folded->numElements() == 2);
  CHECK(Folded->at<float>(0) == 0.5f);
  CHECK(Folded->at<float>(1) == -1.0f);
  CHECK(Folds.constantOf(W) == Folded);
  CHECK(Folds.constantOf(A) == nullptr);
  ConstantFolds Other;
  CHECK(Other.constantOf(W) != Folded);
  CHECK(Other.constantOf(W)->at<float>(1) == -1.0f);
  // And the whole graph lowers, with no scope to open first.
  auto R = lowerToKilnOps(*G);
  if (!R)
    FAIL(llvm::toString(R.takeError()));
}

// ONNX importer: the IR produced for small models from test/onnx-models
// (op names, attributes, shapes, provenance), aliasing of initializer data,
// version normalization, and that errors list every unsupported node.
#include "frontends/onnx/OnnxImporter.h"

#include "Support/Error.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace kiln;

namespace {

std::string modelPath(const char *Name) {
  return std::string(KILN_SOURCE_DIR) + "/test/onnx-models/" + Name;
}

std::unique_ptr<Graph> load(const char *Name, const OnnxImportOptions &O = {}) {
  auto G = importOnnxFile(modelPath(Name), O);
  if (!G) {
    FAIL_CHECK(llvm::toString(G.takeError()));
    return nullptr;
  }
  return std::move(*G);
}

/// The non-const ops in graph order.
std::vector<std::string> ops(const Graph &G) {
  std::vector<std::string> Out;
  for (const Node &N : G.nodes())
    if (!N.isOp("const"))
      Out.push_back(N.opName().str());
  return Out;
}

const Node *firstOp(const Graph &G, llvm::StringRef Name) {
  for (const Node &N : G.nodes())
    if (N.isOp(Name))
      return &N;
  return nullptr;
}

std::string errorOf(const char *Path) {
  auto G = importOnnxFile(Path);
  REQUIRE(!bool(G));
  Diagnosis D = diagnose(G.takeError());
  CHECK(D.Code == ExitCode::BadInput);
  return D.Message;
}

} // namespace

TEST_CASE("Conv + Relu map to conv and relu with pads, shapes and sources",
          "[onnx]") {
  auto G = load("conv_relu.onnx");
  REQUIRE(G);
  CHECK(ops(*G) == std::vector<std::string>{"conv", "relu"});
  const Node *C = firstOp(*G, "conv");
  REQUIRE(C);
  CHECK(C->getInts("pads") == std::vector<int64_t>{1, 1, 1, 1});
  CHECK(C->getInt("group") == 1);
  CHECK(C->numOperands() == 3);
  CHECK(C->sources() == std::vector<std::string>{"conv0"});
  CHECK(toString(C->result()->type()) == "f32[1,4,8,8]");
  CHECK(C->result()->name() == "c");
  // Unnamed ONNX nodes get a stable name from op type and index.
  CHECK(firstOp(*G, "relu")->sources() == std::vector<std::string>{"Relu_1"});
  REQUIRE(G->numInputs() == 1);
  CHECK(G->input(0)->name() == "x");
  CHECK(G->outputs()[0]->name() == "y");
}

TEST_CASE("auto_pad SAME_UPPER becomes explicit pads", "[onnx]") {
  auto G = load("conv_same_upper.onnx");
  REQUIRE(G);
  const Node *C = firstOp(*G, "conv");
  REQUIRE(C);
  // 7 -> 4 with stride 2, kernel 4: total padding 3, the extra one at the end.
  CHECK(C->getInts("pads") == std::vector<int64_t>{1, 1, 2, 2});
  CHECK(toString(C->result()->type()) == "f32[1,1,4,4]");
}

TEST_CASE("Softmax before opset 13 coerces to 2-D", "[onnx]") {
  auto G = load("softmax_v11.onnx");
  REQUIRE(G);
  CHECK(ops(*G) == std::vector<std::string>{"flatten", "softmax", "reshape"});
  CHECK(firstOp(*G, "flatten")->getInt("axis") == 1);
  CHECK(firstOp(*G, "softmax")->getInt("axis") == -1);
  CHECK(toString(G->outputs()[0]->type()) == "f32[2,3,4]");
}

TEST_CASE("Clip with constant bounds uses the min/max attributes", "[onnx]") {
  auto G = load("clip_v11.onnx");
  REQUIRE(G);
  const Node *C = firstOp(*G, "clip");
  REQUIRE(C);
  CHECK(C->numOperands() == 1);
  CHECK(C->getFloat("min") == 0.0);
  CHECK(C->getFloat("max") == 6.0);
}

TEST_CASE("Mean of three is two adds and a division by 3", "[onnx]") {
  auto G = load("mean3.onnx");
  REQUIRE(G);
  CHECK(ops(*G) == std::vector<std::string>{"add", "add", "div"});
  const Value *Divisor = firstOp(*G, "div")->operand(1);
  REQUIRE(Divisor->constant());
  CHECK(Divisor->constant()->asDouble(0) == 3.0);
}

TEST_CASE("symbolic dims become symbols; --input-shape fixes them", "[onnx]") {
  auto G = load("symbolic.onnx");
  REQUIRE(G);
  CHECK(toString(G->input(0)->type()) == "f32[N,3]");
  OnnxImportOptions O;
  O.InputShapes["x"] = {2, 3};
  auto F = load("symbolic.onnx", O);
  REQUIRE(F);
  CHECK(toString(F->input(0)->type()) == "f32[2,3]");
  CHECK(toString(F->outputs()[0]->type()) == "f32[2,3]");
  O.InputShapes.clear();
  O.InputShapes["nope"] = {2, 3};
  auto Bad = importOnnxFile(modelPath("symbolic.onnx"), O);
  REQUIRE(!bool(Bad));
  CHECK_THAT(llvm::toString(Bad.takeError()),
             Catch::Contains("'nope', which is not a graph input"));
}

TEST_CASE("attributes that became inputs are normalized", "[onnx]") {
  auto S = load("split_v11.onnx");
  REQUIRE(S);
  const Node *Sp = firstOp(*S, "split");
  REQUIRE(Sp);
  CHECK(Sp->getInts("split") == std::vector<int64_t>{1, 3});
  CHECK(Sp->numResults() == 2);
  CHECK(toString(Sp->result(1)->type()) == "f32[3,2]");
  auto U = load("unsqueeze_v11.onnx");
  REQUIRE(U);
  const Node *Un = firstOp(*U, "unsqueeze");
  REQUIRE(Un);
  REQUIRE(Un->operand(1)->constant());
  CHECK(toString(Un->result()->type()) == "f32[1,3,1,4]");
}

TEST_CASE("BatchNormalization training mode keeps the running stats",
          "[onnx]") {
  auto G = load("batchnorm_training.onnx");
  REQUIRE(G);
  const Node *B = firstOp(*G, "batch_norm");
  REQUIRE(B);
  CHECK(B->getInt("training") == 1);
  CHECK(B->numResults() == 3);
  CHECK(G->outputs().size() == 3);
}

TEST_CASE("Dropout keeps its mask result", "[onnx]") {
  auto G = load("dropout_mask.onnx");
  REQUIRE(G);
  const Node *D = firstOp(*G, "dropout");
  REQUIRE(D);
  CHECK(D->numResults() == 2);
  CHECK(toString(D->result(1)->type()) == "bool[2,2]");
}

TEST_CASE("an initializer listed as an input is a constant", "[onnx]") {
  auto G = load("init_as_input.onnx");
  REQUIRE(G);
  REQUIRE(G->numInputs() == 1);
  CHECK(G->input(0)->name() == "x");
  const Value *W = firstOp(*G, "add")->operand(1);
  REQUIRE(W->constant());
  CHECK(W->name() == "w");
}

TEST_CASE("initializer data is aliased, not copied", "[onnx]") {
  auto G = load("external.onnx");
  REQUIRE(G);
  const Value *W = firstOp(*G, "mul")->operand(1);
  REQUIRE(W->constant());
  const Tensor &T = *W->constant();
  CHECK(T.buffer().isAlias());
  CHECK(T.numElements() == 4);
  CHECK(T.at<float>(0) == 1.0f);
  CHECK(T.at<float>(3) == 4.0f);
  // raw_data aliases the parsed protobuf.
  auto C = load("conv_relu.onnx");
  REQUIRE(C);
  CHECK(firstOp(*C, "conv")->operand(1)->constant()->buffer().isAlias());
}

TEST_CASE("external data is refused for in-memory models", "[onnx]") {
  auto Buf = llvm::MemoryBuffer::getFile(modelPath("external.onnx"));
  REQUIRE(bool(Buf));
  auto G = importOnnxBuffer((*Buf)->getBuffer(), "mem.onnx");
  REQUIRE(!bool(G));
  CHECK_THAT(llvm::toString(G.takeError()),
             Catch::Contains("not read from a file"));
}

TEST_CASE("unsupported ops are all listed at once", "[onnx]") {
  std::string Msg = errorOf(KILN_SOURCE_DIR
                            "/test/onnx-malformed/unsupported_ops.onnx");
  CHECK_THAT(Msg, Catch::Contains("3 node(s) use ops kiln does not support"));
  CHECK_THAT(Msg, Catch::Contains("node 'sin0': op Sin (domain ai.onnx)"));
  CHECK_THAT(Msg,
             Catch::Contains("node 'hardmax0': op Hardmax (domain ai.onnx)"));
  CHECK_THAT(Msg, Catch::Contains(
                      "node 'frob0': op Frobnicate (domain com.example)"));
  CHECK_THAT(Msg, !Catch::Contains("relu0"));
}

TEST_CASE("bad files give bad-input errors naming the file", "[onnx]") {
  CHECK_THAT(errorOf(KILN_SOURCE_DIR "/test/onnx-malformed/truncated.onnx"),
             Catch::Contains("truncated.onnx: not a valid ONNX model"));
  CHECK_THAT(errorOf(KILN_SOURCE_DIR "/test/onnx-malformed/cycle.onnx"),
             Catch::Contains("cycle"));
  CHECK_THAT(
      errorOf(KILN_SOURCE_DIR "/test/onnx-malformed/external_dotdot.onnx"),
      Catch::Contains("contains '..'"));
}

TEST_CASE("readTensorProtoFile decodes the conformance data", "[onnx]") {
  const char *Path = KILN_SOURCE_DIR
      "/../shared/onnx-node-tests/node/test_abs/test_data_set_0/input_0.pb";
  if (!llvm::sys::fs::exists(Path))
    return; // the shared suite is not there
  auto T = readTensorProtoFile(Path);
  REQUIRE(bool(T));
  CHECK(toString(T->type()) == "f32[3,4,5]");
  CHECK(!T->buffer().isAlias());
}

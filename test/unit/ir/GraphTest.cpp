// Building graphs by hand: values, use-lists, inputs/outputs, constants.
#include "IR/Graph.h"
#include "IR/OpRegistry.h"
#include "IR/Verifier.h"

#include "LlvmErrorChecks.h"

#include <catch2/catch.hpp>

using namespace kiln;

static const OpDef &op(llvm::StringRef Name) {
  return OpRegistry::instance().get(Name);
}

TEST_CASE("a node records its operands in the use-lists", "[ir][graph]") {
  Graph G("g");
  TensorType T(ElementType::F32, makeShape({2, 3}));
  Value *X = G.addInput(T, "x");
  Node *Add = G.createNode(op("add"), {X, X}, {T});
  REQUIRE(X->numUses() == 2);
  CHECK(X->uses()[0].User == Add);
  CHECK(X->uses()[0].Index == 0);
  CHECK(X->uses()[1].Index == 1);
  CHECK(Add->result()->producer() == Add);
  CHECK(X->isGraphInput());
  CHECK_FALSE(Add->result()->isGraphInput());

  Node *Neg = G.createNode(op("neg"), {Add->result()}, {T});
  Neg->setOperand(0, X);
  CHECK(X->numUses() == 3);
  CHECK_FALSE(Add->result()->hasUses());
}

TEST_CASE("constants carry their tensor and alias external memory",
          "[ir][graph]") {
  Graph G;
  auto Storage = std::make_shared<std::vector<float>>(std::vector<float>{1, 2, 3, 4});
  Buffer B = Buffer::alias(Storage, reinterpret_cast<const uint8_t *>(Storage->data()),
                           Storage->size() * sizeof(float));
  CHECK(B.isAlias());
  Value *C = G.createConstant(
      Tensor(TensorType(ElementType::F32, makeShape({4})), B), "w");
  REQUIRE(C->constant() != nullptr);
  // No copy was made: the constant points at the same memory.
  CHECK(C->constant()->buffer().data() ==
        reinterpret_cast<const uint8_t *>(Storage->data()));
  CHECK(C->constant()->at<float>(2) == 3.0f);
  CHECK(C->constant()->asInt(3) == 4);
  CHECK(C->name() == "w");
}

TEST_CASE("attributes fall back to schema defaults", "[ir][graph]") {
  Graph G;
  TensorType T(ElementType::F32, makeShape({1, 2, 4, 4}));
  Value *X = G.addInput(T, "x");
  Node *N = G.createNode(op("leaky_relu"), {X}, {T});
  CHECK_FALSE(N->hasAttr("alpha"));
  CHECK(N->getFloat("alpha") == Approx(0.01));
  N->setAttr("alpha", 0.2);
  CHECK(N->getFloat("alpha") == Approx(0.2));
  N->removeAttr("alpha");
  CHECK(N->getFloat("alpha") == Approx(0.01));
}

TEST_CASE("provenance merges as a union, first source is the display name",
          "[ir][graph]") {
  Graph G;
  TensorType T(ElementType::F32, makeShape({2}));
  Value *X = G.addInput(T, "x");
  Node *A = G.createNode(op("relu"), {X}, {T});
  A->setSources({"conv_1", "bn_1"});
  Node *B = G.createNode(op("neg"), {X}, {T});
  B->setSources({"bn_1", "relu_1"});
  A->addSources(*B);
  CHECK(A->sources() == std::vector<std::string>{"conv_1", "bn_1", "relu_1"});
  CHECK(A->displayName() == "conv_1");
  Node *C = G.createNode(op("exp"), {X}, {T});
  CHECK(C->displayName() == "<exp>");
}

TEST_CASE("every registered op has inference and a consistent schema",
          "[ir][registry]") {
  auto Ops = OpRegistry::instance().all();
  REQUIRE(Ops.size() >= 80);
  for (const OpDef *D : Ops) {
    INFO(D->Name);
    CHECK(D->Infer != nullptr);
    CHECK(D->MinResults >= 1);
    CHECK(D->MaxResults >= D->MinResults);
    for (size_t I = 0; I + 1 < D->Operands.size(); ++I)
      CHECK_FALSE(D->Operands[I].Variadic); // only the last may be variadic
  }
  CHECK(OpRegistry::instance().lookup("Conv") == nullptr); // no ONNX names
  CHECK(OpRegistry::instance().lookup("conv") != nullptr);
}

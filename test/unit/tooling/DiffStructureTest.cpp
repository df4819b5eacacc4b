// kiln diff's structural comparison on hand-built node lists: what each
// fusion and removal is attributed to follows from the provenance alone.
#include "Tooling/DiffStructure.h"

#include <catch2/catch.hpp>

using namespace kiln;

namespace {

DiffNode node(std::string Op, std::vector<std::string> Sources) {
  DiffNode N;
  N.Op = std::move(Op);
  N.Name = Sources.empty() ? "" : Sources[0];
  N.Sources = std::move(Sources);
  return N;
}

// conv -> batch_norm -> relu -> dropout -> linear, as the source has it.
std::vector<DiffNode> source() {
  return {node("conv", {"c"}), node("batch_norm", {"bn"}), node("relu", {"r"}),
          node("dropout", {"d"}), node("linear", {"fc"})};
}
const std::map<std::string, int64_t> SourceOps{
    {"conv", 1}, {"batch_norm", 1}, {"relu", 1}, {"dropout", 1}, {"linear", 1}};

} // namespace

TEST_CASE("fusions and removals are attributed to their passes",
          "[tooling][diff]") {
  // The optimized graph: one conv standing for conv, batch_norm and relu;
  // the dropout gone; the linear kept.
  std::vector<DiffNode> Optimized{node("conv", {"c", "bn", "r"}),
                                  node("linear", {"fc"})};
  DiffStructure S = compareStructure(source(), SourceOps, Optimized,
                                     {{"conv", 1}, {"linear", 1}});
  REQUIRE(S.BHasProvenance);
  REQUIRE(S.Fusions.size() == 1);
  CHECK(S.Fusions[0].Op == "conv");
  REQUIRE(S.Fusions[0].Absorbed.size() == 2);
  CHECK(S.Fusions[0].Absorbed[0] == std::make_pair(std::string("bn"),
                                                   std::string("batch_norm")));
  CHECK(S.Fusions[0].Absorbed[1] ==
        std::make_pair(std::string("r"), std::string("relu")));
  CHECK(S.ByPass.size() == 3);
  CHECK(S.ByPass["fuse-conv-bn"]["batch_norm folded into conv"] == 1);
  CHECK(S.ByPass["fuse-activation"]["relu folded into conv"] == 1);
  CHECK(S.ByPass["remove-dropout"]["dropout removed"] == 1);
  CHECK(S.OpsA.at("batch_norm") == 1);
  CHECK(S.OpsB.count("batch_norm") == 0);
}

TEST_CASE("quantize nodes that share a layer's provenance are not fusions",
          "[tooling][diff]") {
  std::vector<DiffNode> Quantized{node("quantize", {"c", "bn", "r"}),
                                  node("conv", {"c", "bn", "r"}),
                                  node("dequantize", {"c", "bn", "r"}),
                                  node("linear", {"fc"})};
  DiffStructure S = compareStructure(source(), SourceOps, Quantized, {});
  REQUIRE(S.Fusions.size() == 1); // the conv, counted once
  CHECK(S.Fusions[0].Op == "conv");
  CHECK(S.ByPass["fuse-conv-bn"]["batch_norm folded into conv"] == 1);
}

TEST_CASE("without provenance in B nothing is said about removals",
          "[tooling][diff]") {
  std::vector<DiffNode> Stripped{node("conv", {}), node("linear", {})};
  DiffStructure S = compareStructure(source(), SourceOps, Stripped, {});
  CHECK_FALSE(S.BHasProvenance);
  CHECK(S.Fusions.empty());
  CHECK(S.ByPass.empty());
}

TEST_CASE("each absorbed op names the pass that folds it", "[tooling][diff]") {
  CHECK(explainAbsorbed("add", "relu") == "fuse-add-activation");
  CHECK(explainAbsorbed("conv", "clip") == "fuse-activation");
  CHECK(explainAbsorbed("conv", "pad") == "fold-pad-into-conv");
  CHECK(explainAbsorbed("linear", "mul") == "fuse-conv-scale");
  CHECK(explainAbsorbed("linear", "flatten") == "canonicalize");
  CHECK(explainAbsorbed("conv", "softmax") == "merged");
  CHECK(explainRemoved("identity") == "eliminate-noops");
  CHECK(explainRemoved("shape") == "fold-constants/dce");
}

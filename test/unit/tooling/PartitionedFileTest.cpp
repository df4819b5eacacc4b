// Partitioned files (schema 1.13): placement of a small graph, the file the
// driver writes for it, and the loader's refusal of hostile variants of
// that file: a schedule naming a missing partition or one twice, a cycle
// (a partition reading what a later one writes), boundaries whose dtype or
// shape differ from the partition's own, a segment out of range, a
// partition that is itself partitioned, and a target that lies. Each
// variant is the good file unpacked, changed in one field and written
// again with the same segments, so only that field can be what is refused.
#include "Driver/PartitionedFile.h"
#include "Driver/Placement.h"
#include "IR/Parser.h"
#include "LlvmErrorChecks.h"
#include "backends/common/KilnWriter.h"

#include "kiln/kiln.h"

#include <catch2/catch.hpp>

#include <functional>

using namespace kiln;

namespace {

// relu and tanh run on Vulkan; an edge pad does not (no kernel), so a
// greedy placement is vulkan, cpu, vulkan.
constexpr const char *ThreeParts = R"(
graph @three(%x: f32[2,4]) -> (%z: f32[2,6]) {
  %r = relu(%x) : f32[2,4] loc("r")
  %pads = const i64[4] dense[0, 1, 0, 1]
  %y = pad(%r, %pads) {mode="edge"} : f32[2,6] loc("edge")
  %z = tanh(%y) : f32[2,6] loc("t")
  return %z
}
)";

Placement place(const Graph &G, bool Costed) {
  PlacementOptions O;
  O.Device = findTarget("vulkan");
  O.Costed = Costed;
  return requireValue(planPlacement(G, O));
}

std::string writeFile(const Graph &G, const Placement &P) {
  std::string Bytes;
  EmitRequest R;
  R.Input = "three.kir";
  R.Output = "three.kiln";
  R.Bytes = &Bytes;
  requireValue(emitPlacement(G, P, R, PartitionedEmit()));
  return Bytes;
}

/// The file with one change to its unpacked model and segments, written
/// again.
std::string mutatedModule(const std::string &Good,
                          const std::function<void(KilnModule &)> &Change) {
  KilnModule M;
  fb::GetModel(Good.data())->UnPackTo(&M.Model);
  for (const auto &B : M.Model.buffers)
    M.Segments.emplace_back(Buffer::copy(llvm::ArrayRef<uint8_t>(
        reinterpret_cast<const uint8_t *>(Good.data()) + B->offset,
        size_t(B->size))));
  Change(M);
  return requireValue(serializeKilnModule(M));
}

std::string mutated(const std::string &Good,
                    const std::function<void(fb::ModelT &)> &Change) {
  return mutatedModule(Good, [&](KilnModule &M) { Change(M.Model); });
}

std::string loadError(const std::string &Bytes) {
  kiln_model *Model = nullptr;
  kiln_status S = kiln_model_load_buffer(Bytes.data(), Bytes.size(), &Model);
  kiln_model_destroy(Model);
  return S == KILN_OK ? std::string("loaded") : std::string(kiln_last_error());
}

fb::PartitionedPayloadT &payload(fb::ModelT &M) {
  return *M.payload.AsPartitionedPayload();
}

} // namespace

TEST_CASE("greedy placement cuts around what the device cannot run",
          "[partition]") {
  auto G = requireValue(parseGraph(ThreeParts, "three.kir"));
  Placement P = place(*G, false);
  REQUIRE(P.Parts.size() == 3);
  CHECK(std::string(P.Parts[0].On->Name) == "vulkan");
  CHECK(std::string(P.Parts[1].On->Name) == "cpu");
  CHECK(std::string(P.Parts[2].On->Name) == "vulkan");
  CHECK(P.Parts[1].Nodes.front()->isOp("pad"));
  CHECK(P.Nodes.at(P.Parts[1].Nodes.front()).Reason ==
        PlacementReason::Unsupported);
  // Each boundary is one f32[2,4] or f32[2,6] tensor.
  REQUIRE(P.Parts[1].Inputs.size() == 1);
  CHECK(P.Parts[1].Inputs[0]->name() == "r");
  REQUIRE(P.Parts[1].Outputs.size() == 1);
  CHECK(P.Parts[1].Outputs[0]->name() == "y");
}

TEST_CASE("costed placement moves device parts too small to pay to the CPU",
          "[partition]") {
  auto G = requireValue(parseGraph(ThreeParts, "three.kir"));
  Placement P = place(*G, true);
  // 8 and 12 elements cannot pay for a 200 us launch: all on the CPU.
  REQUIRE(P.Parts.size() == 1);
  CHECK(std::string(P.Parts[0].On->Name) == "cpu");
  CHECK(P.Parts[0].Reason.find("too small to pay for its transfers") !=
        std::string::npos);
  CHECK(P.Parts[0].Reason.find("cannot run pad") != std::string::npos);
}

TEST_CASE("--on-cpu pins op kinds and node names", "[partition]") {
  auto G = requireValue(parseGraph(ThreeParts, "three.kir"));
  PlacementOptions O;
  O.Device = findTarget("vulkan");
  O.Costed = false;
  O.OnCpu = {"t"};
  Placement P = requireValue(planPlacement(*G, O));
  REQUIRE(P.Parts.size() == 2); // relu on vulkan; pad and tanh on the cpu
  CHECK(P.Parts[1].Nodes.size() == 2);
  O.OnCpu = {"rel*"};
  P = requireValue(planPlacement(*G, O));
  REQUIRE(P.Parts.size() == 2); // relu and pad on the cpu; tanh on vulkan
  CHECK(std::string(P.Parts[1].On->Name) == "vulkan");
}

TEST_CASE("the loader refuses hostile partitioned files", "[partition]") {
  auto G = requireValue(parseGraph(ThreeParts, "three.kir"));
  std::string Good = writeFile(*G, place(*G, false));
  REQUIRE(loadError(Good) == "loaded");
  {
    kiln_model *Model = nullptr;
    REQUIRE(kiln_model_load_buffer(Good.data(), Good.size(), &Model) == KILN_OK);
    CHECK(std::string(kiln_model_target(Model)) == "partitioned");
    kiln_model_destroy(Model);
  }
  CHECK(fb::GetModel(Good.data())->schema_minor() == 13);
  // The same field changed back is the same file: the rewrite is faithful.
  CHECK(mutated(Good, [](fb::ModelT &) {}) == Good);

  SECTION("a schedule naming a missing partition") {
    auto Bad = mutated(Good, [](fb::ModelT &M) { payload(M).schedule[1] = 7; });
    CHECK(loadError(Bad).find("the schedule refers to partition 7, which does "
                              "not exist (3 partitions)") != std::string::npos);
  }
  SECTION("a partition scheduled twice") {
    auto Bad = mutated(Good, [](fb::ModelT &M) { payload(M).schedule = {0, 0, 1}; });
    CHECK(loadError(Bad).find("lists partition 0 twice") != std::string::npos);
  }
  SECTION("a cycle: the schedule runs a reader before its writer") {
    auto Bad = mutated(Good, [](fb::ModelT &M) { payload(M).schedule = {1, 0, 2}; });
    CHECK(loadError(Bad).find("partition 1 reads tensor") != std::string::npos);
    CHECK(loadError(Bad).find("which partition 0 writes, scheduled after it "
                              "(a cycle, or the wrong order)") !=
          std::string::npos);
  }
  SECTION("a cycle: a partition reads its own output") {
    auto Bad = mutated(Good, [](fb::ModelT &M) {
      auto &P = payload(M);
      P.partitions[1]->inputs[0] = P.partitions[1]->outputs[0];
    });
    // The shapes differ first ([2,4] in, [2,6] out): refused either way.
    CHECK(loadError(Bad).find("partition 1") != std::string::npos);
  }
  SECTION("a boundary of another dtype") {
    auto Bad = mutated(Good, [](fb::ModelT &M) {
      M.tensors[size_t(payload(M).partitions[0]->outputs[0])]->dtype =
          fb::DType::I32;
    });
    INFO(loadError(Bad));
    CHECK(loadError(Bad).find("is i32[2,4] PLAIN, but the partition's own "
                              "output 'r' is f32[2,4] PLAIN") !=
          std::string::npos);
  }
  SECTION("a boundary of another shape") {
    auto Bad = mutated(Good, [](fb::ModelT &M) {
      M.tensors[size_t(payload(M).partitions[2]->inputs[0])]->shape = {2, 5};
    });
    CHECK(loadError(Bad).find("partition 1: output tensor") != std::string::npos);
  }
  SECTION("a segment out of range") {
    auto Bad = mutated(Good, [](fb::ModelT &M) { payload(M).partitions[2]->file = 9; });
    CHECK(loadError(Bad).find("partition 2 names segment 9 of 3") !=
          std::string::npos);
  }
  SECTION("a partition that is itself partitioned, or lies about its target") {
    auto Nested = mutated(Good, [](fb::ModelT &M) {
      payload(M).partitions[0]->target = fb::Target::PARTITIONED;
    });
    CHECK(loadError(Nested).find("partition 0 names the target PARTITIONED") !=
          std::string::npos);
    auto Lying = mutated(Good, [](fb::ModelT &M) {
      payload(M).partitions[1]->target = fb::Target::VULKAN;
    });
    CHECK(loadError(Lying).find("partition 1 is listed as VULKAN but its file "
                                "is for cpu") != std::string::npos);
  }
  SECTION("a partition whose file is partitioned again, claiming cpu") {
    // Partition 1's segment holds the good (partitioned) file itself: the
    // loader must refuse it, not verify it again and again.
    auto Bad = mutatedModule(Good, [&](KilnModule &M) {
      int32_t Seg = M.addSegment(Segment(Buffer::copy(llvm::ArrayRef<uint8_t>(
          reinterpret_cast<const uint8_t *>(Good.data()), Good.size()))));
      payload(M.Model).partitions[1]->file = Seg;
    });
    CHECK(loadError(Bad).find("a partition is itself a partitioned file") !=
          std::string::npos);
  }
  SECTION("partitions sharing a segment") {
    auto Bad = mutated(Good, [](fb::ModelT &M) {
      payload(M).partitions[2]->file = payload(M).partitions[0]->file;
    });
    CHECK(loadError(Bad).find("partitions share segment") != std::string::npos);
  }
  SECTION("an outer tensor bound to nothing") {
    auto Bad = mutated(Good, [](fb::ModelT &M) {
      auto T = std::make_unique<fb::TensorT>();
      T->name = "loose";
      T->dtype = fb::DType::F32;
      T->shape = {1 << 18, 1 << 18}; // 256 GiB: legal, and never allocated
      M.tensors.push_back(std::move(T));
    });
    INFO(loadError(Bad));
    CHECK(loadError(Bad).find("'loose' is neither a graph input nor written "
                              "by a partition") != std::string::npos);
  }
  SECTION("no partitions, or operators of its own") {
    auto Empty = mutated(Good, [](fb::ModelT &M) {
      payload(M).partitions.clear();
      payload(M).schedule.clear();
    });
    CHECK(loadError(Empty).find("lists no partitions") != std::string::npos);
  }
  SECTION("a graph output no partition writes") {
    auto Bad = mutated(Good, [](fb::ModelT &M) {
      auto T = std::make_unique<fb::TensorT>();
      T->name = "orphan";
      T->dtype = fb::DType::F32;
      T->shape = {2, 6};
      M.outputs.push_back(int32_t(M.tensors.size()));
      M.tensors.push_back(std::move(T));
      M.metadata->outputs.push_back(std::make_unique<fb::TensorInfoT>());
    });
    CHECK(loadError(Bad).find("'orphan' is written by no partition") !=
          std::string::npos);
  }
}

TEST_CASE("a placement of one partition writes that target's plain file",
          "[partition]") {
  constexpr const char *Supported = R"(
graph @one(%x: f32[2,4]) -> (%z: f32[2,4]) {
  %z = relu(%x) : f32[2,4] loc("r")
  return %z
}
)";
  auto G = requireValue(parseGraph(Supported, "one.kir"));
  std::string Bytes = writeFile(*G, place(*G, false));
  CHECK(fb::GetModel(Bytes.data())->target() == fb::Target::VULKAN);
  std::string Cpu = writeFile(*G, place(*G, true)); // too small: the cpu's
  CHECK(fb::GetModel(Cpu.data())->target() == fb::Target::CPU);
}

// `kiln inspect` on a Vulkan file (schema 1.5), from a model built in
// memory with the object API: the kernels, dispatches, buffer plan and byte
// totals it prints, in text and JSON, and the counts that must not read a
// PACKED constant or a C4 activation as CPU data. The SPIR-V words are
// fakes: rendering counts them and never runs them. Every expected value is
// worked out by hand from the model below.
#include "GpuInspectTestModel.h"
#include "Tooling/KilnFileStats.h"
#include "Tooling/KilnInspect.h"
#include "backends/vulkan/VulkanInspect.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <catch2/catch.hpp>

using namespace kiln;
using namespace kiln::test;

namespace {

std::unique_ptr<fb::VulkanShaderT> shader(std::string Name, size_t Words) {
  auto S = std::make_unique<fb::VulkanShaderT>();
  S->name = std::move(Name);
  S->spirv.assign(Words, 0x07230203u); // the SPIR-V magic, repeated
  return S;
}

std::unique_ptr<fb::VulkanDispatchT>
dispatch(uint32_t Shader, int32_t Op, std::vector<fb::VulkanSpecConstant> Spec,
         size_t PushBytes, std::vector<fb::VulkanBinding> Bindings,
         uint32_t GroupsX) {
  auto D = std::make_unique<fb::VulkanDispatchT>();
  D->shader = Shader;
  D->operator_ = Op;
  D->spec_constants = std::move(Spec);
  D->push_constants.assign(PushBytes, 0);
  D->bindings = std::move(Bindings);
  D->group_count_x = GroupsX;
  return D;
}

// The model of GpuInspectTestModel.h for Vulkan. Shaders: nchw_to_c4 5
// words, conv2d_c4 12 words (both convs), c4_to_nchw 7 words.
GpuFile vulkanModel() {
  fb::VulkanPayloadT P;
  P.fp16 = false;
  P.required_features = {"storageBuffer16BitAccess"};
  P.shaders.push_back(shader("nchw_to_c4", 5));
  P.shaders.push_back(shader("conv2d_c4", 12));
  P.shaders.push_back(shader("c4_to_nchw", 7));
  for (GpuDispatchSpec &D : gpuDispatchPlan())
    P.dispatches.push_back(dispatch(D.Kernel, D.Op, std::move(D.Constants),
                                    D.PushBytes, std::move(D.Bindings),
                                    D.GroupsX));
  return gpuFile(convGraph(fb::Target::VULKAN, "vulkan"), std::move(P));
}

} // namespace

TEST_CASE("the Vulkan section lists kernels, dispatches, buffers and totals",
          "[tooling][inspect][vulkan]") {
  GpuFile F = vulkanModel();
  std::string Text = vulkanTextSection(F.Model, /*Detail=*/false);
  INFO(Text);
  CHECK(hasLine(Text, "vulkan:"));
  CHECK(hasLine(Text, "fp16: no"));
  CHECK(hasLine(Text, "features: storageBuffer16BitAccess"));
  // 5 + 12 + 7 = 24 words of 4 bytes.
  CHECK(hasLine(Text, "kernels: 3 (96 B of SPIR-V)"));
  CHECK(hasLine(Text, "nchw_to_c4 20 B 1 dispatch"));
  CHECK(hasLine(Text, "conv2d_c4 48 B 2 dispatches"));
  CHECK(hasLine(Text, "c4_to_nchw 28 B 1 dispatch"));
  CHECK(hasLine(Text, "dispatches: 4"));
  CHECK(hasLine(Text, "# shader operator groups workgroup spec push bindings"));
  checkGpuDispatchRows(Text);
  checkGpuBufferPlanText(Text);
  CHECK(hasLine(Text, "SPIR-V 96"));
}

TEST_CASE("a workgroup size the dispatch does not set prints as ?",
          "[tooling][inspect][vulkan]") {
  GpuFile F = vulkanModel();
  auto &D = *F.Model.payload.AsVulkanPayload()->dispatches[3];
  D.spec_constants = {fb::VulkanSpecConstant(0, 32), fb::VulkanSpecConstant(7, 9)};
  std::string Text = vulkanTextSection(F.Model, false);
  INFO(Text);
  CHECK(hasLine(Text, "3 c4_to_nchw - [4,1,1] [32,?,?] 7=9 0 B "
                      "buf#0[0, +1024] buf#3[0, +1024]"));
}

TEST_CASE("many dispatches are listed only with the detail flag",
          "[tooling][inspect][vulkan]") {
  GpuFile F = vulkanModel();
  auto &P = *F.Model.payload.AsVulkanPayload();
  while (P.dispatches.size() <= VulkanDispatchListLimit)
    P.dispatches.push_back(dispatch(2, -1, {}, 0, {}, 1));
  size_t N = P.dispatches.size();
  std::string Short = vulkanTextSection(F.Model, false);
  CHECK(hasLine(Short, "dispatches: " + std::to_string(N) +
                           " (--nodes lists them)"));
  CHECK_FALSE(hasLine(Short, "0 nchw_to_c4 - [3,1,1] [64,1,1] - 8 B "
                             "buf#2[0, +768] buf#0[0, +1024]"));
  std::string Long = vulkanTextSection(F.Model, true);
  CHECK(hasLine(Long, "dispatches: " + std::to_string(N)));
  CHECK(hasLine(Long, std::to_string(N - 1) + " c4_to_nchw - [1,1,1] [?,?,?] - 0 B -"));
  // c4_to_nchw: the original dispatch and every one added.
  CHECK(hasLine(Long, "c4_to_nchw 28 B " + std::to_string(N - 3) + " dispatches"));
}

TEST_CASE("a kernel's fp16-arithmetic twin shows beside it",
          "[tooling][inspect][vulkan]") {
  GpuFile F = vulkanModel();
  auto &P = *F.Model.payload.AsVulkanPayload();
  P.shaders[1]->name = "conv2d_c4_f16";
  P.shaders.push_back(shader("conv2d_c4_f16math", 10));
  P.shaders[1]->fp16_math_variant = 3;
  std::string Text = vulkanTextSection(F.Model, false);
  INFO(Text);
  CHECK(hasLine(Text, "kernels: 4 (136 B of SPIR-V)"));
  CHECK(hasLine(Text, "conv2d_c4_f16 48 B 2 dispatches (fp16 arithmetic: "
                      "conv2d_c4_f16math)"));
  CHECK(hasLine(Text, "conv2d_c4_f16math 40 B 0 dispatches"));
  CHECK(hasLine(Text, "nchw_to_c4 20 B 1 dispatch"));

  llvm::json::Value V = vulkanJsonSection(F.Model);
  const llvm::json::Array *K = V.getAsObject()->getArray("kernels");
  REQUIRE(K);
  REQUIRE(K->size() == 4);
  CHECK(str((*K)[1].getAsObject(), "fp16_math_variant") == "conv2d_c4_f16math");
  CHECK(str((*K)[3].getAsObject(), "fp16_math_variant") == "<absent>");
}

TEST_CASE("the Vulkan JSON holds the same data as numbers",
          "[tooling][inspect][vulkan]") {
  GpuFile F = vulkanModel();
  llvm::json::Value V = vulkanJsonSection(F.Model);
  INFO(llvm::formatv("{0:2}", V).str());
  const llvm::json::Object *O = V.getAsObject();
  REQUIRE(O);
  CHECK(O->getBoolean("fp16") == llvm::Optional<bool>(false));
  REQUIRE(O->getArray("required_features"));
  CHECK(O->getArray("required_features")->size() == 1);

  const llvm::json::Array *K = O->getArray("kernels");
  REQUIRE(K);
  REQUIRE(K->size() == 3);
  const llvm::json::Object *K1 = (*K)[1].getAsObject();
  CHECK(str(K1, "name") == "conv2d_c4");
  CHECK(num(K1, "spirv_bytes") == 48);
  CHECK(num(K1, "dispatches") == 2);

  checkGpuDispatchesJson(*O, "shader", "group_count", "workgroup_size",
                         "spec_constants");

  checkGpuBufferPlanJson(*O, "spirv", 96);
}

TEST_CASE("a Vulkan file's stats: vulkan engine, logical counts, SPIR-V as "
          "target blobs",
          "[tooling][inspect][vulkan]") {
  GpuFile F = vulkanModel();
  KilnFileStats S = kilnFileStatsOf(F.Model, "v.kiln", F.FileBytes);
  // Logical shapes, not segment bytes: 12 + 4 + 16 elements; the bytes are
  // the segments as stored (64 + 16 + 64, the PACKED ones padded).
  CHECK(S.ParamsByType.at("f32") == std::make_pair(int64_t(32), int64_t(144)));
  CHECK(S.Operators[0].Params == 16);
  CHECK(S.Operators[1].Params == 16);
  // C4 outputs count as their NHWC dims: 8*8*4 outputs of 3 and 4 MACs.
  CHECK(S.Operators[0].Macs == 768);
  CHECK(S.Operators[1].Macs == 1024);
  CHECK(S.TotalMacs == 1792);

  std::string Text = kilnTextReport(S, false);
  INFO(Text);
  CHECK(hasLine(Text, "MACs: 1.8 K (1792)"));
  CHECK(str(kilnJsonReport(S, false).getAsObject(), "payload") == "VulkanPayload");
  // Operator.engine is left at ANY by the Vulkan compiler: the operators
  // show the vulkan engine.
  checkGpuFileReport(F, "vulkan", 96, "spirv");
}

TEST_CASE("a CPU file has no Vulkan section and no target blobs",
          "[tooling][inspect][vulkan]") {
  GpuFile F = vulkanModel();
  F.Model.target = fb::Target::CPU;
  F.Model.payload.Set(fb::CpuPayloadT());
  for (auto &Op : F.Model.operators)
    Op->engine = fb::Engine::XNNPACK;
  KilnFileStats S = kilnFileStatsOf(F.Model, "c.kiln", F.FileBytes);
  CHECK(S.Size.TargetBlobBytes == 0);
  CHECK(S.OpHistogram.at("CONV_2D").at("xnnpack") == 2);
  CHECK(vulkanTextSection(S.Model, true).empty());
  std::string Text = kilnTextReport(S, true);
  CHECK(Text.find("\nvulkan:") == std::string::npos);
  CHECK(Text.find("vulkan)") == std::string::npos); // the target in the header
  CHECK(kilnJsonReport(S, true).getAsObject()->get("vulkan") == nullptr);
}

// Small Vulkan .kiln files for the executor's and the loader's tests, built
// with the schema's object API and the tests' own writer (GpuTestModel.h).
// The kernels are the test kernels compiled at build time (TestKernels.h).
#pragma once

#include "../GpuTestModel.h"
#include "TestKernels.h" // generated: kiln::testkernels::*

#include <cstring>
#include <string>
#include <vector>

namespace kiln::vktest {

using gputest::floatBits;

using gputest::CatalogPolicy;

/// This program's tests run the tests' own kernels (GpuTestModel.h).
inline const bool TestKernelsAllowed =
    kiln_set_gpu_kernel_policy(KILN_GPU_KERNELS_ANY_VALID) == KILN_OK;

/// A Vulkan model under construction: the shared graph, buffers and places,
/// plus SPIR-V shaders and dispatches.
struct VulkanModel : gputest::GpuModel<fb::VulkanPayloadT> {
  VulkanModel() : GpuModel(fb::Target::VULKAN) {}

  uint32_t shader(std::string Name, const uint32_t *Words, size_t Bytes) {
    auto S = std::make_unique<fb::VulkanShaderT>();
    S->name = std::move(Name);
    S->spirv.assign(Words, Words + Bytes / 4);
    payload().shaders.push_back(std::move(S));
    return uint32_t(payload().shaders.size() - 1);
  }
  fb::VulkanDispatchT &dispatch(uint32_t Shader,
                                std::vector<fb::VulkanBinding> Bindings,
                                std::vector<uint32_t> Push, uint32_t Groups,
                                int32_t Op,
                                std::vector<fb::VulkanSpecConstant> Spec = {}) {
    auto D = std::make_unique<fb::VulkanDispatchT>();
    D->shader = Shader;
    D->bindings = std::move(Bindings);
    D->push_constants.resize(Push.size() * 4);
    std::memcpy(D->push_constants.data(), Push.data(), Push.size() * 4);
    D->group_count_x = Groups;
    D->operator_ = Op;
    D->spec_constants = std::move(Spec);
    payload().dispatches.push_back(std::move(D));
    return *payload().dispatches.back();
  }
};

/// x f32[6] -> (x * 2 + 1) into the arena -> (a * -1 + 0.5) -> y f32[6]:
/// two dispatches of scale_bias, with specialization and push constants,
/// an INPUT -> ARENA -> OUTPUT chain, and the arena's place at offset 256.
inline VulkanModel chainModel() {
  namespace k = kiln::testkernels;
  VulkanModel M;
  int32_t X = M.tensor("x", {6}), A = M.tensor("a", {6}), Y = M.tensor("y", {6});
  int32_t Op0 = M.op({X}, {A}), Op1 = M.op({A}, {Y});
  M.Model.inputs = {X};
  M.Model.outputs = {Y};
  uint32_t S = M.shader("scale_bias", k::scale_bias, sizeof(k::scale_bias));
  uint32_t In = M.buffer(fb::VulkanBufferKind::INPUT, 24, 0);
  uint32_t Arena = M.buffer(fb::VulkanBufferKind::ARENA, 512);
  uint32_t Out = M.buffer(fb::VulkanBufferKind::OUTPUT, 24, 0);
  M.dispatch(S, {{In, 0, 24}, {Arena, 256, 24}}, {6, floatBits(1.f)}, 1, Op0,
             {{0, 64}, {3, floatBits(2.f)}});
  M.dispatch(S, {{Arena, 256, 24}, {Out, 0, 24}}, {6, floatBits(0.5f)}, 1, Op1,
             {{0, 32}, {3, floatBits(-1.f)}});
  M.place(A, Arena, 256, 24);
  return M;
}

/// chainModel as kiln convert --quantize fp16 writes it: fp16, needing
/// only 16-bit storage, its scale_bias naming the fp16-arithmetic twin
/// scale_bias_f16math (shader 1, no dispatch names it), which rounds every
/// step to fp16.
inline VulkanModel twinModel() {
  namespace k = kiln::testkernels;
  VulkanModel M = chainModel();
  M.payload().fp16 = true;
  M.payload().required_features = {"storageBuffer16BitAccess"};
  uint32_t Twin = M.shader("scale_bias_f16math", k::scale_bias_f16math,
                           sizeof(k::scale_bias_f16math));
  M.payload().shaders[0]->fp16_math_variant = int32_t(Twin);
  return M;
}

/// y = (x + w1) + w2 over 6 floats with vector_add, w1 and w2 uploaded into
/// one WEIGHTS buffer at offsets 256 and 768 (the rest zero).
inline VulkanModel weightsModel() {
  namespace k = kiln::testkernels;
  VulkanModel M;
  int32_t X = M.tensor("x", {6}), A = M.tensor("a", {6}), Y = M.tensor("y", {6});
  int32_t Op0 = M.op({X}, {A}), Op1 = M.op({A}, {Y});
  M.Model.inputs = {X};
  M.Model.outputs = {Y};
  uint32_t S = M.shader("vector_add", k::vector_add, sizeof(k::vector_add));
  uint32_t Seg1 = M.segment({1, 2, 3, 4, 5, 6});
  uint32_t Seg2 = M.segment({100, 200, 300, 400, 500, 600});
  uint32_t In = M.buffer(fb::VulkanBufferKind::INPUT, 24, 0);
  uint32_t W = M.buffer(fb::VulkanBufferKind::WEIGHTS, 1024);
  M.payload().buffers[W]->uploads = {{Seg1, 256}, {Seg2, 768}};
  uint32_t Arena = M.buffer(fb::VulkanBufferKind::ARENA, 256);
  uint32_t Out = M.buffer(fb::VulkanBufferKind::OUTPUT, 24, 0);
  M.dispatch(S, {{In, 0, 24}, {W, 256, 24}, {Arena, 0, 24}}, {6}, 1, Op0);
  M.dispatch(S, {{Arena, 0, 24}, {W, 768, 24}, {Out, 0, 24}}, {6}, 1, Op1);
  M.place(A, Arena, 0, 24);
  return M;
}

/// x f32[1,1,2,3] (NHWC) -> C4 activation c [1][1][1][2][4] in the arena
/// (nhwc_to_c4) -> its 8 floats copied to y f32[8] (scale_bias, scale 1).
inline VulkanModel c4Model() {
  namespace k = kiln::testkernels;
  VulkanModel M;
  int32_t X = M.tensor("x", {1, 1, 2, 3}, fb::Layout::NHWC);
  int32_t C = M.tensor("c", {1, 1, 2, 3}, fb::Layout::C4);
  int32_t Y = M.tensor("y", {8});
  int32_t Op0 = M.op({X}, {C}), Op1 = M.op({C}, {Y});
  M.Model.inputs = {X};
  M.Model.outputs = {Y};
  uint32_t ToC4 = M.shader("nhwc_to_c4", k::nhwc_to_c4, sizeof(k::nhwc_to_c4));
  uint32_t Copy = M.shader("scale_bias", k::scale_bias, sizeof(k::scale_bias));
  uint32_t In = M.buffer(fb::VulkanBufferKind::INPUT, 24, 0);
  uint32_t Arena = M.buffer(fb::VulkanBufferKind::ARENA, 32);
  uint32_t Out = M.buffer(fb::VulkanBufferKind::OUTPUT, 32, 0);
  M.dispatch(ToC4, {{In, 0, 24}, {Arena, 0, 32}}, {2, 3}, 1, Op0);
  M.dispatch(Copy, {{Arena, 0, 32}, {Out, 0, 32}}, {8, floatBits(0.f)}, 1, Op1,
             {{0, 64}});
  M.place(C, Arena, 0, 32);
  return M;
}

/// chainModel with reshapes that alias instead of dispatching, as the
/// compiler lowers a RESHAPE between tensors of the same bytes: x -> r
/// (alias of the INPUT buffer) -> a (scale_bias into the arena) -> b (alias
/// of a's place) -> y (scale_bias). u is a second output of b's operator
/// with no place at all: it has no host bytes.
inline VulkanModel aliasModel() {
  namespace k = kiln::testkernels;
  VulkanModel M;
  int32_t X = M.tensor("x", {6}), R = M.tensor("r", {2, 3}),
          A = M.tensor("a", {6}), B = M.tensor("b", {3, 2}),
          U = M.tensor("u", {6}), Y = M.tensor("y", {6});
  M.op({X}, {R});
  int32_t Op1 = M.op({R}, {A});
  M.op({A}, {B, U});
  int32_t Op3 = M.op({B}, {Y});
  M.Model.inputs = {X};
  M.Model.outputs = {Y};
  uint32_t S = M.shader("scale_bias", k::scale_bias, sizeof(k::scale_bias));
  uint32_t In = M.buffer(fb::VulkanBufferKind::INPUT, 24, 0);
  uint32_t Arena = M.buffer(fb::VulkanBufferKind::ARENA, 512);
  uint32_t Out = M.buffer(fb::VulkanBufferKind::OUTPUT, 24, 0);
  M.dispatch(S, {{In, 0, 24}, {Arena, 256, 24}}, {6, floatBits(1.f)}, 1, Op1,
             {{0, 64}, {3, floatBits(2.f)}});
  M.dispatch(S, {{Arena, 256, 24}, {Out, 0, 24}}, {6, floatBits(0.5f)}, 1, Op3,
             {{0, 32}, {3, floatBits(-1.f)}});
  M.place(R, In, 0, 24);
  M.place(A, Arena, 256, 24);
  M.place(B, Arena, 256, 24);
  return M;
}

} // namespace kiln::vktest

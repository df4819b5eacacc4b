// Small Metal .kiln files for the loader's tests (MetalPayloadVerifier.h),
// built with the schema's object API and the tests' own writer
// (GpuTestModel.h). The loader reads MSL as text it hands to the Metal
// compiler, so the kernels here are short stand-ins with the shape
// SPIRV-Cross gives them.
#pragma once

#include "../GpuTestModel.h"

#include <cstring>
#include <string>
#include <vector>

namespace kiln::mtltest {

using gputest::floatBits;

/// This program's tests run the tests' own kernels (GpuTestModel.h).
inline const bool TestKernelsAllowed =
    kiln_set_gpu_kernel_policy(KILN_GPU_KERNELS_ANY_VALID) == KILN_OK;

/// A Metal model under construction: the shared graph, buffers and places,
/// plus MSL kernels and dispatches.
struct MetalModel : gputest::GpuModel<fb::MetalPayloadT> {
  MetalModel() : GpuModel(fb::Target::METAL) {
    payload().msl_version = 20100; // MSL 2.1
  }

  fb::MetalKernelT &kernel(uint32_t Index) {
    return *payload().kernels.at(Index);
  }
  fb::MetalDispatchT &dispatchAt(uint32_t Index) {
    return *payload().dispatches.at(Index);
  }

  /// A kernel of name whose storage buffers are at BufferIndices and whose
  /// push-constant block (PushBytes, none if 0) follows them.
  uint32_t kernel(std::string Name, std::vector<uint32_t> BufferIndices,
                  uint32_t PushBytes,
                  std::vector<fb::MetalFunctionConstant> Constants,
                  std::vector<uint32_t> Size, std::vector<int32_t> SizeIds) {
    auto K = std::make_unique<fb::MetalKernelT>();
    K->name = std::move(Name);
    K->msl = "#include <metal_stdlib>\nusing namespace metal;\n"
             "kernel void main0(device float *a [[buffer(0)]], "
             "uint3 gid [[thread_position_in_grid]]) { a[gid.x] = 0; }\n";
    K->entry_point = "main0";
    K->push_constant_index = PushBytes ? int32_t(BufferIndices.size()) : -1;
    K->push_constant_bytes = PushBytes;
    K->buffer_indices = std::move(BufferIndices);
    K->function_constants = std::move(Constants);
    K->threadgroup_size = std::move(Size);
    K->threadgroup_size_constants = std::move(SizeIds);
    payload().kernels.push_back(std::move(K));
    return uint32_t(payload().kernels.size() - 1);
  }
  /// A dispatch of Groups x 1 x 1 threadgroups of Threads x 1 x 1 threads.
  fb::MetalDispatchT &dispatch(uint32_t Kernel,
                               std::vector<fb::VulkanBinding> Bindings,
                               std::vector<uint32_t> Push, uint32_t Threads,
                               uint32_t Groups, int32_t Op,
                               std::vector<fb::VulkanSpecConstant> Constants = {}) {
    auto D = std::make_unique<fb::MetalDispatchT>();
    D->kernel = Kernel;
    D->bindings = std::move(Bindings);
    D->push_constants.resize(Push.size() * 4);
    std::memcpy(D->push_constants.data(), Push.data(), Push.size() * 4);
    D->function_constants = std::move(Constants);
    D->threads_per_threadgroup_x = Threads;
    D->threadgroups_x = Groups;
    D->operator_ = Op;
    payload().dispatches.push_back(std::move(D));
    return *payload().dispatches.back();
  }
};

/// x f32[6] -> (x * 2 + 1) into the arena -> (a * -1 + 0.5) -> y f32[6]:
/// two dispatches of one scale_bias kernel (storage buffers at [[buffer(0)]]
/// and [[buffer(1)]], 8 bytes of push constants at [[buffer(2)]]), whose
/// threadgroup width is function constant 0 (uint) and whose scale is
/// function constant 3 (float); an INPUT -> ARENA -> OUTPUT chain, and the
/// arena's place at offset 256. Like the Vulkan tests' chainModel.
inline MetalModel chainModel() {
  MetalModel M;
  int32_t X = M.tensor("x", {6}), A = M.tensor("a", {6}), Y = M.tensor("y", {6});
  int32_t Op0 = M.op({X}, {A}), Op1 = M.op({A}, {Y});
  M.Model.inputs = {X};
  M.Model.outputs = {Y};
  uint32_t K = M.kernel("scale_bias", {0, 1}, 8,
                        {{0, fb::MetalConstantType::UINT},
                         {3, fb::MetalConstantType::FLOAT}},
                        {64, 1, 1}, {0, -1, -1});
  uint32_t In = M.buffer(fb::VulkanBufferKind::INPUT, 24, 0);
  uint32_t Arena = M.buffer(fb::VulkanBufferKind::ARENA, 512);
  uint32_t Out = M.buffer(fb::VulkanBufferKind::OUTPUT, 24, 0);
  M.dispatch(K, {{In, 0, 24}, {Arena, 256, 24}}, {6, floatBits(1.f)}, 64, 1,
             Op0, {{0, 64}, {3, floatBits(2.f)}});
  M.dispatch(K, {{Arena, 256, 24}, {Out, 0, 24}}, {6, floatBits(0.5f)}, 32, 1,
             Op1, {{0, 32}, {3, floatBits(-1.f)}});
  M.place(A, Arena, 256, 24);
  return M;
}

} // namespace kiln::mtltest

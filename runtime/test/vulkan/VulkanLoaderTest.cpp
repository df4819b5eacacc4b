// The loader's verification of Vulkan files (VulkanPayloadVerifier.h): a
// well-formed file loads in every build, and each hostile file is refused
// with KILN_ERROR_INVALID_MODEL and a message naming the dispatch, shader or
// buffer and what is wrong. No device is needed.
#include "VulkanTestModels.h"

#include "kiln/kiln.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <iterator>
#include <limits>
#include <string>

using namespace kiln;
using namespace kiln::vktest;

namespace {

void requireRejected(const VulkanModel &M, const std::string &Text) {
  std::string Bytes = M.bytes();
  kiln_model *Model = nullptr;
  kiln_status S = kiln_model_load_buffer(Bytes.data(), Bytes.size(), &Model);
  std::string Error = S == KILN_OK ? "" : kiln_last_error();
  kiln_model_destroy(Model);
  INFO("message: " << Error);
  REQUIRE(S == KILN_ERROR_INVALID_MODEL);
  REQUIRE(Error.find(Text) != std::string::npos);
}

fb::VulkanBinding &binding(VulkanModel &M, size_t Dispatch, size_t I) {
  return M.payload().dispatches[Dispatch]->bindings[I];
}

} // namespace

TEST_CASE("a Vulkan file loads and names its target", "[vulkan][loader]") {
  for (const VulkanModel &M : {chainModel(), weightsModel(), c4Model()}) {
    std::string Bytes = M.bytes();
    kiln_model *Model = nullptr;
    INFO(kiln_last_error());
    REQUIRE(kiln_model_load_buffer(Bytes.data(), Bytes.size(), &Model) == KILN_OK);
    REQUIRE(std::string(kiln_model_target(Model)) == "vulkan");
    kiln_model_destroy(Model);
    REQUIRE(kiln_verify_buffer(Bytes.data(), Bytes.size()) == KILN_OK);
  }
}

TEST_CASE("hostile Vulkan dispatches are refused", "[vulkan][loader]") {
  VulkanModel M = chainModel();
  SECTION("a binding names a buffer that does not exist") {
    binding(M, 1, 0).mutate_buffer(7);
    requireRejected(M, "Vulkan dispatch 1: binding 0 names buffer 7 of 3");
  }
  SECTION("offset + size overflows") {
    binding(M, 0, 1).mutate_offset(std::numeric_limits<uint64_t>::max() - 7);
    requireRejected(M, "Vulkan dispatch 0: binding 1 (offset 18446744073709551608"
                       ", size 24) is outside buffer 1 (512 bytes)");
  }
  SECTION("a binding past the end of its buffer") {
    binding(M, 0, 1).mutate_offset(512);
    requireRejected(M, "binding 1 (offset 512, size 24) is outside buffer 1");
  }
  SECTION("an empty binding") {
    binding(M, 0, 0).mutate_size(0);
    requireRejected(M, "Vulkan dispatch 0: binding 0 is empty");
  }
  SECTION("group count 0") {
    M.payload().dispatches[0]->group_count_y = 0;
    requireRejected(M, "Vulkan dispatch 0: group count y is 0, outside [1, 65535]");
  }
  SECTION("a group count over the limit every device has") {
    M.payload().dispatches[1]->group_count_z = 70000;
    requireRejected(M, "Vulkan dispatch 1: group count z is 70000");
  }
  SECTION("a specialization constant the module does not have") {
    M.payload().dispatches[0]->spec_constants.push_back({5, 1});
    requireRejected(M, "Vulkan dispatch 0: specialization constant id 5 is not "
                       "in shader 0");
  }
  SECTION("specialization constants out of order") {
    std::swap(M.payload().dispatches[0]->spec_constants[0],
              M.payload().dispatches[0]->spec_constants[1]);
    requireRejected(M, "specialization constant ids are not sorted and unique");
  }
  SECTION("the wrong number of bindings") {
    M.payload().dispatches[0]->bindings.pop_back();
    requireRejected(M, "Vulkan dispatch 0: 1 bindings, but shader 0 has 2 "
                       "storage buffers");
  }
  SECTION("push constants of the wrong size") {
    M.payload().dispatches[1]->push_constants.resize(4);
    requireRejected(M, "Vulkan dispatch 1: 4 bytes of push constants, but "
                       "shader 0's block is 8 bytes");
    M.payload().dispatches[1]->push_constants.resize(6);
    requireRejected(M, "6 bytes of push constants (a multiple of 4");
  }
  SECTION("a shader index out of range") {
    M.payload().dispatches[1]->shader = 3;
    requireRejected(M, "Vulkan dispatch 1: shader 3 of 1");
  }
  SECTION("an operator index out of range") {
    M.payload().dispatches[1]->operator_ = 9;
    requireRejected(M, "Vulkan dispatch 1: operator 9 of 2");
  }
}

TEST_CASE("hostile fp16-arithmetic twins are refused", "[vulkan][loader]") {
  namespace k = kiln::testkernels;
  VulkanModel M = twinModel();
  auto &Shaders = M.payload().shaders;
  SECTION("a well-formed twin loads") {
    std::string Bytes = M.bytes();
    INFO(kiln_last_error());
    REQUIRE(kiln_verify_buffer(Bytes.data(), Bytes.size()) == KILN_OK);
  }
  SECTION("a twin out of range") {
    Shaders[0]->fp16_math_variant = 2;
    requireRejected(M, "Vulkan shader 0: fp16_math_variant 2 of 2 shaders");
    Shaders[0]->fp16_math_variant = -2;
    requireRejected(M, "Vulkan shader 0: fp16_math_variant -2 of 2 shaders");
  }
  SECTION("a shader its own twin") {
    Shaders[0]->fp16_math_variant = 0;
    requireRejected(M, "Vulkan shader 0: fp16_math_variant names the shader "
                       "itself");
  }
  SECTION("a twin with a twin of its own") {
    Shaders[1]->fp16_math_variant = 0;
    requireRejected(M, "Vulkan shader 0: fp16_math_variant 1 names a twin of "
                       "its own");
  }
  SECTION("a twin with other bindings") {
    Shaders[1]->spirv.assign(k::vector_add,
                             k::vector_add + sizeof(k::vector_add) / 4);
    requireRejected(M, "Vulkan shader 0: fp16_math_variant 1 has 3 storage "
                       "buffers and 4 push-constant bytes, unlike the "
                       "shader's 2 and 8");
  }
  SECTION("a twin that reads a constant the dispatches do not set") {
    // nhwc_to_c4 declares none; scale_bias's 0 and 3 would keep defaults.
    Shaders[0]->spirv.assign(k::nhwc_to_c4,
                             k::nhwc_to_c4 + sizeof(k::nhwc_to_c4) / 4);
    M.payload().dispatches.clear();
    requireRejected(M, "Vulkan shader 0: fp16_math_variant 1 declares "
                       "specialization constants the shader lacks");
  }
  SECTION("a twin of another workgroup size") {
    Shaders[1]->spirv.assign(k::nhwc_to_c4,
                             k::nhwc_to_c4 + sizeof(k::nhwc_to_c4) / 4);
    requireRejected(M, "Vulkan shader 0: fp16_math_variant 1 has another "
                       "workgroup size");
  }
}

TEST_CASE("hostile SPIR-V modules are refused", "[vulkan][loader]") {
  VulkanModel M = chainModel();
  std::vector<uint32_t> &Words = M.payload().shaders[0]->spirv;
  SECTION("truncated") {
    Words.resize(3);
    requireRejected(M, "Vulkan shader 0 'scale_bias': the SPIR-V module is "
                       "truncated");
  }
  SECTION("not SPIR-V") {
    for (uint32_t &W : Words)
      W = 0x6c6c6548; // "Hell"
    requireRejected(M, "Vulkan shader 0 'scale_bias': not SPIR-V");
  }
  SECTION("empty") {
    Words.clear();
    requireRejected(M, "Vulkan shader 0 'scale_bias': the SPIR-V module is empty");
  }
  SECTION("cut in the middle of an instruction") {
    Words.resize(Words.size() / 2);
    requireRejected(M, "Vulkan shader 0 'scale_bias': the SPIR-V module is invalid");
  }
}

TEST_CASE("by default only the kernel catalog's modules load",
          "[vulkan][loader][catalog]") {
  namespace k = kiln::testkernels;
  CatalogPolicy Policy;
  VulkanModel M = chainModel();
  std::vector<uint32_t> &Words = M.payload().shaders[0]->spirv;
  SECTION("a valid module of the tests' own") {
    requireRejected(M, "Vulkan shader 0 'scale_bias': the SPIR-V module (");
    requireRejected(M, ") is not one of this runtime's kernels; kiln runs "
                       "only the GPU kernels it was built with");
  }
  SECTION("a store through a pointer made from an integer") {
    Words.assign(k::buffer_reference,
                 k::buffer_reference + std::size(k::buffer_reference));
    requireRejected(M, "Vulkan shader 0 'scale_bias': the SPIR-V module (" +
                           std::to_string(sizeof(k::buffer_reference)) +
                           " bytes, SHA-256 ");
  }
  SECTION("shared memory indexed out of bounds") {
    Words.assign(k::shared_out_of_bounds,
                 k::shared_out_of_bounds + std::size(k::shared_out_of_bounds));
    requireRejected(M, "is not one of this runtime's kernels");
  }
  SECTION("a module named like a catalog kernel") {
    M.payload().shaders[0]->name = "conv2d_c4";
    requireRejected(M, "Vulkan shader 0 'conv2d_c4': the SPIR-V module (");
    requireRejected(M, "though it is named like one: the file was made by "
                       "another build of kiln");
  }
  SECTION("garbage is refused by the catalog before anything parses it") {
    for (uint32_t &W : Words)
      W = 0x6c6c6548;
    requireRejected(M, "is not one of this runtime's kernels");
  }
}

TEST_CASE("the policy is the caller's to set, and checked",
          "[vulkan][loader][catalog]") {
  REQUIRE(kiln_set_gpu_kernel_policy(7) == KILN_ERROR_INVALID_ARGUMENT);
  REQUIRE(std::string(kiln_last_error()) ==
          "kiln_set_gpu_kernel_policy: unknown policy");
}

TEST_CASE("with any valid module allowed, pointers from integers are still "
          "refused", "[vulkan][loader][catalog]") {
  namespace k = kiln::testkernels;
  VulkanModel M = chainModel();
  M.payload().shaders[0]->spirv.assign(
      k::buffer_reference, k::buffer_reference + std::size(k::buffer_reference));
  requireRejected(M, "Vulkan shader 0 'scale_bias': the SPIR-V module "
                     "declares the PhysicalStorageBufferAddresses capability, "
                     "which kiln's kernels never use");
}

TEST_CASE("hostile Vulkan buffers are refused", "[vulkan][loader]") {
  VulkanModel M = weightsModel();
  fb::VulkanBufferT &W = *M.payload().buffers[1];
  SECTION("an upload past the end of its buffer") {
    W.uploads[1] = {1, 1008};
    requireRejected(M, "Vulkan buffer 1 (WEIGHTS): upload 1 (segment 1, 24 "
                       "bytes at offset 1008) is outside the buffer (1024 bytes)");
  }
  SECTION("an upload of a segment that does not exist") {
    W.uploads[0] = {5, 0};
    requireRejected(M, "Vulkan buffer 1 (WEIGHTS): upload 0 names segment 5 of 2");
  }
  SECTION("a graph input without its INPUT buffer") {
    M.payload().buffers[0]->kind = fb::VulkanBufferKind::ARENA;
    M.payload().buffers[0]->io_index = -1;
    requireRejected(M, "graph input 0 has no INPUT buffer");
  }
  SECTION("an INPUT buffer of the wrong size") {
    M.payload().buffers[0]->size = 28;
    requireRejected(M, "Vulkan buffer 0 (INPUT): 28 bytes, but graph input 0 "
                       "'x' takes 24");
  }
  SECTION("two OUTPUT buffers for one output") {
    M.payload().buffers[2]->kind = fb::VulkanBufferKind::OUTPUT;
    M.payload().buffers[2]->io_index = 0;
    M.payload().buffers[2]->size = 24;
    requireRejected(M, "graph output 0 has more than one buffer");
  }
  SECTION("an empty buffer") {
    M.payload().buffers[2]->size = 0;
    requireRejected(M, "Vulkan buffer 2 (ARENA): size 0 is outside");
  }
  SECTION("a place outside its buffer") {
    M.payload().places[0]->offset = 240;
    requireRejected(M, "Vulkan place 0 (offset 240, size 24) is outside buffer 2");
  }
}

TEST_CASE("GPU layouts belong to Vulkan files only", "[vulkan][loader]") {
  SECTION("a C4 place too small for the padded channels") {
    VulkanModel M = c4Model();
    M.payload().places[0]->size = 24;
    requireRejected(M, "Vulkan place 0: 24 bytes, but tensor 1 'c' takes 32");
  }
  SECTION("a C4 tensor in a CPU file") {
    VulkanModel M = c4Model();
    M.Model.target = fb::Target::CPU;
    M.Model.payload.Set(fb::CpuPayloadT());
    requireRejected(M, "tensor 1 'c': layout C4 in a cpu file");
  }
  SECTION("a PACKED constant shorter than its logical bytes") {
    VulkanModel M = weightsModel();
    uint32_t Seg = M.segment({1, 2});
    int32_t T = M.tensor("w", {3}, fb::Layout::PACKED);
    M.Model.tensors[size_t(T)]->buffer = int32_t(Seg);
    requireRejected(M, "PACKED segment 2 holds 8 bytes, expected at least 12");
  }
  SECTION("a graph output in C4") {
    VulkanModel M = c4Model();
    M.Model.tensors[2]->layout = fb::Layout::C4;
    M.Model.tensors[2]->shape = {1, 1, 2, 4};
    requireRejected(M, "graph output tensor 2 'y' is C4");
  }
}

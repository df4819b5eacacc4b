// The loader's checks of Metal files (MetalPayloadVerifier.h and the GPU
// buffer and place checks it shares with Vulkan, GpuBuffersVerifier.h), in
// every build: a valid two-dispatch model loads, and each mutant of it is
// rejected with KILN_ERROR_INVALID_MODEL and a message naming what is wrong.
#include "MetalTestModels.h"

#include "kiln/kiln.h"

#include <catch2/catch.hpp>

#include <functional>

using namespace kiln;
using namespace kiln::mtltest;

namespace {

kiln_status load(const std::string &Bytes, std::string &Error) {
  kiln_model *Model = nullptr;
  kiln_status S = kiln_model_load_buffer(Bytes.data(), Bytes.size(), &Model);
  Error = S == KILN_OK ? "" : kiln_last_error();
  kiln_model_destroy(Model);
  return S;
}

struct Mutant {
  const char *Name;
  std::function<void(MetalModel &)> Mutate;
  const char *Message;
};

void requireAllRejected(const std::vector<Mutant> &Mutants) {
  for (const Mutant &X : Mutants) {
    DYNAMIC_SECTION(X.Name) {
      MetalModel M = chainModel();
      X.Mutate(M);
      std::string Error;
      kiln_status S = load(M.bytes(), Error);
      INFO("message: " << Error);
      REQUIRE(S == KILN_ERROR_INVALID_MODEL);
      REQUIRE(Error.find(X.Message) != std::string::npos);
    }
  }
}

using Type = fb::MetalConstantType;

} // namespace

TEST_CASE("a valid Metal file loads and names its target", "[metal][loader]") {
  MetalModel M = chainModel();
  SECTION("as built") {}
  SECTION("with a buffer-size buffer after the push constants") {
    M.kernel(0).buffer_size_index = 3;
  }
  SECTION("without push constants or function constants") {
    M.kernel(0).push_constant_index = -1;
    M.kernel(0).push_constant_bytes = 0;
    M.kernel(0).function_constants.clear();
    M.kernel(0).threadgroup_size_constants = {-1, -1, -1};
    for (auto &D : M.payload().dispatches) {
      D->push_constants.clear();
      D->function_constants.clear();
      D->threads_per_threadgroup_x = 64;
    }
  }
  SECTION("a dispatch keeps the MSL's default threadgroup width") {
    M.dispatchAt(1).function_constants = {{3, floatBits(-1.f)}};
    M.dispatchAt(1).threads_per_threadgroup_x = 64;
  }
  SECTION("the highest buffer index, 2D threadgroups of 1024 threads") {
    M.kernel(0).buffer_indices = {30, 0};
    M.kernel(0).threadgroup_size = {64, 16, 1};
    for (auto &D : M.payload().dispatches) {
      D->threads_per_threadgroup_y = 16;
      D->threadgroups_y = 4; // 65535 would be more work than the tensors need
    }
  }
  std::string Bytes = M.bytes();
  kiln_model *Model = nullptr;
  REQUIRE(kiln_model_load_buffer(Bytes.data(), Bytes.size(), &Model) == KILN_OK);
  REQUIRE(std::string(kiln_model_target(Model)) == "metal");
  kiln_model_destroy(Model);
}

TEST_CASE("hostile Metal payloads are rejected", "[metal][loader]") {
  requireAllRejected({
      {"a grid far beyond what the dispatch's tensors need",
       [](MetalModel &M) {
         M.dispatchAt(0).threadgroups_x = 65535;
         M.dispatchAt(0).threadgroups_y = 65535;
       },
       "the dispatch runs"},
      {"another target's payload",
       [](MetalModel &M) { M.Model.payload.Set(fb::VulkanPayloadT()); },
       "the payload (VulkanPayload) is not the metal target's"},
      {"MSL version 0",
       [](MetalModel &M) { M.payload().msl_version = 0; },
       "MSL version 0 is not one (major * 10000 + minor * 100)"},
      {"MSL version with a patch level",
       [](MetalModel &M) { M.payload().msl_version = 20101; },
       "MSL version 20101 is not one"},
      {"MSL version 4.0",
       [](MetalModel &M) { M.payload().msl_version = 40000; },
       "MSL version 40000 is not one"},
      {"MSL version 2.10",
       [](MetalModel &M) { M.payload().msl_version = 21000; },
       "MSL version 21000 is not one"},
  });
}

TEST_CASE("hostile Metal kernels are rejected", "[metal][loader]") {
  requireAllRejected({
      {"no MSL", [](MetalModel &M) { M.kernel(0).msl.clear(); },
       "Metal kernel 0 'scale_bias': no MSL source"},
      {"no entry point", [](MetalModel &M) { M.kernel(0).entry_point.clear(); },
       "Metal kernel 0 'scale_bias': the entry point is not an identifier"},
      {"an entry point with a space",
       [](MetalModel &M) { M.kernel(0).entry_point = "main0 ["; },
       "Metal kernel 0 'scale_bias': the entry point is not an identifier"},
      {"an entry point starting with a digit",
       [](MetalModel &M) { M.kernel(0).entry_point = "0main"; },
       "the entry point is not an identifier"},
      {"an entry point of 257 characters",
       [](MetalModel &M) { M.kernel(0).entry_point = std::string(257, 'm'); },
       "the entry point is not an identifier"},
      {"a buffer index of 31",
       [](MetalModel &M) { M.kernel(0).buffer_indices = {0, 31}; },
       "Metal kernel 0 'scale_bias': storage buffer 1 is at buffer index 31 "
       "(indices are distinct, below 31)"},
      {"a huge buffer index",
       [](MetalModel &M) { M.kernel(0).buffer_indices = {4294967295u, 1}; },
       "storage buffer 0 is at buffer index 4294967295"},
      {"a duplicate buffer index",
       [](MetalModel &M) { M.kernel(0).buffer_indices = {1, 1}; },
       "storage buffer 1 is at buffer index 1 (indices are distinct"},
      {"65 storage buffers",
       [](MetalModel &M) { M.kernel(0).buffer_indices.assign(65, 0); },
       "65 storage buffers (at most 64)"},
      {"push constants at a storage buffer's index",
       [](MetalModel &M) { M.kernel(0).push_constant_index = 1; },
       "the push-constant block is at buffer index 1, which is taken or "
       "outside [0, 31)"},
      {"push constants at index 31",
       [](MetalModel &M) { M.kernel(0).push_constant_index = 31; },
       "the push-constant block is at buffer index 31"},
      {"push constants at index -2",
       [](MetalModel &M) { M.kernel(0).push_constant_index = -2; },
       "the push-constant block is at buffer index -2"},
      {"the buffer-size buffer at a storage buffer's index",
       [](MetalModel &M) { M.kernel(0).buffer_size_index = 1; },
       "the buffer-size buffer is at buffer index 1, which is taken or "
       "outside [0, 31)"},
      {"the buffer-size buffer at the push constants' index",
       [](MetalModel &M) { M.kernel(0).buffer_size_index = 2; },
       "the buffer-size buffer is at buffer index 2, which is taken"},
      {"the buffer-size buffer at index 31",
       [](MetalModel &M) { M.kernel(0).buffer_size_index = 31; },
       "the buffer-size buffer is at buffer index 31"},
      {"the buffer-size buffer at index -2",
       [](MetalModel &M) { M.kernel(0).buffer_size_index = -2; },
       "the buffer-size buffer is at buffer index -2"},
      {"push bytes without an index",
       [](MetalModel &M) { M.kernel(0).push_constant_index = -1; },
       "8 bytes of push constants at buffer index -1 (a multiple of 4, at "
       "most 128, none without an index)"},
      {"an index without push bytes",
       [](MetalModel &M) { M.kernel(0).push_constant_bytes = 0; },
       "0 bytes of push constants at buffer index 2"},
      {"push bytes not a multiple of 4",
       [](MetalModel &M) { M.kernel(0).push_constant_bytes = 6; },
       "6 bytes of push constants at buffer index 2"},
      {"132 push bytes",
       [](MetalModel &M) { M.kernel(0).push_constant_bytes = 132; },
       "132 bytes of push constants at buffer index 2"},
      {"function constants unsorted",
       [](MetalModel &M) {
         M.kernel(0).function_constants = {{3, Type::FLOAT}, {0, Type::UINT}};
       },
       "Metal kernel 0 'scale_bias': function constant ids are not sorted and "
       "unique (3 then 0)"},
      {"a function constant twice",
       [](MetalModel &M) {
         M.kernel(0).function_constants = {{0, Type::UINT}, {0, Type::FLOAT}};
       },
       "function constant ids are not sorted and unique (0 then 0)"},
      {"a function constant id beyond Metal's 16-bit index",
       [](MetalModel &M) {
         M.kernel(0).function_constants[1] = {70000, Type::FLOAT};
       },
       "Metal kernel 0 'scale_bias': function constant id 70000 is above "
       "65535"},
      {"a bool constant set to 7",
       [](MetalModel &M) {
         M.kernel(0).function_constants[1] = {3, Type::BOOL};
         for (int D = 0; D < 2; ++D)
           for (auto &C : M.dispatchAt(D).function_constants)
             if (C.id() == 3)
               C = {3, D == 0 ? 1u : 7u};
       },
       "Metal dispatch 1: function constant 3 is a bool, but its value is 7"},
      {"an unknown constant type",
       [](MetalModel &M) {
         M.kernel(0).function_constants[1] = {3, fb::MetalConstantType(7)};
       },
       "Metal kernel 0 'scale_bias': function constant 3 has unknown type 7"},
      {"a threadgroup size of 2 values",
       [](MetalModel &M) { M.kernel(0).threadgroup_size = {64, 1}; },
       "the threadgroup size and its constants are not 3 values each"},
      {"no threadgroup size",
       [](MetalModel &M) { M.kernel(0).threadgroup_size.clear(); },
       "the threadgroup size and its constants are not 3 values each"},
      {"4 threadgroup size constants",
       [](MetalModel &M) {
         M.kernel(0).threadgroup_size_constants = {0, -1, -1, -1};
       },
       "the threadgroup size and its constants are not 3 values each"},
      {"a threadgroup size of 0",
       [](MetalModel &M) { M.kernel(0).threadgroup_size = {64, 0, 1}; },
       "Metal kernel 0 'scale_bias': threadgroup size y is 0"},
      {"a threadgroup size over 1024",
       [](MetalModel &M) { M.kernel(0).threadgroup_size = {64, 1, 1025}; },
       "threadgroup size z is 1025"},
      {"a threadgroup size constant the kernel does not declare",
       [](MetalModel &M) {
         M.kernel(0).threadgroup_size_constants = {0, 5, -1};
       },
       "Metal kernel 0 'scale_bias': threadgroup size y is set by 5, which is "
       "no uint function constant of the kernel"},
      {"a threadgroup size constant that is a float",
       [](MetalModel &M) {
         M.kernel(0).threadgroup_size_constants = {3, -1, -1};
       },
       "threadgroup size x is set by 3, which is no uint function constant"},
      {"a threadgroup size constant of -2",
       [](MetalModel &M) {
         M.kernel(0).threadgroup_size_constants = {-2, -1, -1};
       },
       "threadgroup size x is set by -2, which is no uint function constant"},
      {"too much threadgroup memory",
       [](MetalModel &M) { M.kernel(0).threadgroup_memory_bytes = 32772; },
       "32772 bytes of threadgroup memory (at most 32768)"},
  });
}

TEST_CASE("hostile Metal dispatches are rejected", "[metal][loader]") {
  requireAllRejected({
      {"a kernel out of range",
       [](MetalModel &M) { M.dispatchAt(1).kernel = 1; },
       "Metal dispatch 1: kernel 1 of 1"},
      {"a huge kernel index",
       [](MetalModel &M) { M.dispatchAt(0).kernel = 4294967295u; },
       "Metal dispatch 0: kernel 4294967295 of 1"},
      {"one binding too few",
       [](MetalModel &M) { M.dispatchAt(0).bindings.pop_back(); },
       "Metal dispatch 0: 1 bindings, but kernel 0 has 2 storage buffers"},
      {"one binding too many",
       [](MetalModel &M) {
         M.dispatchAt(1).bindings.push_back({0, 0, 24});
       },
       "Metal dispatch 1: 3 bindings, but kernel 0 has 2 storage buffers"},
      {"a binding's buffer out of range",
       [](MetalModel &M) { M.dispatchAt(1).bindings[0] = {7, 0, 24}; },
       "Metal dispatch 1: binding 0 names buffer 7 of 3"},
      {"a binding past its buffer's end",
       [](MetalModel &M) { M.dispatchAt(0).bindings[1] = {1, 512, 24}; },
       "Metal dispatch 0: binding 1 (offset 512, size 24) is outside buffer 1 "
       "(512 bytes)"},
      {"a binding larger than its buffer",
       [](MetalModel &M) { M.dispatchAt(0).bindings[0] = {0, 0, 28}; },
       "binding 0 (offset 0, size 28) is outside buffer 0 (24 bytes)"},
      {"a binding whose offset + size overflows",
       [](MetalModel &M) {
         M.dispatchAt(0).bindings[1] = {1, 18446744073709551608ull, 16};
       },
       "Metal dispatch 0: binding 1 (offset 18446744073709551608, size 16) is "
       "outside buffer 1"},
      {"an empty binding",
       [](MetalModel &M) { M.dispatchAt(1).bindings[1] = {2, 0, 0}; },
       "Metal dispatch 1: binding 1 is empty (size 0)"},
      {"a binding offset that is not float4-aligned",
       [](MetalModel &M) { M.dispatchAt(0).bindings[1] = {1, 258, 24}; },
       "Metal dispatch 0: binding 1 (offset 258) is not a multiple of 16"},
      {"a function constant the kernel does not declare",
       [](MetalModel &M) {
         M.dispatchAt(0).function_constants = {{0, 64}, {1, 7}, {3, 0}};
       },
       "Metal dispatch 0: function constant 1 is not in kernel 0"},
      {"function constants unsorted",
       [](MetalModel &M) {
         M.dispatchAt(1).function_constants = {{3, 0}, {0, 32}};
       },
       "Metal dispatch 1: function constant ids are not sorted and unique "
       "(3 then 0)"},
      {"too few push bytes",
       [](MetalModel &M) { M.dispatchAt(1).push_constants.resize(4); },
       "Metal dispatch 1: 4 bytes of push constants, but kernel 0's block is "
       "8 bytes"},
      {"push bytes the kernel has no block for",
       [](MetalModel &M) {
         M.kernel(0).push_constant_index = -1;
         M.kernel(0).push_constant_bytes = 0;
       },
       "Metal dispatch 0: 8 bytes of push constants, but kernel 0's block is "
       "0 bytes"},
      {"threads differing from the width constant",
       [](MetalModel &M) { M.dispatchAt(1).threads_per_threadgroup_x = 64; },
       "Metal dispatch 1: threads per threadgroup x is 64, but the kernel's "
       "threadgroup size there is 32"},
      {"threads differing from the MSL's default width",
       [](MetalModel &M) {
         M.dispatchAt(1).function_constants = {{3, 0}};
       },
       "Metal dispatch 1: threads per threadgroup x is 32, but the kernel's "
       "threadgroup size there is 64"},
      {"threads differing from a fixed size",
       [](MetalModel &M) { M.dispatchAt(0).threads_per_threadgroup_z = 2; },
       "Metal dispatch 0: threads per threadgroup z is 2, but the kernel's "
       "threadgroup size there is 1"},
      {"a width constant of 0",
       [](MetalModel &M) {
         M.dispatchAt(0).function_constants[0].mutate_value(0);
         M.dispatchAt(0).threads_per_threadgroup_x = 0;
       },
       "Metal dispatch 0: 0 threads per threadgroup (at most 1024)"},
      {"2048 threads per threadgroup",
       [](MetalModel &M) {
         M.kernel(0).threadgroup_size = {64, 32, 1};
         M.dispatchAt(0).function_constants[0].mutate_value(64);
         M.dispatchAt(0).threads_per_threadgroup_y = 32;
       },
       "Metal dispatch 0: 2048 threads per threadgroup (at most 1024)"},
      {"a width constant of 2^31",
       [](MetalModel &M) {
         M.dispatchAt(1).function_constants[0].mutate_value(2147483648u);
         M.dispatchAt(1).threads_per_threadgroup_x = 2147483648u;
       },
       "Metal dispatch 1: 2147483648 threads per threadgroup (at most 1024)"},
      {"0 threadgroups",
       [](MetalModel &M) { M.dispatchAt(0).threadgroups_x = 0; },
       "Metal dispatch 0: threadgroups x is 0, outside [1, 65535]"},
      {"65536 threadgroups",
       [](MetalModel &M) { M.dispatchAt(1).threadgroups_y = 65536; },
       "Metal dispatch 1: threadgroups y is 65536, outside [1, 65535]"},
      {"0 threadgroups in z",
       [](MetalModel &M) { M.dispatchAt(1).threadgroups_z = 0; },
       "Metal dispatch 1: threadgroups z is 0"},
      {"an operator out of range",
       [](MetalModel &M) { M.dispatchAt(1).operator_ = 2; },
       "Metal dispatch 1: operator 2 of 2"},
      {"an operator of -2",
       [](MetalModel &M) { M.dispatchAt(0).operator_ = -2; },
       "Metal dispatch 0: operator -2 of 2"},
  });
}

TEST_CASE("hostile Metal buffers and places are rejected", "[metal][loader]") {
  // A WEIGHTS buffer with one upload of 24 bytes at offset 256.
  auto WithWeights = [](MetalModel &M) {
    uint32_t Seg = M.segment({1, 2, 3, 4, 5, 6});
    uint32_t W = M.buffer(fb::VulkanBufferKind::WEIGHTS, 512);
    M.payload().buffers[W]->uploads = {{Seg, 256}};
    return W;
  };
  requireAllRejected({
      {"an unknown buffer kind",
       [](MetalModel &M) {
         M.payload().buffers[1]->kind = fb::VulkanBufferKind(9);
       },
       "Metal buffer 1: unknown kind 9"},
      {"a buffer of 0 bytes",
       [](MetalModel &M) { M.payload().buffers[1]->size = 0; },
       "Metal buffer 1 (ARENA): size 0 is outside [1, 68719476736]"},
      {"a buffer of 2^36 + 1 bytes",
       [](MetalModel &M) {
         M.payload().buffers[1]->size = (uint64_t(1) << 36) + 1;
       },
       "Metal buffer 1 (ARENA): size 68719476737 is outside"},
      {"an upload outside its buffer",
       [&](MetalModel &M) {
         uint32_t W = WithWeights(M);
         M.payload().buffers[W]->uploads[0] = {0, 500};
       },
       "Metal buffer 3 (WEIGHTS): upload 0 (segment 0, 24 bytes at offset "
       "500) is outside the buffer (512 bytes)"},
      {"an upload of a segment out of range",
       [&](MetalModel &M) {
         uint32_t W = WithWeights(M);
         M.payload().buffers[W]->uploads[0] = {5, 0};
       },
       "Metal buffer 3 (WEIGHTS): upload 0 names segment 5 of 1"},
      {"an upload into an arena",
       [&](MetalModel &M) {
         WithWeights(M);
         M.payload().buffers[1]->uploads = {{0, 0}};
       },
       "Metal buffer 1 (ARENA): only WEIGHTS buffers have uploads"},
      {"an io_index on an arena",
       [](MetalModel &M) { M.payload().buffers[1]->io_index = 0; },
       "Metal buffer 1 (ARENA): io_index 0 on a buffer that is no INPUT or "
       "OUTPUT"},
      {"an INPUT buffer for no graph input",
       [](MetalModel &M) { M.payload().buffers[0]->io_index = 1; },
       "Metal buffer 0 (INPUT): io_index 1 names none of 1 graph inputs"},
      {"no INPUT buffer",
       [](MetalModel &M) {
         M.payload().buffers[0]->kind = fb::VulkanBufferKind::ARENA;
         M.payload().buffers[0]->io_index = -1;
       },
       "graph input 0 has no INPUT buffer"},
      {"no OUTPUT buffer",
       [](MetalModel &M) {
         M.payload().buffers[2]->kind = fb::VulkanBufferKind::ARENA;
         M.payload().buffers[2]->io_index = -1;
       },
       "graph output 0 has no OUTPUT buffer"},
      {"two OUTPUT buffers",
       [](MetalModel &M) { M.buffer(fb::VulkanBufferKind::OUTPUT, 24, 0); },
       "Metal buffer 3 (OUTPUT): graph output 0 has more than one buffer"},
      {"an INPUT buffer of the wrong size",
       [](MetalModel &M) { M.payload().buffers[0]->size = 28; },
       "Metal buffer 0 (INPUT): 28 bytes, but graph input 0 'x' takes 24"},
      {"a place outside its buffer",
       [](MetalModel &M) { M.payload().places[0]->offset = 496; },
       "Metal place 0 (offset 496, size 24) is outside buffer 1 (512 bytes)"},
      {"a place whose offset + size overflows",
       [](MetalModel &M) {
         M.payload().places[0]->offset = 18446744073709551615ull;
       },
       "Metal place 0 (offset 18446744073709551615, size 24) is outside "
       "buffer 1"},
      {"a place in a buffer out of range",
       [](MetalModel &M) { M.payload().places[0]->buffer = 3; },
       "Metal place 0: buffer 3 of 3"},
      {"a place of a tensor out of range",
       [](MetalModel &M) { M.payload().places[0]->tensor = 3; },
       "Metal place 0: tensor 3 of 3"},
      {"a place of tensor -1",
       [](MetalModel &M) { M.payload().places[0]->tensor = -1; },
       "Metal place 0: tensor -1 of 3"},
      {"a place too small for its tensor",
       [](MetalModel &M) { M.payload().places[0]->size = 20; },
       "Metal place 0: 20 bytes, but tensor 1 'a' takes 24"},
      {"a place of a constant",
       [&](MetalModel &M) {
         WithWeights(M);
         int32_t W = M.tensor("w", {6});
         M.Model.tensors[size_t(W)]->buffer = 0;
         M.payload().places[0]->tensor = W;
       },
       "Metal place 0: tensor 3 'w' is a constant"},
  });
}

TEST_CASE("by default only the Metal kernel catalog's records load",
          "[metal][loader][catalog]") {
  gputest::CatalogPolicy Policy;
  MetalModel M = chainModel();
  std::string Error;
  SECTION("MSL of the tests' own") {}
  SECTION("named like a catalog kernel") { M.kernel(0).name = "conv2d_c4"; }
  REQUIRE(load(M.bytes(), Error) == KILN_ERROR_INVALID_MODEL);
  INFO("message: " << Error);
  REQUIRE(Error.find("Metal kernel 0 '" + M.kernel(0).name +
                     "': the Metal kernel (") != std::string::npos);
  REQUIRE(Error.find(") is not one of this runtime's kernels") !=
          std::string::npos);
  REQUIRE((Error.find("named like one") != std::string::npos) ==
          (M.kernel(0).name == "conv2d_c4"));
}

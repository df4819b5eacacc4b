// The Vulkan kernel catalog's fp16-arithmetic twins (KernelCatalog.h) and
// how VulkanProgram::finish stores them: every "_f16math" variant can stand
// in for its "_f16" kernel with the same dispatch records (no constant the
// kernel lacks), only the twins need the Float16 capability
// (shaderFloat16), and a file names each twin from its kernel's shader.
#include "backends/gpu/KernelCatalog.h"
#include "backends/gpu/VulkanProgram.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace kiln;
using namespace kiln::vulkan;

namespace {

const char *const Families[] = {"conv2d_c4",      "conv2d_grouped_c4",
                                "depthwise_c4",   "elementwise",
                                "fully_connected", "gather",
                                "global_pool_c4", "pool2d_c4",
                                "resize",         "softmax"};

/// Whether the module declares OpCapability Float16 (fp16 arithmetic).
bool usesFloat16(llvm::ArrayRef<uint32_t> Spirv) {
  constexpr uint32_t OpCapability = 17, Float16 = 9, HeaderWords = 5;
  for (size_t I = HeaderWords; I < Spirv.size();) {
    uint32_t Words = Spirv[I] >> 16, Op = Spirv[I] & 0xffff;
    if (Words == 0)
      break;
    if (Op == OpCapability && Words == 2 && I + 1 < Spirv.size() &&
        Spirv[I + 1] == Float16)
      return true;
    I += Words;
  }
  return false;
}

} // namespace

TEST_CASE("fp16-arithmetic twins stand in for their fp16-storage kernels",
          "[vulkan][catalog]") {
  size_t Twins = 0;
  for (const char *F : Families) {
    std::string Name = F, F16 = Name + "_f16";
    INFO(Name);
    REQUIRE(!kernelSpirv(Name).empty());
    REQUIRE(!kernelSpirv(F16).empty());
    CHECK(fp16MathVariant(Name).empty());
    // The storage-only variants need only 16-bit storage.
    CHECK_FALSE(usesFloat16(kernelSpirv(F16)));
    std::string Twin = fp16MathVariant(F16);
    if (Twin.empty())
      continue;
    ++Twins;
    CHECK(Twin == Name + "_f16math");
    CHECK(usesFloat16(kernelSpirv(Twin)));
    std::set<uint32_t> Own = specConstantIds(kernelSpirv(F16));
    std::set<uint32_t> Theirs = specConstantIds(kernelSpirv(Twin));
    CHECK(std::includes(Own.begin(), Own.end(), Theirs.begin(), Theirs.end()));
  }
  // The reductions (global_pool_c4, softmax) and gather keep fp32
  // arithmetic; conv2d_c4 gains its twin with its register-tiled rewrite.
  for (const char *F : {"depthwise_c4", "conv2d_grouped_c4", "elementwise",
                        "fully_connected", "pool2d_c4", "resize"})
    CHECK(!fp16MathVariant(std::string(F) + "_f16").empty());
  for (const char *F : {"global_pool_c4", "softmax", "gather"})
    CHECK(fp16MathVariant(std::string(F) + "_f16").empty());
  CHECK(Twins >= 6);
}

TEST_CASE("a file stores each twin once, after the shaders dispatches name",
          "[vulkan][catalog]") {
  VulkanProgram P;
  int32_t A = P.addPlace({1024, Place::Arena});
  int32_t B = P.addPlace({1024, Place::Arena});
  for (const char *K : {"depthwise_c4_f16", "softmax_f16", "depthwise_c4_f16",
                        "elementwise_f16"}) {
    PendingDispatch &D = P.addDispatch(K, -1);
    D.Bindings = {{false, A, 0, 0}, {false, B, 0, 0}};
  }
  KilnModule M;
  P.finish(M);
  const fb::VulkanPayloadT &Pay = *M.Model.payload.AsVulkanPayload();
  std::vector<std::string> Names;
  for (const auto &S : Pay.shaders)
    Names.push_back(S->name);
  REQUIRE(Names == std::vector<std::string>{"depthwise_c4_f16", "softmax_f16",
                                            "elementwise_f16",
                                            "depthwise_c4_f16math",
                                            "elementwise_f16math"});
  CHECK(Pay.shaders[0]->fp16_math_variant == 3);
  CHECK(Pay.shaders[1]->fp16_math_variant == -1);
  CHECK(Pay.shaders[2]->fp16_math_variant == 4);
  CHECK(Pay.shaders[3]->fp16_math_variant == -1);
  // Dispatches still name the storage-only shaders.
  CHECK(Pay.dispatches[2]->shader == 0);
  CHECK(Pay.dispatches[3]->shader == 2);
}

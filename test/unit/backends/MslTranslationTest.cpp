// The Metal target's MSL, cross-checked against the SPIR-V it comes from:
// every variant of every Vulkan kernel translates, and what the translation
// reports (MslTranslation.h) agrees with two independent readings: the
// SPIR-V's own decorations, parsed here word by word (the binding of each
// storage buffer variable, the SpecIds, LocalSize, Workgroup variables),
// and the MSL text SPIRV-Cross wrote (the [[buffer(n)]] of each kernel
// parameter, the [[function_constant(n)]] declarations, the absence of
// threadgroup memory and barriers).
#include "backends/metal/MslTranslation.h"
#include "backends/gpu/KernelCatalog.h"

#include <catch2/catch.hpp>

#include <map>
#include <regex>
#include <set>

using namespace kiln;

namespace {

const char *const Families[] = {
    "attention",      "concat",          "conv2d_c4",     "conv2d_grouped_c4",
    "depthwise_c4",   "elementwise",     "fully_connected", "gather",
    "global_pool_c4", "gru_cell",        "index_gather",  "index_to_float",
    "layer_norm",     "lstm_cell",       "matmul",        "pixels_to_tensor",
    "pool2d_c4",      "resize",          "softmax"};
const char *const Variants[] = {"", "_f16", "_f16math", "_f16_f32",
                                "_f16math_f32"};

/// Every kernel the catalog has, each once.
std::set<std::string> allKernels() {
  std::set<std::string> Names;
  for (const char *F : Families)
    for (const char *V : Variants)
      if (!vulkan::kernelSpirv(std::string(F) + V).empty())
        Names.insert(std::string(F) + V);
  for (const char *G : {"gather_f32_f16", "gather_f16_f32"})
    Names.insert(G);
  return Names;
}

/// What the SPIR-V words say, read without SPIRV-Cross.
struct SpirvFacts {
  std::map<uint32_t, uint32_t> BindingOfId; // variable id -> Binding
  std::set<uint32_t> SpecIds;
  uint32_t LocalSize[3] = {0, 0, 0};
  bool WorkgroupVariables = false;
};

SpirvFacts readSpirv(llvm::ArrayRef<uint32_t> W) {
  constexpr uint32_t OpExecutionMode = 16, OpVariable = 59, OpDecorate = 71;
  constexpr uint32_t LocalSize = 17, SpecId = 1, Binding = 33, Workgroup = 4;
  SpirvFacts F;
  for (size_t I = 5; I < W.size();) {
    uint32_t Words = W[I] >> 16, Op = W[I] & 0xffff;
    REQUIRE(Words > 0);
    REQUIRE(I + Words <= W.size());
    if (Op == OpDecorate && Words == 4 && W[I + 2] == SpecId)
      F.SpecIds.insert(W[I + 3]);
    if (Op == OpDecorate && Words == 4 && W[I + 2] == Binding)
      F.BindingOfId[W[I + 1]] = W[I + 3];
    if (Op == OpExecutionMode && Words == 6 && W[I + 2] == LocalSize)
      for (unsigned D = 0; D < 3; ++D)
        F.LocalSize[D] = W[I + 3 + D];
    if (Op == OpVariable && Words >= 4 && W[I + 3] == Workgroup)
      F.WorkgroupVariables = true;
    I += Words;
  }
  return F;
}

/// The kernel function's parameter list in Msl.
std::string signature(const std::string &Msl, const std::string &Entry) {
  size_t At = Msl.find("kernel void " + Entry + "(");
  REQUIRE(At != std::string::npos);
  // The parameter list ends at the first ")" that ends a line.
  size_t End = Msl.find(")\n", At);
  REQUIRE(End != std::string::npos);
  return Msl.substr(At, End - At);
}

} // namespace

TEST_CASE("every Vulkan kernel translates to MSL that matches its SPIR-V",
          "[metal][msl]") {
  std::set<std::string> Names = allKernels();
  // 19 families in fp32 and fp16 storage, 7 fp16-arithmetic twins, 4 f32
  // outputs, 2 gathers.
  REQUIRE(Names.size() == 19 * 2 + 7 + 4 + 2);
  for (const std::string &Name : Names) {
    INFO(Name);
    llvm::ArrayRef<uint32_t> Spirv = vulkan::kernelSpirv(Name);
    auto K = metal::translateToMsl(Name, Spirv);
    if (!K)
      FAIL(llvm::toString(K.takeError()));
    SpirvFacts F = readSpirv(Spirv);

    CHECK(K->EntryPoint == "main0");
    std::string Sig = signature(K->Source, K->EntryPoint);

    // Storage buffer binding i is [[buffer(i)]], on the parameter SPIRV-Cross
    // names after the variable's id.
    REQUIRE(K->BufferIndices.size() == F.BindingOfId.size());
    for (auto [Id, Binding] : F.BindingOfId) {
      REQUIRE(Binding < K->BufferIndices.size());
      CHECK(K->BufferIndices[Binding] == Binding);
      std::regex Param("_" + std::to_string(Id) + " \\[\\[buffer\\(" +
                       std::to_string(Binding) + "\\)\\]\\]");
      CHECK(std::regex_search(Sig, Param));
    }
    std::smatch M;
    std::string Rest = Sig;
    size_t BufferParams = 0;
    std::regex AnyBuffer("\\[\\[buffer\\((\\d+)\\)\\]\\]");
    while (std::regex_search(Rest, M, AnyBuffer)) {
      ++BufferParams;
      Rest = M.suffix();
    }
    // No push-constant block in kiln's kernels; after the storage buffers,
    // the buffer-size buffer that every kernel's bounds checks read
    // (common.glsl's LOAD and STORE), at the next index.
    CHECK(K->PushConstantIndex == -1);
    CHECK(K->BufferSizeIndex == int32_t(K->BufferIndices.size()));
    CHECK(BufferParams == K->BufferIndices.size() + 1);
    std::regex Sizes("constant uint\\* spvBufferSizeConstants \\[\\[buffer\\(" +
                     std::to_string(K->BufferIndices.size()) + "\\)\\]\\]");
    CHECK(std::regex_search(Sig, Sizes));
    // Each storage buffer's length is read from its own slot
    // (spvBufferSizeConstants[n] for [[buffer(n)]]), as the executor fills
    // it.
    for (size_t B = 0; B < K->BufferIndices.size(); ++B)
      CHECK(K->Source.find("spvBufferSizeConstants[" + std::to_string(B) +
                           "]") != std::string::npos);

    // Function constants: the SpecIds, each declared once in the MSL.
    std::set<uint32_t> Reported;
    for (const metal::FunctionConstant &C : K->FunctionConstants)
      Reported.insert(C.Id);
    CHECK(Reported == F.SpecIds);
    std::set<uint32_t> InMsl;
    std::regex Fc("\\[\\[function_constant\\((\\d+)\\)\\]\\]");
    std::string Src = K->Source;
    while (std::regex_search(Src, M, Fc)) {
      InMsl.insert(uint32_t(std::stoul(M[1].str())));
      Src = M.suffix();
    }
    CHECK(InMsl == F.SpecIds);

    // The threadgroup size: LocalSize's literals, set by constants 0, 1, 2
    // (local_size_x_id etc. in every kiln kernel).
    for (unsigned D = 0; D < 3; ++D) {
      CHECK(K->ThreadgroupSize[D] == F.LocalSize[D]);
      CHECK(K->ThreadgroupSizeConstants[D] == int32_t(D));
    }
    CHECK(K->Source.find("gl_WorkGroupSize") != std::string::npos);

    // No threadgroup memory and no barriers in the kernel function
    // (SPIRV-Cross's spvUnsafeArray helper, emitted before it, has
    // threadgroup overloads).
    CHECK_FALSE(F.WorkgroupVariables);
    CHECK(K->ThreadgroupMemoryBytes == 0);
    std::string Body = K->Source.substr(K->Source.find("kernel void "));
    CHECK(Body.find("threadgroup_barrier") == std::string::npos);
    CHECK(Body.find("threadgroup ") == std::string::npos);

    // fp16 storage is half in the MSL; fp32 kernels have no half at all.
    bool Fp16 = Name.find("_f16") != std::string::npos;
    CHECK((K->Source.find("half") != std::string::npos) == Fp16);
  }
}

TEST_CASE("a kernel that is not SPIR-V fails with the kernel's name",
          "[metal][msl]") {
  std::vector<uint32_t> Garbage = {0x07230203, 0x00010000, 0, 8, 0, 0xffffffff};
  auto K = metal::translateToMsl("broken", Garbage);
  REQUIRE_FALSE(static_cast<bool>(K));
  std::string Why = llvm::toString(K.takeError());
  CHECK(Why.find("kernel 'broken'") != std::string::npos);
}

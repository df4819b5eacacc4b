// The Vulkan section of `kiln inspect`. The payload is verified by the
// runtime's loader before it gets here; indices are still checked, so that a
// hand-built model (tests) prints '?' rather than reading out of range.
#include "backends/vulkan/VulkanInspect.h"

#include "Support/Error.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#ifdef KILN_WITH_SPIRV_TOOLS
#include "spirv-tools/libspirv.h"
#endif

#include <algorithm>

namespace kiln {

namespace {

std::string shaderName(const fb::VulkanPayloadT &P, uint32_t Index) {
  if (Index < P.shaders.size() && !P.shaders[Index]->name.empty())
    return P.shaders[Index]->name;
  return "shader#" + std::to_string(Index);
}

std::string workgroupText(const fb::VulkanDispatchT &D) {
  std::string R = "[";
  for (uint32_t I = 0; I < 3; ++I) {
    auto V = gpuConstant(D.spec_constants, I);
    R += (I ? "," : "") + (V ? std::to_string(*V) : std::string("?"));
  }
  return R + "]";
}

std::string yesNo(bool B) { return B ? "yes" : "no"; }

} // namespace

std::vector<VulkanKernelStats> vulkanKernels(const fb::VulkanPayloadT &P) {
  std::vector<VulkanKernelStats> K;
  for (size_t I = 0; I < P.shaders.size(); ++I)
    K.push_back({shaderName(P, uint32_t(I)),
                 uint64_t(P.shaders[I]->spirv.size()) * sizeof(uint32_t), 0,
                 P.shaders[I]->fp16_math_variant >= 0
                     ? shaderName(P, uint32_t(P.shaders[I]->fp16_math_variant))
                     : std::string()});
  for (const auto &D : P.dispatches)
    if (D->shader < K.size())
      ++K[D->shader].Dispatches;
  return K;
}

VulkanTotals vulkanTotals(const fb::ModelT &M, const fb::VulkanPayloadT &P) {
  VulkanTotals T;
  static_cast<GpuBufferTotals &>(T) = gpuBufferTotals(M, P.buffers);
  for (const auto &S : P.shaders)
    T.SpirvBytes += uint64_t(S->spirv.size()) * sizeof(uint32_t);
  return T;
}

std::string vulkanTextSection(const fb::ModelT &M, bool Detail) {
  const fb::VulkanPayloadT *P = M.payload.AsVulkanPayload();
  if (!P)
    return "";
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << "vulkan:\n";
  OS << "  fp16:          " << yesNo(P->fp16)
     << (P->fp16 ? " (activations and weights are fp16 in device memory)" : "")
     << "\n";
  OS << "  features:      "
     << (P->required_features.empty() ? std::string("none")
                                      : llvm::join(P->required_features, ", "))
     << "\n";

  std::vector<VulkanKernelStats> Kernels = vulkanKernels(*P);
  VulkanTotals T = vulkanTotals(M, *P);
  size_t NameW = 6;
  for (const VulkanKernelStats &K : Kernels)
    NameW = std::max(NameW, K.Name.size());
  OS << "  kernels: " << Kernels.size() << " (" << T.SpirvBytes
     << " B of SPIR-V)\n";
  for (const VulkanKernelStats &K : Kernels)
    OS << "    " << gpuPad(K.Name, NameW) << "  "
       << gpuPadLeft(std::to_string(K.SpirvBytes), 9) << " B  " << K.Dispatches
       << (K.Dispatches == 1 ? " dispatch" : " dispatches")
       << (K.Fp16MathTwin.empty()
               ? std::string()
               : "  (fp16 arithmetic: " + K.Fp16MathTwin + ")")
       << "\n";

  OS << "  dispatches: " << P->dispatches.size();
  if (!Detail && P->dispatches.size() > VulkanDispatchListLimit) {
    OS << " (--nodes lists them)\n";
  } else {
    OS << "\n";
    std::vector<std::vector<std::string>> Rows;
    for (size_t I = 0; I < P->dispatches.size(); ++I) {
      const fb::VulkanDispatchT &D = *P->dispatches[I];
      Rows.push_back({std::to_string(I), shaderName(*P, D.shader),
                      gpuOperatorName(M, D.operator_),
                      gpuTripleText(D.group_count_x, D.group_count_y,
                                    D.group_count_z),
                      workgroupText(D), gpuConstantsText(D.spec_constants),
                      std::to_string(D.push_constants.size()) + " B",
                      gpuBindingsText(D.bindings)});
    }
    gpuTable(OS,
             {"#", "shader", "operator", "groups", "workgroup", "spec", "push",
              "bindings"},
             Rows, /*RightAligned=*/{0, 6});
  }

  gpuBuffersText(OS, M, P->buffers, P->places.size());
  gpuBytesText(OS, "SPIR-V", T.SpirvBytes, T);
  return OS.str();
}

llvm::json::Value vulkanJsonSection(const fb::ModelT &M) {
  const fb::VulkanPayloadT *P = M.payload.AsVulkanPayload();
  if (!P)
    return nullptr;
  llvm::json::Array Features, Kernels, Dispatches;
  for (const std::string &F : P->required_features)
    Features.push_back(F);
  for (const VulkanKernelStats &K : vulkanKernels(*P)) {
    llvm::json::Object O{{"name", K.Name},
                         {"spirv_bytes", int64_t(K.SpirvBytes)},
                         {"dispatches", K.Dispatches}};
    if (!K.Fp16MathTwin.empty())
      O["fp16_math_variant"] = K.Fp16MathTwin;
    Kernels.push_back(std::move(O));
  }
  for (size_t I = 0; I < P->dispatches.size(); ++I) {
    const fb::VulkanDispatchT &D = *P->dispatches[I];
    llvm::json::Array Workgroup;
    for (uint32_t K = 0; K < 3; ++K) {
      auto V = gpuConstant(D.spec_constants, K);
      Workgroup.push_back(V ? llvm::json::Value(int64_t(*V))
                            : llvm::json::Value(nullptr));
    }
    Dispatches.push_back(llvm::json::Object{
        {"index", int64_t(I)},
        {"shader", int64_t(D.shader)},
        {"shader_name", shaderName(*P, D.shader)},
        {"operator", int64_t(D.operator_)},
        {"operator_name", D.operator_ < 0 ? llvm::json::Value(nullptr)
                                          : llvm::json::Value(gpuOperatorName(M, D.operator_))},
        {"group_count", llvm::json::Array{int64_t(D.group_count_x),
                                          int64_t(D.group_count_y),
                                          int64_t(D.group_count_z)}},
        {"workgroup_size", std::move(Workgroup)},
        {"spec_constants", gpuConstantsJson(D.spec_constants)},
        {"push_constant_bytes", int64_t(D.push_constants.size())},
        {"bindings", gpuBindingsJson(D.bindings)}});
  }
  VulkanTotals T = vulkanTotals(M, *P);
  return llvm::json::Object{
      {"fp16", P->fp16},
      {"required_features", std::move(Features)},
      {"kernels", std::move(Kernels)},
      {"dispatch_count", int64_t(P->dispatches.size())},
      {"dispatches", std::move(Dispatches)},
      {"buffers", gpuBuffersJson(M, P->buffers)},
      {"places", int64_t(P->places.size())},
      {"bytes", gpuBytesJson("spirv", T.SpirvBytes, T)}};
}

llvm::Expected<std::string> spirvDisassembly(const std::vector<uint32_t> &Words) {
#ifdef KILN_WITH_SPIRV_TOOLS
  spv_context C = spvContextCreate(SPV_ENV_VULKAN_1_1);
  spv_text Text = nullptr;
  spv_diagnostic Diag = nullptr;
  spv_result_t R = spvBinaryToText(
      C, Words.data(), Words.size(),
      SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES | SPV_BINARY_TO_TEXT_OPTION_INDENT,
      &Text, &Diag);
  std::string Out;
  llvm::Error E = llvm::Error::success();
  if (R == SPV_SUCCESS && Text)
    Out.assign(Text->str, Text->length);
  else
    E = inputError("the SPIR-V does not disassemble: {0}",
                   Diag && Diag->error ? Diag->error : "unknown error");
  spvTextDestroy(Text);
  spvDiagnosticDestroy(Diag);
  spvContextDestroy(C);
  if (E)
    return E;
  return Out;
#else
  (void)Words;
  return inputError("this kiln was built without SPIRV-Tools: --kernel "
                    "prints the MSL of Metal files only");
#endif
}

std::vector<std::string> vulkanKernelNames(const fb::ModelT &M) {
  std::vector<std::string> R;
  if (const auto *V = M.payload.AsVulkanPayload())
    for (const auto &S : V->shaders)
      R.push_back(S->name);
  return R;
}

llvm::Expected<std::string> vulkanKernelSource(const fb::ModelT &M,
                                               llvm::StringRef Name) {
  if (const auto *V = M.payload.AsVulkanPayload())
    for (const auto &S : V->shaders)
      if (S->name == Name)
        return spirvDisassembly(S->spirv);
  return inputError("no kernel named '{0}'", Name);
}

} // namespace kiln

#include "vulkan/VulkanPayloadVerifier.h"

#include "gpu/GpuBuffersVerifier.h"

#include "gpu/GpuLimits.h"
#include "gpu/KernelCatalog.h"
#include "loader/Limits.h"
#include "vulkan/VulkanLimits.h"
#include "loader/TensorDesc.h"

#ifdef KILN_VULKAN_KERNEL_CATALOG
#include "VulkanKernelDigests.h" // generated: kiln::rt::vulkan_catalog
#endif

#include <algorithm>
#include <iterator>
#include <memory>
#include <unordered_map>

namespace kiln::rt {

namespace {

KernelCatalogView vulkanCatalog() {
#ifdef KILN_VULKAN_KERNEL_CATALOG
  return {vulkan_catalog::Kernels, std::size(vulkan_catalog::Kernels),
          vulkan_catalog::MaxKernelBytes, "SPIR-V module", ""};
#else
  return {nullptr, 0, 0, "SPIR-V module",
          "this runtime was built without kiln's kernel catalog (neither "
          "glslc nor KILN_VULKAN_KERNEL_DIGESTS)"};
#endif
}

/// Shader I's fp16-arithmetic twin, if it names one: another shader that
/// names none itself, and that the runtime can run in I's place with I's
/// dispatch records: the same bindings, push constants and workgroup size,
/// and no specialization constant I lacks (it would keep its default).
Status checkTwin(const fb::VulkanPayload &P,
                 const std::vector<VulkanModuleInfo> &Modules, unsigned I) {
  int32_t T = P.shaders()->Get(I)->fp16_math_variant();
  if (T == -1)
    return Status::ok();
  if (T < 0 || size_t(T) >= Modules.size())
    return invalidModel("fp16_math_variant ", T, " of ", Modules.size(),
                        " shaders");
  if (unsigned(T) == I)
    return invalidModel("fp16_math_variant names the shader itself");
  if (P.shaders()->Get(unsigned(T))->fp16_math_variant() != -1)
    return invalidModel("fp16_math_variant ", T, " names a twin of its own");
  const VulkanModuleInfo &Own = Modules[I], &Twin = Modules[size_t(T)];
  if (!Own.Reflected || !Twin.Reflected)
    return Status::ok();
  if (Twin.NumBindings != Own.NumBindings || Twin.PushBytes != Own.PushBytes)
    return invalidModel("fp16_math_variant ", T, " has ", Twin.NumBindings,
                        " storage buffers and ", Twin.PushBytes,
                        " push-constant bytes, unlike the shader's ",
                        Own.NumBindings, " and ", Own.PushBytes);
  if (!std::includes(Own.SpecIds.begin(), Own.SpecIds.end(),
                     Twin.SpecIds.begin(), Twin.SpecIds.end()))
    return invalidModel("fp16_math_variant ", T, " declares specialization "
                        "constants the shader lacks");
  if (!std::equal(Own.LocalSize, Own.LocalSize + 3, Twin.LocalSize) ||
      !std::equal(Own.LocalSizeSpecId, Own.LocalSizeSpecId + 3,
                  Twin.LocalSizeSpecId))
    return invalidModel("fp16_math_variant ", T,
                        " has another workgroup size");
  return Status::ok();
}

Status checkShaders(const fb::VulkanPayload &P,
                    std::vector<VulkanModuleInfo> &Modules) {
  size_t N = P.shaders() ? P.shaders()->size() : 0;
  if (N > limits::MaxVulkanShaders)
    return invalidModel("too many Vulkan shaders (", N, ")");
  Modules.assign(N, {});
  KernelCatalogView Catalog = vulkanCatalog();
  // Shaders whose vectors are one (a file may point many at the same
  // bytes): checked and copied once.
  std::unordered_map<const uint32_t *, unsigned> Seen;
  for (unsigned I = 0; I < N; ++I) {
    const fb::VulkanShader *Sh = P.shaders()->Get(I);
    const auto *Words = Sh->spirv();
    std::string Where = concat("Vulkan shader ", I, " '",
                               Sh->name() ? Sh->name()->str() : "", "'");
    if (!Words || Words->size() == 0)
      return invalidModel(Where, ": the SPIR-V module is empty");
    auto [It, New] = Seen.try_emplace(Words->data(), I);
    if (!New) {
      Modules[I] = Modules[It->second];
      continue;
    }
    // The words are copied before any check (distinct modules add up to at
    // most the file), and the copy is what the driver gets: the file's
    // pages (a mapping) cannot change what was checked. A module the
    // runtime cannot vouch for never reaches SPIRV-Tools, SPIRV-Cross or a
    // driver.
    size_t Bytes = Words->size() * sizeof(uint32_t);
    auto Copy = std::make_shared<std::vector<uint32_t>>(Words->begin(),
                                                         Words->end());
    if (Status S = checkCatalogKernel(Catalog, Copy->data(), Bytes,
                                      Sh->name() ? Sh->name()->c_str() : ""))
      return S.withContext(Where);
    if (Status S = inspectSpirv(Copy->data(), Copy->size(), Modules[I]))
      return S.withContext(Where);
    Modules[I].Words = std::move(Copy);
  }
  for (unsigned I = 0; I < N; ++I)
    if (Status S = checkTwin(P, Modules, I))
      return S.withContext(concat("Vulkan shader ", I));
  return Status::ok();
}

Status checkDispatch(const fb::Model &M, const fb::VulkanPayload &P,
                     const std::vector<VulkanModuleInfo> &Modules,
                     const fb::VulkanDispatch &D, uint64_t &FileInvocations) {
  size_t NumShaders = Modules.size();
  if (D.shader() >= NumShaders)
    return invalidModel("shader ", D.shader(), " of ", NumShaders);
  const VulkanModuleInfo &Mod = Modules[D.shader()];
  size_t NumBindings = D.bindings() ? D.bindings()->size() : 0;
  if (NumBindings > limits::MaxVulkanBindings)
    return invalidModel(NumBindings, " bindings (at most ",
                        limits::MaxVulkanBindings, ")");
  if (Mod.Reflected && NumBindings != Mod.NumBindings)
    return invalidModel(NumBindings, " bindings, but shader ", D.shader(),
                        " has ", Mod.NumBindings, " storage buffers");
  for (unsigned I = 0; I < NumBindings; ++I)
    if (Status S = verifyGpuBinding(P.buffers(), I, *D.bindings()->Get(I)))
      return S;
  if (const auto *Spec = D.spec_constants()) {
    for (unsigned I = 0; I < Spec->size(); ++I) {
      uint32_t Id = Spec->Get(I)->id();
      if (I > 0 && Id <= Spec->Get(I - 1)->id())
        return invalidModel("specialization constant ids are not sorted and "
                            "unique (", Spec->Get(I - 1)->id(), " then ", Id,
                            ")");
      if (Mod.Reflected && !std::binary_search(Mod.SpecIds.begin(),
                                               Mod.SpecIds.end(), Id))
        return invalidModel("specialization constant id ", Id,
                            " is not in shader ", D.shader());
    }
  }
  size_t Push = D.push_constants() ? D.push_constants()->size() : 0;
  if (Push % 4 != 0 || Push > limits::MaxVulkanPushBytes)
    return invalidModel(Push, " bytes of push constants (a multiple of 4, at "
                              "most ", limits::MaxVulkanPushBytes, ")");
  if (Mod.Reflected && Push != Mod.PushBytes)
    return invalidModel(Push, " bytes of push constants, but shader ",
                        D.shader(), "'s block is ", Mod.PushBytes, " bytes");
  uint32_t Groups[3] = {D.group_count_x(), D.group_count_y(), D.group_count_z()};
  if (Status S = verifyGpuGridAndOperator(M, Groups, D.operator_(), "group count"))
    return S;
  // The work the dispatch asks for (workgroup size from the module, or from
  // the specialization constants that set it) is bounded by the bytes it
  // binds: every kiln kernel gives each invocation an element of its output
  // (GpuLimits.h), so a grid far beyond that is a file that would keep the
  // GPU busy for minutes, not a model.
  // Without reflection (a build without SPIRV-Cross: the aarch64 runtime),
  // the size kiln's kernels take from specialization constants 0, 1, 2, as
  // the executor reads it, else 1: a lower bound that still refuses a grid
  // far beyond the bytes.
  uint64_t Local[3];
  for (unsigned K = 0; K < 3; ++K) {
    Local[K] = Mod.Reflected ? Mod.LocalSize[K] : 1;
    int64_t Id = Mod.Reflected ? Mod.LocalSizeSpecId[K] : int64_t(K);
    if (const auto *Spec = D.spec_constants(); Spec && Id >= 0)
      for (unsigned I = 0; I < Spec->size(); ++I)
        if (int64_t(Spec->Get(I)->id()) == Id)
          Local[K] = Spec->Get(I)->value();
  }
  if (Status S = verifyGpuWorkgroup(Local, "workgroup"))
    return S;
  uint64_t Bound = 0;
  for (unsigned I = 0; I < NumBindings; ++I)
    Bound += D.bindings()->Get(I)->size();
  if (Status S = verifyGpuInvocations(Groups, Local, Bound, "the dispatch"))
    return S;
  FileInvocations += uint64_t(Groups[0]) * Groups[1] * Groups[2] * Local[0] *
                     Local[1] * Local[2];
  if (FileInvocations > limits::MaxFileInvocations)
    return invalidModel("the dispatches up to this one run ", FileInvocations,
                        " invocations per inference (at most ",
                        limits::MaxFileInvocations, ")");
  return Status::ok();
}

} // namespace

Status verifyVulkanPayload(const fb::Model &M,
                           const std::vector<TensorDesc> &Tensors,
                           std::vector<VulkanModuleInfo> &Modules) {
  const fb::VulkanPayload *P = M.payload_as_VulkanPayload();
  if (!P)
    return invalidModel("the file has no vulkan payload");
  if (Status S = checkShaders(*P, Modules))
    return S;
  if (Status S = verifyGpuBuffers(M, P->buffers(), Tensors, "Vulkan"))
    return S;
  size_t N = P->dispatches() ? P->dispatches()->size() : 0;
  if (N > limits::MaxVulkanDispatches)
    return invalidModel("too many Vulkan dispatches (", N, ")");
  uint64_t FileInvocations = 0;
  for (unsigned I = 0; I < N; ++I)
    if (Status S = checkDispatch(M, *P, Modules, *P->dispatches()->Get(I),
                                 FileInvocations))
      return S.withContext(concat("Vulkan dispatch ", I));
  if (Status S = verifyGpuPlaces(P->buffers(), P->places(), Tensors, P->fp16(),
                                 "Vulkan"))
    return S;
  if (const auto *F = P->required_features())
    for (unsigned I = 0; I < F->size(); ++I)
      if (!F->Get(I))
        return invalidModel("Vulkan required feature ", I, " is null");
  return Status::ok();
}

} // namespace kiln::rt

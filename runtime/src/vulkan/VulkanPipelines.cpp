#include "vulkan/VulkanPipelines.h"

#include <map>

namespace kiln::rt::vk {

namespace {

Status failed(const char *What, VkResult R) {
  if (R == VK_ERROR_OUT_OF_HOST_MEMORY || R == VK_ERROR_OUT_OF_DEVICE_MEMORY)
    return {KILN_ERROR_OUT_OF_MEMORY,
            concat("Vulkan: ", What, " failed (", resultName(R), ")")};
  return unsupported("Vulkan: ", What, " failed (", resultName(R), ")");
}

/// Bindings and push bytes of every dispatch of shader S must agree (the
/// loader checks them against the module where it can reflect it).
Status shaderInterface(const fb::VulkanPayload &P, uint32_t S,
                       uint32_t &Bindings, uint32_t &Push) {
  bool Seen = false;
  for (unsigned I = 0; I < P.dispatches()->size(); ++I) {
    const fb::VulkanDispatch *D = P.dispatches()->Get(I);
    if (D->shader() != S)
      continue;
    uint32_t B = D->bindings() ? D->bindings()->size() : 0;
    uint32_t Pc = D->push_constants() ? D->push_constants()->size() : 0;
    if (Seen && (B != Bindings || Pc != Push))
      return invalidModel("Vulkan dispatch ", I, " binds ", B, " buffers and ",
                          Pc, " push-constant bytes, unlike an earlier "
                              "dispatch of shader ", S);
    Bindings = B;
    Push = Pc;
    Seen = true;
  }
  return Status::ok();
}

} // namespace

Pipelines::~Pipelines() {
  if (!Dev)
    return;
  for (VkPipeline P : Pipes)
    vkDestroyPipeline(Dev, P, nullptr);
  for (Shader &S : Shaders) {
    if (S.Layout)
      vkDestroyPipelineLayout(Dev, S.Layout, nullptr);
    if (S.SetLayout)
      vkDestroyDescriptorSetLayout(Dev, S.SetLayout, nullptr);
    if (S.Module)
      vkDestroyShaderModule(Dev, S.Module, nullptr);
  }
}

Status Pipelines::create(const Device &D, const fb::VulkanPayload &P,
                         const std::vector<VulkanModuleInfo> &Modules,
                         VkPipelineCache Cache, bool Fp16Math) {
  Dev = D.handle();
  size_t NumShaders = P.shaders() ? P.shaders()->size() : 0;
  Shaders.resize(NumShaders);
  // Only the shaders dispatches name: a twin needs shaderFloat16 even to
  // create its module, which a device without it must never see.
  std::vector<bool> Used(NumShaders, false);
  size_t NumDispatches = P.dispatches() ? P.dispatches()->size() : 0;
  for (unsigned I = 0; I < NumDispatches; ++I)
    if (P.dispatches()->Get(I)->shader() < NumShaders)
      Used[P.dispatches()->Get(I)->shader()] = true;
  for (uint32_t S = 0; S < NumShaders; ++S) {
    if (!Used[S])
      continue;
    int32_t Twin = P.shaders()->Get(S)->fp16_math_variant();
    uint32_t Code = Fp16Math && Twin >= 0 ? uint32_t(Twin) : S;
    // The copy the loader checked, not the file's bytes.
    const std::vector<uint32_t> &Words = *Modules[Code].Words;
    auto ModInfo = vkStruct<VkShaderModuleCreateInfo>(VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
    ModInfo.codeSize = Words.size() * 4;
    ModInfo.pCode = Words.data();
    if (VkResult R = vkCreateShaderModule(Dev, &ModInfo, nullptr, &Shaders[S].Module))
      return failed("creating a shader module", R);

    uint32_t NumBindings = Modules[S].NumBindings, Push = Modules[S].PushBytes;
    if (P.dispatches())
      if (Status St = shaderInterface(P, S, NumBindings, Push))
        return St;
    std::vector<VkDescriptorSetLayoutBinding> Bindings(NumBindings);
    for (uint32_t B = 0; B < NumBindings; ++B)
      Bindings[B] = {B, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                     VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
    auto SetInfo = vkStruct<VkDescriptorSetLayoutCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO);
    SetInfo.bindingCount = NumBindings;
    SetInfo.pBindings = Bindings.data();
    if (VkResult R = vkCreateDescriptorSetLayout(Dev, &SetInfo, nullptr,
                                                 &Shaders[S].SetLayout))
      return failed("creating a descriptor set layout", R);
    VkPushConstantRange Range{VK_SHADER_STAGE_COMPUTE_BIT, 0, Push};
    auto LayoutInfo = vkStruct<VkPipelineLayoutCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO);
    LayoutInfo.setLayoutCount = 1;
    LayoutInfo.pSetLayouts = &Shaders[S].SetLayout;
    LayoutInfo.pushConstantRangeCount = Push ? 1 : 0;
    LayoutInfo.pPushConstantRanges = &Range;
    if (VkResult R = vkCreatePipelineLayout(Dev, &LayoutInfo, nullptr,
                                            &Shaders[S].Layout))
      return failed("creating a pipeline layout", R);
  }

  // One pipeline per (shader, specialization constants).
  std::map<std::vector<uint32_t>, size_t> Known;
  for (unsigned I = 0; I < NumDispatches; ++I) {
    const fb::VulkanDispatch *Dp = P.dispatches()->Get(I);
    std::vector<uint32_t> Key{Dp->shader()};
    std::vector<VkSpecializationMapEntry> Entries;
    std::vector<uint32_t> Values;
    if (const auto *Spec = Dp->spec_constants())
      for (unsigned K = 0; K < Spec->size(); ++K) {
        Key.push_back(Spec->Get(K)->id());
        Key.push_back(Spec->Get(K)->value());
        Entries.push_back({Spec->Get(K)->id(), uint32_t(4 * K), 4});
        Values.push_back(Spec->Get(K)->value());
      }
    auto [It, New] = Known.emplace(Key, Pipes.size());
    DispatchPipe.push_back(It->second);
    if (!New)
      continue;
    VkSpecializationInfo SpecInfo{uint32_t(Entries.size()), Entries.data(),
                                  Values.size() * 4, Values.data()};
    auto Info = vkStruct<VkComputePipelineCreateInfo>(VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO);
    Info.stage = vkStruct<VkPipelineShaderStageCreateInfo>(
        VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO);
    Info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    Info.stage.module = Shaders[Dp->shader()].Module;
    Info.stage.pName = "main";
    Info.stage.pSpecializationInfo = Entries.empty() ? nullptr : &SpecInfo;
    Info.layout = Shaders[Dp->shader()].Layout;
    VkPipeline Pipe = VK_NULL_HANDLE;
    if (VkResult R = vkCreateComputePipelines(Dev, Cache, 1, &Info, nullptr, &Pipe))
      return failed("creating a compute pipeline", R);
    Pipes.push_back(Pipe);
  }
  return Status::ok();
}

} // namespace kiln::rt::vk

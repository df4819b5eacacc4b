#include "vulkan/SpirvReflection.h"

#include "gpu/GpuLimits.h"
#include "vulkan/VulkanLimits.h"

#include <algorithm>
#include <memory>

#ifdef KILN_WITH_SPIRV_TOOLS
#include <spirv-tools/libspirv.h>
#endif
#ifdef KILN_WITH_SPIRV_CROSS
#include <spirv_cross/spirv_cross_c.h>
#endif

namespace kiln::rt {

namespace {

constexpr uint32_t SpirvMagic = 0x07230203;
/// Magic, version, generator, bound, schema.
constexpr size_t SpirvHeaderWords = 5;

/// What no kiln kernel declares, and what robustBufferAccess cannot bound:
/// pointers made from integers (physical storage buffers), variable
/// pointers, and the OpenCL addressing and kernel models. Checked on every
/// module; with the kernel catalog on (the default) only a developer's
/// module (KILN_GPU_KERNELS_ANY_VALID) can reach it.
Status checkAddressing(const uint32_t *Words, size_t Count) {
  constexpr uint32_t OpMemoryModel = 14, OpCapability = 17;
  constexpr uint32_t AddressingLogical = 0;
  struct Refused {
    uint32_t Capability;
    const char *Name;
  };
  static constexpr Refused Capabilities[] = {
      {4, "Addresses"},
      {6, "Kernel"},
      {4441, "VariablePointersStorageBuffer"},
      {4442, "VariablePointers"},
      {5347, "PhysicalStorageBufferAddresses"}};
  for (size_t I = SpirvHeaderWords; I < Count;) {
    uint32_t Length = Words[I] >> 16, Op = Words[I] & 0xffff;
    if (Length == 0 || Length > Count - I)
      return invalidModel("the SPIR-V module is invalid (the instruction at "
                          "word ", I, " runs past its end)");
    if (Op == OpCapability && Length >= 2)
      for (const Refused &R : Capabilities)
        if (Words[I + 1] == R.Capability)
          return invalidModel("the SPIR-V module declares the ", R.Name,
                              " capability, which kiln's kernels never use");
    if (Op == OpMemoryModel && Length >= 2 && Words[I + 1] != AddressingLogical)
      return invalidModel("the SPIR-V module's addressing model is ",
                          Words[I + 1], ", not Logical");
    I += Length;
  }
  return Status::ok();
}

#ifdef KILN_WITH_SPIRV_TOOLS
Status validateSpirv(const uint32_t *Words, size_t Count) {
  struct Context {
    spv_context C = spvContextCreate(SPV_ENV_VULKAN_1_1);
    ~Context() { spvContextDestroy(C); }
  } Ctx;
  if (!Ctx.C)
    return invalidModel("SPIR-V: cannot create a validator context");
  spv_const_binary_t Binary{Words, Count};
  spv_diagnostic Diag = nullptr;
  spv_result_t R = spvValidate(Ctx.C, &Binary, &Diag);
  std::string Why = Diag && Diag->error ? Diag->error : "";
  spvDiagnosticDestroy(Diag);
  if (R != SPV_SUCCESS)
    return invalidModel("the SPIR-V module is invalid for Vulkan 1.1 (",
                        Why.empty() ? "spvValidate failed" : Why, ")");
  return Status::ok();
}
#endif

#ifdef KILN_WITH_SPIRV_CROSS
struct CrossContext {
  spvc_context C = nullptr;
  CrossContext() { spvc_context_create(&C); }
  ~CrossContext() {
    if (C)
      spvc_context_destroy(C);
  }
  std::string error() const {
    const char *E = C ? spvc_context_get_last_error_string(C) : nullptr;
    return E && *E ? E : "SPIRV-Cross failed";
  }
};

/// Descriptor kinds a kiln kernel never has: only storage buffers and push
/// constants are allowed.
constexpr spvc_resource_type Forbidden[] = {
    SPVC_RESOURCE_TYPE_UNIFORM_BUFFER,    SPVC_RESOURCE_TYPE_STORAGE_IMAGE,
    SPVC_RESOURCE_TYPE_SAMPLED_IMAGE,     SPVC_RESOURCE_TYPE_ATOMIC_COUNTER,
    SPVC_RESOURCE_TYPE_SEPARATE_IMAGE,    SPVC_RESOURCE_TYPE_SEPARATE_SAMPLERS,
    SPVC_RESOURCE_TYPE_ACCELERATION_STRUCTURE,
    SPVC_RESOURCE_TYPE_SUBPASS_INPUT};

Status reflectSpirv(const uint32_t *Words, size_t Count, VulkanModuleInfo &Out) {
  CrossContext Ctx;
  if (!Ctx.C)
    return invalidModel("SPIR-V: cannot create a SPIRV-Cross context");
  spvc_parsed_ir Ir = nullptr;
  spvc_compiler Compiler = nullptr;
  if (spvc_context_parse_spirv(Ctx.C, Words, Count, &Ir) != SPVC_SUCCESS ||
      spvc_context_create_compiler(Ctx.C, SPVC_BACKEND_NONE, Ir,
                                   SPVC_CAPTURE_MODE_TAKE_OWNERSHIP,
                                   &Compiler) != SPVC_SUCCESS)
    return invalidModel("the SPIR-V module cannot be reflected (", Ctx.error(),
                        ")");
  if (spvc_compiler_set_entry_point(Compiler, "main",
                                    SpvExecutionModelGLCompute) != SPVC_SUCCESS)
    return invalidModel("the SPIR-V module has no GLCompute entry point "
                        "'main'");
  spvc_resources Res = nullptr;
  if (spvc_compiler_create_shader_resources(Compiler, &Res) != SPVC_SUCCESS)
    return invalidModel("the SPIR-V module's resources cannot be reflected (",
                        Ctx.error(), ")");
  const spvc_reflected_resource *List = nullptr;
  size_t N = 0;
  for (spvc_resource_type T : Forbidden) {
    spvc_resources_get_resource_list_for_type(Res, T, &List, &N);
    if (N)
      return invalidModel("the SPIR-V module uses a descriptor that is not a "
                          "storage buffer ('",
                          List[0].name ? List[0].name : "", "')");
  }

  spvc_resources_get_resource_list_for_type(
      Res, SPVC_RESOURCE_TYPE_STORAGE_BUFFER, &List, &N);
  if (N > limits::MaxVulkanBindings)
    return invalidModel("the SPIR-V module has ", N, " storage buffers (at most ",
                        limits::MaxVulkanBindings, ")");
  std::vector<char> Seen(N, 0);
  for (size_t I = 0; I < N; ++I) {
    unsigned Set =
        spvc_compiler_get_decoration(Compiler, List[I].id, SpvDecorationDescriptorSet);
    unsigned Binding =
        spvc_compiler_get_decoration(Compiler, List[I].id, SpvDecorationBinding);
    if (Set != 0 || Binding >= N || Seen[Binding])
      return invalidModel("the SPIR-V module's storage buffers are not set 0, "
                          "bindings 0..", N - 1, " (buffer '",
                          List[I].name ? List[I].name : "", "' is set ", Set,
                          ", binding ", Binding, ")");
    Seen[Binding] = 1;
  }
  Out.NumBindings = uint32_t(N);

  spvc_resources_get_resource_list_for_type(
      Res, SPVC_RESOURCE_TYPE_PUSH_CONSTANT, &List, &N);
  if (N > 1)
    return invalidModel("the SPIR-V module has ", N, " push-constant blocks");
  if (N == 1) {
    size_t Bytes = 0;
    spvc_type Type = spvc_compiler_get_type_handle(Compiler, List[0].base_type_id);
    if (spvc_compiler_get_declared_struct_size(Compiler, Type, &Bytes) !=
        SPVC_SUCCESS)
      return invalidModel("the SPIR-V module's push-constant block cannot be "
                          "sized (", Ctx.error(), ")");
    if (Bytes > limits::MaxVulkanPushBytes)
      return invalidModel("the SPIR-V module's push-constant block is ", Bytes,
                          " bytes (at most ", limits::MaxVulkanPushBytes, ")");
    Out.PushBytes = uint32_t(Bytes);
  }

  const spvc_specialization_constant *Spec = nullptr;
  size_t NumSpec = 0;
  spvc_compiler_get_specialization_constants(Compiler, &Spec, &NumSpec);
  for (size_t I = 0; I < NumSpec; ++I)
    Out.SpecIds.push_back(Spec[I].constant_id);
  std::sort(Out.SpecIds.begin(), Out.SpecIds.end());
  Out.SpecIds.erase(std::unique(Out.SpecIds.begin(), Out.SpecIds.end()),
                    Out.SpecIds.end());

  // The workgroup size: the LocalSize literals, or the defaults of the
  // specialization constants that replace them (local_size_x_id ...).
  spvc_specialization_constant Dims[3] = {};
  spvc_compiler_get_work_group_size_specialization_constants(
      Compiler, &Dims[0], &Dims[1], &Dims[2]);
  for (unsigned D = 0; D < 3; ++D) {
    Out.LocalSize[D] = spvc_compiler_get_execution_mode_argument_by_index(
        Compiler, SpvExecutionModeLocalSize, D);
    if (Dims[D].id != 0)
      if (spvc_constant C = spvc_compiler_get_constant_handle(Compiler, Dims[D].id)) {
        Out.LocalSize[D] = spvc_constant_get_scalar_u32(C, 0, 0);
        Out.LocalSizeSpecId[D] = Dims[D].constant_id;
      }
  }
  Out.Reflected = true;
  return Status::ok();
}
#endif

} // namespace

Status inspectSpirv(const uint32_t *Words, size_t Count, VulkanModuleInfo &Out) {
  if (Count == 0)
    return invalidModel("the SPIR-V module is empty");
  if (Words[0] != SpirvMagic)
    return invalidModel("not SPIR-V (the first word is 0x", std::hex, Words[0],
                        ", not the magic number 0x07230203)");
  if (Count < SpirvHeaderWords)
    return invalidModel("the SPIR-V module is truncated (", Count,
                        " words, shorter than its 5-word header)");
  if (Count > limits::MaxSpirvWords)
    return invalidModel("the SPIR-V module is too large (", Count, " words)");
  if (Status S = checkAddressing(Words, Count))
    return S;
#ifdef KILN_WITH_SPIRV_TOOLS
  if (Status S = validateSpirv(Words, Count))
    return S;
#endif
#ifdef KILN_WITH_SPIRV_CROSS
  if (Status S = reflectSpirv(Words, Count, Out))
    return S;
#else
  (void)Out;
#endif
  return Status::ok();
}

} // namespace kiln::rt

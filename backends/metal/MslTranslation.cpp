#include "backends/metal/MslTranslation.h"

#include "Support/Error.h"

#include <spirv_cross/spirv_cross_c.h>

#include <algorithm>

namespace kiln::metal {

namespace {

/// One SPIRV-Cross context; its last error names what failed.
class CrossContext {
public:
  CrossContext() { spvc_context_create(&C); }
  ~CrossContext() {
    if (C)
      spvc_context_destroy(C);
  }
  CrossContext(const CrossContext &) = delete;
  CrossContext &operator=(const CrossContext &) = delete;
  spvc_context get() const { return C; }
  std::string error() const {
    const char *E = C ? spvc_context_get_last_error_string(C) : nullptr;
    return E && *E ? E : "SPIRV-Cross failed";
  }

private:
  spvc_context C = nullptr;
};

/// What SPIR-V words of storage class Workgroup a module declares: kiln's
/// kernels have none, and the executor sets no threadgroup memory length.
bool declaresWorkgroupMemory(llvm::ArrayRef<uint32_t> Spirv) {
  constexpr uint32_t OpVariable = 59, StorageWorkgroup = 4, HeaderWords = 5;
  for (size_t I = HeaderWords; I < Spirv.size();) {
    uint32_t Words = Spirv[I] >> 16, Op = Spirv[I] & 0xffff;
    if (Words == 0)
      break;
    if (Op == OpVariable && Words >= 4 && I + 3 < Spirv.size() &&
        Spirv[I + 3] == StorageWorkgroup)
      return true;
    I += Words;
  }
  return false;
}

llvm::Expected<ConstantType> constantType(spvc_compiler Compiler,
                                          spvc_constant_id Id,
                                          llvm::StringRef Kernel,
                                          unsigned SpecId) {
  spvc_constant C = spvc_compiler_get_constant_handle(Compiler, Id);
  spvc_type T = spvc_compiler_get_type_handle(Compiler, spvc_constant_get_type(C));
  switch (spvc_type_get_basetype(T)) {
  case SPVC_BASETYPE_UINT32:
    return ConstantType::UInt;
  case SPVC_BASETYPE_INT32:
    return ConstantType::Int;
  case SPVC_BASETYPE_FP32:
    return ConstantType::Float;
  case SPVC_BASETYPE_BOOLEAN:
    return ConstantType::Bool;
  default:
    return internalError("kernel '{0}': specialization constant {1} is not a "
                         "32-bit scalar or a bool, which a Metal function "
                         "constant of the file cannot carry",
                         Kernel, SpecId);
  }
}

} // namespace

llvm::Expected<MslKernel> translateToMsl(llvm::StringRef Name,
                                         llvm::ArrayRef<uint32_t> Spirv) {
  CrossContext Ctx;
  auto fail = [&](llvm::StringRef What) {
    return internalError("kernel '{0}': SPIRV-Cross cannot translate it to "
                         "MSL: {1} ({2})",
                         Name, What, Ctx.error());
  };
  if (!Ctx.get())
    return internalError("kernel '{0}': cannot create a SPIRV-Cross context",
                         Name);
  if (declaresWorkgroupMemory(Spirv))
    return internalError("kernel '{0}' declares workgroup memory, which the "
                         "Metal target does not size yet",
                         Name);
  spvc_parsed_ir Ir = nullptr;
  spvc_compiler Compiler = nullptr;
  if (spvc_context_parse_spirv(Ctx.get(), Spirv.data(), Spirv.size(), &Ir) !=
          SPVC_SUCCESS ||
      spvc_context_create_compiler(Ctx.get(), SPVC_BACKEND_MSL, Ir,
                                   SPVC_CAPTURE_MODE_TAKE_OWNERSHIP,
                                   &Compiler) != SPVC_SUCCESS)
    return fail("the module does not parse");

  spvc_compiler_options Options = nullptr;
  if (spvc_compiler_create_compiler_options(Compiler, &Options) != SPVC_SUCCESS ||
      spvc_compiler_options_set_uint(Options, SPVC_COMPILER_OPTION_MSL_VERSION,
                                     MslVersion) != SPVC_SUCCESS ||
      spvc_compiler_options_set_uint(Options, SPVC_COMPILER_OPTION_MSL_PLATFORM,
                                     SPVC_MSL_PLATFORM_IOS) != SPVC_SUCCESS ||
      spvc_compiler_install_compiler_options(Compiler, Options) != SPVC_SUCCESS)
    return fail("the MSL options are refused");

  spvc_resources Res = nullptr;
  if (spvc_compiler_create_shader_resources(Compiler, &Res) != SPVC_SUCCESS)
    return fail("the resources cannot be reflected");
  const spvc_reflected_resource *List = nullptr;
  size_t N = 0;
  for (spvc_resource_type T :
       {SPVC_RESOURCE_TYPE_UNIFORM_BUFFER, SPVC_RESOURCE_TYPE_STORAGE_IMAGE,
        SPVC_RESOURCE_TYPE_SAMPLED_IMAGE, SPVC_RESOURCE_TYPE_SEPARATE_IMAGE,
        SPVC_RESOURCE_TYPE_SEPARATE_SAMPLERS}) {
    spvc_resources_get_resource_list_for_type(Res, T, &List, &N);
    if (N)
      return internalError("kernel '{0}' uses a resource that is not a "
                           "storage buffer ('{1}')",
                           Name, List[0].name ? List[0].name : "");
  }

  MslKernel K;
  // Storage buffer binding i -> [[buffer(i)]], then the push constants.
  spvc_resources_get_resource_list_for_type(
      Res, SPVC_RESOURCE_TYPE_STORAGE_BUFFER, &List, &N);
  K.BufferIndices.assign(N, 0);
  std::vector<char> Seen(N, 0);
  for (size_t I = 0; I < N; ++I) {
    unsigned Set = spvc_compiler_get_decoration(Compiler, List[I].id,
                                                SpvDecorationDescriptorSet);
    unsigned Binding =
        spvc_compiler_get_decoration(Compiler, List[I].id, SpvDecorationBinding);
    if (Set != 0 || Binding >= N || Seen[Binding])
      return internalError("kernel '{0}': its storage buffers are not set 0, "
                           "bindings 0..{1}",
                           Name, N - 1);
    Seen[Binding] = 1;
    spvc_msl_resource_binding B;
    spvc_msl_resource_binding_init(&B);
    B.stage = SpvExecutionModelGLCompute;
    B.desc_set = 0;
    B.binding = Binding;
    B.msl_buffer = Binding;
    if (spvc_compiler_msl_add_resource_binding(Compiler, &B) != SPVC_SUCCESS)
      return fail("a buffer binding is refused");
    K.BufferIndices[Binding] = Binding;
  }
  spvc_resources_get_resource_list_for_type(
      Res, SPVC_RESOURCE_TYPE_PUSH_CONSTANT, &List, &N);
  if (N > 1)
    return internalError("kernel '{0}' has {1} push-constant blocks", Name, N);
  if (N == 1) {
    size_t Bytes = 0;
    spvc_type Type = spvc_compiler_get_type_handle(Compiler, List[0].base_type_id);
    if (spvc_compiler_get_declared_struct_size(Compiler, Type, &Bytes) !=
        SPVC_SUCCESS)
      return fail("the push-constant block cannot be sized");
    K.PushConstantIndex = int32_t(K.BufferIndices.size());
    K.PushConstantBytes = uint32_t(Bytes);
    spvc_msl_resource_binding B;
    spvc_msl_resource_binding_init(&B);
    B.stage = SpvExecutionModelGLCompute;
    B.desc_set = SPVC_MSL_PUSH_CONSTANT_DESC_SET;
    B.binding = SPVC_MSL_PUSH_CONSTANT_BINDING;
    B.msl_buffer = unsigned(K.PushConstantIndex);
    if (spvc_compiler_msl_add_resource_binding(Compiler, &B) != SPVC_SUCCESS)
      return fail("the push-constant binding is refused");
  }

  const spvc_specialization_constant *Spec = nullptr;
  size_t NumSpec = 0;
  spvc_compiler_get_specialization_constants(Compiler, &Spec, &NumSpec);
  for (size_t I = 0; I < NumSpec; ++I) {
    auto Type = constantType(Compiler, Spec[I].id, Name, Spec[I].constant_id);
    if (!Type)
      return Type.takeError();
    K.FunctionConstants.push_back({Spec[I].constant_id, *Type});
  }
  std::sort(K.FunctionConstants.begin(), K.FunctionConstants.end(),
            [](const FunctionConstant &A, const FunctionConstant &B) {
              return A.Id < B.Id;
            });

  spvc_specialization_constant Size[3];
  spvc_compiler_get_work_group_size_specialization_constants(
      Compiler, &Size[0], &Size[1], &Size[2]);
  for (unsigned D = 0; D < 3; ++D) {
    K.ThreadgroupSize[D] = spvc_compiler_get_execution_mode_argument_by_index(
        Compiler, SpvExecutionModeLocalSize, D);
    if (Size[D].id != 0) {
      K.ThreadgroupSizeConstants[D] = int32_t(Size[D].constant_id);
      K.ThreadgroupSize[D] = spvc_constant_get_scalar_u32(
          spvc_compiler_get_constant_handle(Compiler, Size[D].id), 0, 0);
    }
  }

  // The bindings' lengths (GLSL's .length(), which every kiln kernel
  // checks its indices against) come from a buffer of byte sizes at the
  // first free index, indexed by [[buffer(n)]]; the executor fills it.
  uint32_t SizesIndex = uint32_t(K.BufferIndices.size()) +
                        (K.PushConstantIndex >= 0 ? 1 : 0);
  spvc_compiler_options SizeOptions = nullptr;
  if (spvc_compiler_create_compiler_options(Compiler, &SizeOptions) !=
          SPVC_SUCCESS ||
      spvc_compiler_options_set_uint(
          SizeOptions, SPVC_COMPILER_OPTION_MSL_BUFFER_SIZE_BUFFER_INDEX,
          SizesIndex) != SPVC_SUCCESS ||
      spvc_compiler_install_compiler_options(Compiler, SizeOptions) !=
          SPVC_SUCCESS)
    return fail("the buffer-size buffer index is refused");

  const char *Source = nullptr;
  if (spvc_compiler_compile(Compiler, &Source) != SPVC_SUCCESS || !Source)
    return fail("compilation failed");
  if (spvc_compiler_msl_needs_buffer_size_buffer(Compiler))
    K.BufferSizeIndex = int32_t(SizesIndex);
  K.Source = Source;
  const char *Entry = spvc_compiler_get_cleansed_entry_point_name(
      Compiler, "main", SpvExecutionModelGLCompute);
  if (!Entry || !*Entry)
    return fail("the module has no compute entry point 'main'");
  K.EntryPoint = Entry;
  return K;
}

} // namespace kiln::metal

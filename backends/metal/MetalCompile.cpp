// compileForMetal: the GPU dispatch lowering, then its payload rewritten for
// Metal: each kernel a dispatch names (its fp16-arithmetic twin in fp16
// files) translated to MSL once, in order of first use; each dispatch's
// specialization constants kept as function constants where the MSL
// declares them; its workgroup size (constants 0, 1, 2, else the module's)
// as the threadgroup size and its group counts as the grid.
#include "backends/gpu/GpuDispatchLowering.h"
#include "backends/gpu/KernelCatalog.h"
#include "backends/metal/MetalTarget.h"
#include "backends/metal/MslTranslation.h"

#include "Support/Error.h"

#include <algorithm>

namespace kiln {

namespace {

std::unique_ptr<fb::MetalKernelT> kernelRecord(const std::string &Name,
                                               metal::MslKernel K) {
  auto R = std::make_unique<fb::MetalKernelT>();
  R->name = Name;
  R->msl = std::move(K.Source);
  R->entry_point = std::move(K.EntryPoint);
  R->buffer_indices = std::move(K.BufferIndices);
  R->push_constant_index = K.PushConstantIndex;
  R->push_constant_bytes = K.PushConstantBytes;
  R->buffer_size_index = K.BufferSizeIndex;
  for (const metal::FunctionConstant &C : K.FunctionConstants)
    R->function_constants.emplace_back(
        C.Id, static_cast<fb::MetalConstantType>(C.Type));
  R->threadgroup_size.assign(K.ThreadgroupSize.begin(), K.ThreadgroupSize.end());
  R->threadgroup_size_constants.assign(K.ThreadgroupSizeConstants.begin(),
                                       K.ThreadgroupSizeConstants.end());
  R->threadgroup_memory_bytes = K.ThreadgroupMemoryBytes;
  return R;
}

/// The type K declares constant Id with, or null where K lacks it.
const fb::MetalFunctionConstant *declared(const fb::MetalKernelT &K,
                                          uint32_t Id) {
  auto It = std::find_if(K.function_constants.begin(), K.function_constants.end(),
                         [&](const fb::MetalFunctionConstant &C) { return C.id() == Id; });
  return It == K.function_constants.end() ? nullptr : &*It;
}

/// A float constant of +-infinity (an activation's open bound) as
/// +-FLT_MAX: the same clamp for every finite value, and still defined if
/// an app's build turns fast math on, under which MSL's fast::min/max with
/// an infinite operand are undefined. Other values pass unchanged.
uint32_t finiteFloatBits(uint32_t Bits) {
  constexpr uint32_t PosInf = 0x7f800000u, NegInf = 0xff800000u;
  constexpr uint32_t PosMax = 0x7f7fffffu, NegMax = 0xff7fffffu;
  return Bits == PosInf ? PosMax : Bits == NegInf ? NegMax : Bits;
}

std::unique_ptr<fb::MetalDispatchT>
dispatchRecord(const fb::VulkanDispatchT &D, uint32_t KernelIndex,
               const fb::MetalKernelT &K) {
  auto R = std::make_unique<fb::MetalDispatchT>();
  R->kernel = KernelIndex;
  for (const fb::VulkanSpecConstant &C : D.spec_constants)
    if (const fb::MetalFunctionConstant *F = declared(K, C.id()))
      R->function_constants.emplace_back(
          C.id(), F->type() == fb::MetalConstantType::FLOAT
                      ? finiteFloatBits(C.value())
                      : C.value());
  uint32_t Threads[3];
  for (unsigned Dim = 0; Dim < 3; ++Dim) {
    Threads[Dim] = K.threadgroup_size[Dim];
    int32_t Id = K.threadgroup_size_constants[Dim];
    for (const fb::VulkanSpecConstant &C : D.spec_constants)
      if (Id >= 0 && C.id() == uint32_t(Id))
        Threads[Dim] = C.value();
  }
  R->threads_per_threadgroup_x = Threads[0];
  R->threads_per_threadgroup_y = Threads[1];
  R->threads_per_threadgroup_z = Threads[2];
  R->threadgroups_x = D.group_count_x;
  R->threadgroups_y = D.group_count_y;
  R->threadgroups_z = D.group_count_z;
  R->push_constants = D.push_constants;
  R->bindings = D.bindings;
  R->operator_ = D.operator_;
  return R;
}

} // namespace

std::vector<std::string> metalSupportedOps() { return gpuSupportedOps(); }

llvm::Error checkMetalGraph(const Graph &G) {
  if (llvm::Error E = checkGpuGraph(G)) {
    // The Vulkan target's list, in the Metal target's words.
    std::string Text = llvm::toString(std::move(E));
    for (size_t At; (At = Text.find("Vulkan target")) != std::string::npos;)
      Text.replace(At, 13, "Metal target");
    return inputError("{0}", Text);
  }
  return llvm::Error::success();
}

llvm::Expected<MetalCompileResult> compileForMetal(const Graph &G, bool Fp16) {
  if (llvm::Error E = checkMetalGraph(G))
    return E;
  auto Vk = lowerToGpuDispatches(G, Fp16);
  if (!Vk)
    return Vk.takeError();
  MetalCompileResult R;
  R.Module = std::move(Vk->Module);
  R.Fp16 = Fp16;
  fb::ModelT &Model = R.Module.Model;
  fb::VulkanPayloadT &Vp = *Model.payload.AsVulkanPayload();

  auto P = std::make_unique<fb::MetalPayloadT>();
  P->fp16 = Vp.fp16;
  P->msl_version = metal::MslVersion;
  std::map<std::string, uint32_t> KernelIndex;
  for (const auto &D : Vp.dispatches) {
    const fb::VulkanShaderT &Shader = *Vp.shaders[D->shader];
    std::string Name = Shader.fp16_math_variant >= 0
                           ? Vp.shaders[size_t(Shader.fp16_math_variant)]->name
                           : Shader.name;
    auto [It, New] = KernelIndex.try_emplace(Name, uint32_t(P->kernels.size()));
    if (New) {
      auto K = metalCatalogKernel(Name);
      if (!K)
        return K.takeError();
      P->kernels.push_back(std::move(*K));
      R.MslBytes += P->kernels.back()->msl.size();
    }
    P->dispatches.push_back(dispatchRecord(*D, It->second, *P->kernels[It->second]));
    R.Kernels[Name] += 1;
  }
  P->buffers = std::move(Vp.buffers);
  P->places = std::move(Vp.places);
  for (const auto &B : P->buffers)
    if (B->kind == fb::VulkanBufferKind::ARENA)
      R.ArenaBytes += B->size;
  for (const Segment &S : R.Module.Segments)
    R.WeightBytes += S.size();
  R.Operators = Model.operators.size();
  R.Dispatches = P->dispatches.size();
  Model.target = fb::Target::METAL;
  if (Model.metadata)
    Model.metadata->target = "metal";
  Model.payload.Set(std::move(*P));
  return R;
}

llvm::Expected<std::unique_ptr<fb::MetalKernelT>>
metalCatalogKernel(const std::string &Name) {
  llvm::ArrayRef<uint32_t> Spirv = vulkan::kernelSpirv(Name);
  if (Spirv.empty())
    return internalError("no catalog kernel is named '{0}'", Name);
  auto K = metal::translateToMsl(Name, Spirv);
  if (!K)
    return K.takeError();
  return kernelRecord(Name, std::move(*K));
}

} // namespace kiln

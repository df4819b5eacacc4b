#include "metal/MetalPayloadVerifier.h"

#include "gpu/GpuBuffersVerifier.h"
#include "gpu/GpuLimits.h"
#include "gpu/KernelCatalog.h"
#include "loader/Limits.h"
#include "metal/MetalLimits.h"
#include "loader/TensorDesc.h"
#include "metal/MetalKernelIdentity.h"

#ifdef KILN_METAL_KERNEL_CATALOG
#include "MetalKernelDigests.h" // generated: kiln::rt::metal_catalog
#endif

#include <algorithm>
#include <iterator>

namespace kiln::rt {

namespace {

KernelCatalogView metalCatalog() {
#ifdef KILN_METAL_KERNEL_CATALOG
  return {metal_catalog::Kernels, std::size(metal_catalog::Kernels),
          metal_catalog::MaxKernelBytes, "Metal kernel", ""};
#else
  return {nullptr, 0, 0, "Metal kernel",
          "this runtime was built without a Metal kernel catalog (a "
          "runtime-only build takes a full build's as "
          "KILN_METAL_KERNEL_DIGESTS)"};
#endif
}

bool isIdentifier(const flatbuffers::String *S) {
  if (!S || S->size() == 0 || S->size() > 256)
    return false;
  auto Alpha = [](char C) {
    return (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') || C == '_';
  };
  if (!Alpha(S->c_str()[0]))
    return false;
  return std::all_of(S->begin(), S->end(), [&](char C) {
    return Alpha(C) || (C >= '0' && C <= '9');
  });
}

/// Whether kernel K declares function constant Id, and its type there.
const fb::MetalFunctionConstant *findConstant(const fb::MetalKernel &K,
                                              uint32_t Id) {
  if (!K.function_constants())
    return nullptr;
  for (const fb::MetalFunctionConstant *C : *K.function_constants())
    if (C->id() == Id)
      return C;
  return nullptr;
}

Status checkKernel(const fb::MetalKernel &K, uint32_t MslVersion) {
  if (!K.msl() || K.msl()->size() == 0)
    return invalidModel("no MSL source");
  // The MSL alone larger than every catalog kernel: refused before the
  // identity is built.
  KernelCatalogView Catalog = metalCatalog();
  if (Status S = checkCatalogKernelSize(Catalog, K.msl()->size()))
    return S;
  if (K.msl()->size() > limits::MaxMslBytes)
    return invalidModel("the MSL source is ", K.msl()->size(),
                        " bytes (at most ", limits::MaxMslBytes, ")");
  if (!isIdentifier(K.entry_point()))
    return invalidModel("the entry point is not an identifier");
  std::vector<char> Used(limits::MetalBufferSlots, 0);
  size_t NumBuffers = K.buffer_indices() ? K.buffer_indices()->size() : 0;
  if (NumBuffers > limits::MaxVulkanBindings)
    return invalidModel(NumBuffers, " storage buffers (at most ",
                        limits::MaxVulkanBindings, ")");
  for (unsigned I = 0; I < NumBuffers; ++I) {
    uint32_t Index = K.buffer_indices()->Get(I);
    if (Index >= limits::MetalBufferSlots || Used[Index]++)
      return invalidModel("storage buffer ", I, " is at buffer index ", Index,
                          " (indices are distinct, below ",
                          limits::MetalBufferSlots, ")");
  }
  int32_t Push = K.push_constant_index();
  if (Push != -1 &&
      (Push < 0 || uint32_t(Push) >= limits::MetalBufferSlots || Used[size_t(Push)]))
    return invalidModel("the push-constant block is at buffer index ", Push,
                        ", which is taken or outside [0, ",
                        limits::MetalBufferSlots, ")");
  int32_t Sizes = K.buffer_size_index();
  if (Sizes != -1 &&
      (Sizes < 0 || uint32_t(Sizes) >= limits::MetalBufferSlots ||
       Used[size_t(Sizes)] || Sizes == Push))
    return invalidModel("the buffer-size buffer is at buffer index ", Sizes,
                        ", which is taken or outside [0, ",
                        limits::MetalBufferSlots, ")");
  if ((Push == -1) != (K.push_constant_bytes() == 0) ||
      K.push_constant_bytes() % 4 != 0 ||
      K.push_constant_bytes() > limits::MaxVulkanPushBytes)
    return invalidModel(K.push_constant_bytes(), " bytes of push constants at "
                        "buffer index ", Push, " (a multiple of 4, at most ",
                        limits::MaxVulkanPushBytes, ", none without an index)");
  if (const auto *C = K.function_constants())
    for (unsigned I = 0; I < C->size(); ++I) {
      if (C->Get(I)->id() > limits::MaxMetalFunctionConstantId)
        return invalidModel("function constant id ", C->Get(I)->id(),
                            " is above ", limits::MaxMetalFunctionConstantId);
      if (C->Get(I)->type() > fb::MetalConstantType::MAX)
        return invalidModel("function constant ", C->Get(I)->id(),
                            " has unknown type ", unsigned(C->Get(I)->type()));
      if (I > 0 && C->Get(I)->id() <= C->Get(I - 1)->id())
        return invalidModel("function constant ids are not sorted and unique (",
                            C->Get(I - 1)->id(), " then ", C->Get(I)->id(), ")");
    }
  const auto *Size = K.threadgroup_size();
  const auto *SizeIds = K.threadgroup_size_constants();
  if (!Size || Size->size() != 3 || !SizeIds || SizeIds->size() != 3)
    return invalidModel("the threadgroup size and its constants are not 3 "
                        "values each");
  for (unsigned D = 0; D < 3; ++D) {
    if (Size->Get(D) < 1 || Size->Get(D) > limits::MaxMetalThreadsPerGroup)
      return invalidModel("threadgroup size ", "xyz"[D], " is ", Size->Get(D));
    int32_t Id = SizeIds->Get(D);
    if (Id == -1)
      continue;
    const fb::MetalFunctionConstant *C = Id >= 0 ? findConstant(K, uint32_t(Id)) : nullptr;
    if (!C || C->type() != fb::MetalConstantType::UINT)
      return invalidModel("threadgroup size ", "xyz"[D], " is set by ", Id,
                          ", which is no uint function constant of the kernel");
  }
  if (K.threadgroup_memory_bytes() > limits::MaxMetalThreadgroupMemory)
    return invalidModel(K.threadgroup_memory_bytes(), " bytes of threadgroup "
                        "memory (at most ", limits::MaxMetalThreadgroupMemory,
                        ")");
  // Last, once its sizes are bounded: the MSL, its version and every index
  // the executor binds by must be a catalog kernel's, as the compiler wrote
  // it.
  std::string Identity = metalKernelIdentity(K, MslVersion);
  return checkCatalogKernel(Catalog, Identity.data(), Identity.size(),
                            K.name() ? K.name()->c_str() : "");
}

Status checkDispatch(const fb::Model &M, const fb::MetalPayload &P,
                     const fb::MetalDispatch &D) {
  size_t NumKernels = P.kernels() ? P.kernels()->size() : 0;
  if (D.kernel() >= NumKernels)
    return invalidModel("kernel ", D.kernel(), " of ", NumKernels);
  const fb::MetalKernel &K = *P.kernels()->Get(D.kernel());
  size_t NumBindings = D.bindings() ? D.bindings()->size() : 0;
  size_t Need = K.buffer_indices() ? K.buffer_indices()->size() : 0;
  if (NumBindings != Need)
    return invalidModel(NumBindings, " bindings, but kernel ", D.kernel(),
                        " has ", Need, " storage buffers");
  for (unsigned I = 0; I < NumBindings; ++I) {
    const fb::VulkanBinding *B = D.bindings()->Get(I);
    if (Status S = verifyGpuBinding(P.buffers(), I, *B))
      return S;
    // The kernels read float4/half4 (16 and 8 bytes) from the binding's
    // start; Metal wants device offsets aligned to the type. (Sizes reach
    // only the kernels' bounds checks: an fp16 binding may hold an odd
    // count.)
    if (B->offset() % limits::MetalBindingAlignment != 0)
      return invalidModel("binding ", I, " (offset ", B->offset(),
                          ") is not a multiple of ",
                          limits::MetalBindingAlignment);
    // The buffer-size buffer holds 32-bit sizes.
    if (K.buffer_size_index() >= 0 && B->size() > UINT32_MAX)
      return invalidModel("binding ", I, " is ", B->size(), " bytes, more "
                          "than the kernel's 32-bit buffer sizes hold");
  }
  if (const auto *C = D.function_constants())
    for (unsigned I = 0; I < C->size(); ++I) {
      uint32_t Id = C->Get(I)->id();
      if (I > 0 && Id <= C->Get(I - 1)->id())
        return invalidModel("function constant ids are not sorted and unique (",
                            C->Get(I - 1)->id(), " then ", Id, ")");
      const fb::MetalFunctionConstant *Declared = findConstant(K, Id);
      if (!Declared)
        return invalidModel("function constant ", Id, " is not in kernel ",
                            D.kernel());
      if (Declared->type() == fb::MetalConstantType::BOOL &&
          C->Get(I)->value() > 1)
        return invalidModel("function constant ", Id, " is a bool, but its "
                            "value is ", C->Get(I)->value());
    }
  size_t Push = D.push_constants() ? D.push_constants()->size() : 0;
  if (Push != K.push_constant_bytes())
    return invalidModel(Push, " bytes of push constants, but kernel ",
                        D.kernel(), "'s block is ", K.push_constant_bytes(),
                        " bytes");
  uint32_t Threads[3] = {D.threads_per_threadgroup_x(),
                         D.threads_per_threadgroup_y(),
                         D.threads_per_threadgroup_z()};
  uint64_t Total = 1;
  for (unsigned Dim = 0; Dim < 3; ++Dim) {
    // The size the MSL computes with: its constant's value, else its own.
    uint32_t Expect = K.threadgroup_size()->Get(Dim);
    int32_t Id = K.threadgroup_size_constants()->Get(Dim);
    if (const auto *C = D.function_constants())
      for (const fb::VulkanSpecConstant *V : *C)
        if (Id >= 0 && V->id() == uint32_t(Id))
          Expect = V->value();
    if (Threads[Dim] != Expect)
      return invalidModel("threads per threadgroup ", "xyz"[Dim], " is ",
                          Threads[Dim], ", but the kernel's threadgroup size "
                          "there is ", Expect);
    Total *= Threads[Dim];
  }
  if (Total < 1 || Total > limits::MaxMetalThreadsPerGroup)
    return invalidModel(Total, " threads per threadgroup (at most ",
                        limits::MaxMetalThreadsPerGroup, ")");
  uint32_t Groups[3] = {D.threadgroups_x(), D.threadgroups_y(), D.threadgroups_z()};
  if (Status S = verifyGpuGridAndOperator(M, Groups, D.operator_(), "threadgroups"))
    return S;
  // As for Vulkan: no more threads than the bound bytes need.
  uint64_t Local[3] = {Threads[0], Threads[1], Threads[2]};
  uint64_t Bound = 0;
  if (const auto *Bindings = D.bindings())
    for (unsigned I = 0; I < Bindings->size(); ++I)
      Bound += Bindings->Get(I)->size();
  return verifyGpuInvocations(Groups, Local, Bound, "the dispatch");
}

/// MSL versions are major * 10000 + minor * 100 (SPIRV-Cross's encoding):
/// 1.0 to 3.9, no patch level.
bool knownMslVersion(uint32_t V) {
  return V >= 10000 && V < 40000 && V % 100 == 0 && V / 100 % 100 < 10;
}

} // namespace

Status verifyMetalPayload(const fb::Model &M,
                          const std::vector<TensorDesc> &Tensors) {
  const fb::MetalPayload *P = M.payload_as_MetalPayload();
  if (!P)
    return invalidModel("the file has no metal payload");
  if (!knownMslVersion(P->msl_version()))
    return invalidModel("MSL version ", P->msl_version(), " is not one "
                        "(major * 10000 + minor * 100)");
  size_t NumKernels = P->kernels() ? P->kernels()->size() : 0;
  if (NumKernels > limits::MaxVulkanShaders)
    return invalidModel("too many Metal kernels (", NumKernels, ")");
  for (unsigned I = 0; I < NumKernels; ++I) {
    const fb::MetalKernel *K = P->kernels()->Get(I);
    if (Status S = checkKernel(*K, P->msl_version()))
      return S.withContext(concat("Metal kernel ", I, " '",
                                  K->name() ? K->name()->str() : "", "'"));
  }
  if (Status S = verifyGpuBuffers(M, P->buffers(), Tensors, "Metal"))
    return S;
  size_t N = P->dispatches() ? P->dispatches()->size() : 0;
  if (N > limits::MaxVulkanDispatches)
    return invalidModel("too many Metal dispatches (", N, ")");
  for (unsigned I = 0; I < N; ++I)
    if (Status S = checkDispatch(M, *P, *P->dispatches()->Get(I)))
      return S.withContext(concat("Metal dispatch ", I));
  return verifyGpuPlaces(P->buffers(), P->places(), Tensors, P->fp16(), "Metal");
}

} // namespace kiln::rt

#include "vulkan/VulkanExecutor.h"

#include "vulkan/VulkanPayloadVerifier.h"
#include "gpu/GpuLimits.h"
#include "gpu/GpuReadback.h"
#include "gpu/GpuReadbackPlan.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace kiln::rt::vk {

namespace {

/// The device features a payload needs: fp16 payloads (fp16 in memory)
/// need 16-bit storage; required_features names them one by one, and
/// shaderFloat16 (fp16 arithmetic) only when it lists it.
Status featuresOf(const fb::VulkanPayload &P, DeviceOptions &O) {
  if (P.fp16())
    O.StorageBuffer16BitAccess = true;
  if (const auto *F = P.required_features())
    for (const flatbuffers::String *Name : *F) {
      if (Name->str() == "shaderFloat16")
        O.ShaderFloat16 = true;
      else if (Name->str() == "storageBuffer16BitAccess")
        O.StorageBuffer16BitAccess = true;
      else
        return unsupported("Vulkan: the model needs the device feature '",
                           Name->str(), "', which this runtime does not know");
    }
  return Status::ok();
}

/// Whether an fp16 payload's shaders name fp16-arithmetic twins.
bool hasFp16MathTwins(const fb::VulkanPayload &P) {
  if (!P.fp16() || !P.shaders())
    return false;
  for (const fb::VulkanShader *S : *P.shaders())
    if (S->fp16_math_variant() >= 0)
      return true;
  return false;
}

Status outOfMemory(const char *What, VkResult R) {
  return {R == VK_ERROR_OUT_OF_HOST_MEMORY || R == VK_ERROR_OUT_OF_DEVICE_MEMORY
              ? KILN_ERROR_OUT_OF_MEMORY
              : KILN_ERROR_UNSUPPORTED,
          concat("Vulkan: ", What, " failed (", resultName(R), ")")};
}

void memoryBarrier(VkCommandBuffer Cmd, VkPipelineStageFlags From,
                   VkAccessFlags FromAccess, VkPipelineStageFlags To,
                   VkAccessFlags ToAccess) {
  auto B = vkStruct<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
  B.srcAccessMask = FromAccess;
  B.dstAccessMask = ToAccess;
  vkCmdPipelineBarrier(Cmd, From, To, 0, 1, &B, 0, nullptr, 0, nullptr);
}

} // namespace

Status VulkanExecutor::create(std::shared_ptr<const LoadedModel> Model,
                              const SessionOptions &Opts,
                              std::unique_ptr<VulkanExecutor> &Out) {
  std::unique_ptr<VulkanExecutor> E(new VulkanExecutor());
  E->Model = std::move(Model);
  E->KeepIntermediates = Opts.KeepIntermediates;
  uint64_t TimeoutMs = Opts.Vulkan.RunTimeoutMs;
  if (const char *T = std::getenv("KILN_VULKAN_RUN_TIMEOUT_MS"))
    if (long long V = std::atoll(T); V > 0)
      TimeoutMs = uint64_t(V);
  // At most about 213 days, so that the nanoseconds do not wrap.
  E->RunTimeoutNs = std::min<uint64_t>(TimeoutMs, UINT64_MAX / 1000000ull) * 1000000ull;
  const fb::VulkanPayload &P = E->payload();
  DeviceOptions DO;
  DO.DeviceIndex = Opts.Vulkan.DeviceIndex;
  const char *Env = std::getenv("KILN_VULKAN_VALIDATION");
  // "fatal": validation on, and any message it reports fails the session
  // (tests use it to hold every dispatch to zero messages).
  E->ValidationFatal = Env && std::strcmp(Env, "fatal") == 0;
  DO.Validation = Opts.Vulkan.Validation || E->ValidationFatal ||
                  (Env && std::strcmp(Env, "1") == 0);
  if (Status S = featuresOf(P, DO))
    return S;
  const char *Fp16Env = std::getenv("KILN_VULKAN_FP16_ARITHMETIC");
  bool Fp16MathAllowed = Opts.Vulkan.Fp16Arithmetic &&
                         !(Fp16Env && std::strcmp(Fp16Env, "off") == 0);
  bool HasTwins = hasFp16MathTwins(P);
  DO.PreferShaderFloat16 = HasTwins && Fp16MathAllowed;
  const char *RobustEnv = std::getenv("KILN_VULKAN_ROBUST_BUFFER_ACCESS");
  DO.RobustBufferAccess = Opts.Vulkan.RobustBufferAccess &&
                          !(RobustEnv && std::strcmp(RobustEnv, "off") == 0);
  if (Status S = Device::create(DO, E->Dev))
    return S;
  // The twins run where the device enabled shaderFloat16 for them.
  bool UseTwins = DO.PreferShaderFloat16 && E->Dev->shaderFloat16();
  if (!P.fp16())
    E->Precision = "fp32";
  else if (DO.ShaderFloat16 || UseTwins)
    E->Precision = "fp16 storage, fp16 arithmetic";
  else if (!HasTwins) // nothing could compute in fp16: no reason to give
    E->Precision = "fp16 storage, fp32 arithmetic";
  else if (!Fp16MathAllowed)
    E->Precision = "fp16 storage, fp32 arithmetic (fp16_arithmetic off)";
  else
    E->Precision = "fp16 storage, fp32 arithmetic (device lacks shaderFloat16)";
  // The loader keeps every binding inside its buffer, and every kiln kernel
  // checks its indices against its bindings' lengths, whatever the
  // constants say: a device without robustBufferAccess runs them safely
  // (docs/security.md).
  if (Status S = E->checkDeviceLimits())
    return S;
  if (Status S = E->createBuffers())
    return S;
  if (Opts.MaxArenaBytes && E->ArenaBytes > Opts.MaxArenaBytes)
    return {KILN_ERROR_OUT_OF_MEMORY,
            concat("the model's Vulkan arena takes ", E->ArenaBytes,
                   " bytes, over max_arena_bytes (", Opts.MaxArenaBytes, ")")};
  if (Status S = E->uploadWeights())
    return S;
  if (Status S = E->Cache.open(*E->Dev, Opts.Vulkan.PipelineCacheDir))
    return S;
  if (Status S = E->Pipes.create(*E->Dev, P, vulkanModules(*E->Model),
                                 E->Cache.handle(), UseTwins))
    return S;
  E->Cache.save();
  if (Status S = E->createDescriptorSets())
    return S;
  if (Status S = E->planReadback())
    return S;
  if (Status S = E->recordCommands())
    return S;
  if (Status S = E->validationVerdict())
    return S;
  Out = std::move(E);
  return Status::ok();
}

VulkanExecutor::~VulkanExecutor() {
  if (!Dev)
    return;
  VkDevice D = Dev->handle();
  if (!Dead.empty() && Fence &&
      vkWaitForFences(D, 1, &Fence, VK_TRUE, RunTimeoutNs) == VK_TIMEOUT) {
    // The GPU still runs the submission that timed out: freeing its
    // buffers, pipelines or device now could crash the process, so they are
    // left allocated (kiln_vulkan_options.run_timeout_ms says so).
    Pipes.abandon();
    (void)Dev.release();
    return;
  }
  vkDeviceWaitIdle(D);
  if (Fence)
    vkDestroyFence(D, Fence, nullptr);
  if (Queries)
    vkDestroyQueryPool(D, Queries, nullptr);
  for (VkCommandBuffer C : {Cmd, TimedCmd})
    if (C)
      vkFreeCommandBuffers(D, Dev->commandPool(), 1, &C);
  if (DescriptorPool)
    vkDestroyDescriptorPool(D, DescriptorPool, nullptr);
  for (DeviceBuffer &B : Buffers)
    destroyBuffer(D, B);
  destroyBuffer(D, ReadbackBuffer);
}

Status VulkanExecutor::validationVerdict() const {
  if (!ValidationFatal)
    return Status::ok();
  std::vector<std::string> Messages = Dev->validationMessages();
  if (Messages.empty())
    return Status::ok();
  return runtimeError("Vulkan validation reported ", Messages.size(),
                      " message(s) (KILN_VULKAN_VALIDATION=fatal); the first: ",
                      Messages.front());
}

Status VulkanExecutor::checkDeviceLimits() const {
  const VkPhysicalDeviceLimits &L = Dev->properties().limits;
  const fb::VulkanPayload &P = payload();
  if (!P.dispatches())
    return Status::ok();
  for (unsigned I = 0; I < P.dispatches()->size(); ++I) {
    const fb::VulkanDispatch *D = P.dispatches()->Get(I);
    std::string Where = concat("Vulkan dispatch ", I, ": ");
    const char *Device = Dev->properties().deviceName;
    uint32_t Groups[3] = {D->group_count_x(), D->group_count_y(),
                          D->group_count_z()};
    // The workgroup size: specialization constants 0, 1, 2, else the
    // module's own (known where the loader could reflect it).
    const VulkanModuleInfo &Mod = vulkanModules(*Model)[D->shader()];
    uint32_t Local[3] = {Mod.LocalSize[0], Mod.LocalSize[1], Mod.LocalSize[2]};
    if (const auto *Spec = D->spec_constants())
      for (const fb::VulkanSpecConstant *C : *Spec)
        if (C->id() < 3)
          Local[C->id()] = C->value();
    uint64_t Invocations = 1;
    for (unsigned K = 0; K < 3; ++K) {
      if (Groups[K] > L.maxComputeWorkGroupCount[K])
        return invalidModel(Where, "group count ", "xyz"[K], " is ", Groups[K],
                            ", over ", Device, "'s maxComputeWorkGroupCount (",
                            L.maxComputeWorkGroupCount[K], ")");
      if (Local[K] == 0 || Local[K] > L.maxComputeWorkGroupSize[K])
        return invalidModel(Where, "workgroup size ", "xyz"[K], " is ",
                            Local[K], ", outside [1, ",
                            L.maxComputeWorkGroupSize[K], "] on ", Device);
      Invocations *= Local[K];
    }
    if (Invocations > L.maxComputeWorkGroupInvocations)
      return invalidModel(Where, "workgroups of ", Invocations,
                          " invocations, over ", Device,
                          "'s maxComputeWorkGroupInvocations (",
                          L.maxComputeWorkGroupInvocations, ")");
    uint32_t NumBindings = D->bindings() ? D->bindings()->size() : 0;
    if (NumBindings > L.maxPerStageDescriptorStorageBuffers)
      return invalidModel(Where, NumBindings, " storage buffers, over ", Device,
                          "'s maxPerStageDescriptorStorageBuffers (",
                          L.maxPerStageDescriptorStorageBuffers, ")");
    for (unsigned B = 0; B < NumBindings; ++B) {
      const fb::VulkanBinding *Bd = D->bindings()->Get(B);
      if (Bd->offset() % L.minStorageBufferOffsetAlignment != 0)
        return invalidModel(Where, "binding ", B, "'s offset ", Bd->offset(),
                            " is not a multiple of ", Device,
                            "'s minStorageBufferOffsetAlignment (",
                            L.minStorageBufferOffsetAlignment, ")");
      if (Bd->size() > L.maxStorageBufferRange)
        return invalidModel(Where, "binding ", B, " is ", Bd->size(),
                            " bytes, over ", Device, "'s maxStorageBufferRange (",
                            L.maxStorageBufferRange, ")");
    }
    uint32_t Push = D->push_constants() ? D->push_constants()->size() : 0;
    if (Push > L.maxPushConstantsSize)
      return invalidModel(Where, Push, " bytes of push constants, over ",
                          Device, "'s maxPushConstantsSize (",
                          L.maxPushConstantsSize, ")");
  }
  return Status::ok();
}

Status VulkanExecutor::createBuffers() {
  const fb::VulkanPayload &P = payload();
  size_t N = P.buffers() ? P.buffers()->size() : 0;
  Buffers.resize(N);
  for (unsigned I = 0; I < N; ++I) {
    const fb::VulkanBuffer *B = P.buffers()->Get(I);
    bool Host = B->kind() == fb::VulkanBufferKind::INPUT ||
                B->kind() == fb::VulkanBufferKind::OUTPUT;
    // Past the size, the slack a bounds check of an empty binding may read
    // (gpu/GpuLimits.h).
    if (Status S = createBuffer(*Dev, B->size() + limits::GpuBufferSlackBytes,
                                Host ? MemoryUse::HostVisible
                                     : MemoryUse::DeviceLocal,
                                Buffers[I]))
      return S.withContext(concat("Vulkan buffer ", I));
    if (B->kind() == fb::VulkanBufferKind::ARENA)
      ArenaBytes += B->size();
    if (B->kind() == fb::VulkanBufferKind::INPUT)
      IoBuffer[size_t(Model->Inputs[size_t(B->io_index())])] = I;
    if (B->kind() == fb::VulkanBufferKind::OUTPUT)
      IoBuffer[size_t(Model->Outputs[size_t(B->io_index())])] = I;
    if (Host) // defined contents before the first setInput
      std::memset(Buffers[I].Mapped, 0, B->size());
  }
  return Status::ok();
}

Status VulkanExecutor::uploadWeights() {
  const fb::VulkanPayload &P = payload();
  const fb::Model &M = *Model->Root;
  const uint8_t *File = Model->Bytes->data();
  // Uploads of each segment still to come: its file pages go after the
  // last (a segment may fill several buffers).
  std::vector<uint32_t> UploadsLeft(M.buffers() ? M.buffers()->size() : 0, 0);
  for (unsigned I = 0; I < Buffers.size(); ++I)
    if (const fb::VulkanBuffer *B = P.buffers()->Get(I);
        B->kind() == fb::VulkanBufferKind::WEIGHTS && B->uploads())
      for (const fb::VulkanUpload *U : *B->uploads())
        ++UploadsLeft[U->segment()];
  for (unsigned I = 0; I < Buffers.size(); ++I) {
    const fb::VulkanBuffer *B = P.buffers()->Get(I);
    if (B->kind() == fb::VulkanBufferKind::ARENA) {
      // Defined contents, as Metal's shared buffers have: a tensor no
      // dispatch wrote (a file whose constants lie about its bindings) reads
      // as zeros, and runs are reproducible.
      VkBuffer Arena = Buffers[I].Buffer;
      if (Status S = submitOnce(*Dev, [&](VkCommandBuffer C) {
            vkCmdFillBuffer(C, Arena, 0, VK_WHOLE_SIZE, 0);
            memoryBarrier(C, VK_PIPELINE_STAGE_TRANSFER_BIT,
                          VK_ACCESS_TRANSFER_WRITE_BIT,
                          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
          }))
        return S.withContext(concat("clearing Vulkan buffer ", I));
      continue;
    }
    if (B->kind() != fb::VulkanBufferKind::WEIGHTS)
      continue;
    // Fill the bytes on the host: in place where the device memory is
    // mapped, else in a staging buffer copied over.
    DeviceBuffer Staging;
    DeviceBuffer *Host = &Buffers[I];
    if (!Buffers[I].Mapped) {
      if (Status S = createBuffer(*Dev, B->size(), MemoryUse::HostVisible, Staging))
        return S.withContext(concat("staging for Vulkan buffer ", I));
      Host = &Staging;
    }
    std::memset(Host->Mapped, 0, B->size());
    if (const auto *Ups = B->uploads())
      for (const fb::VulkanUpload *U : *Ups) {
        const fb::Buffer *Seg = M.buffers()->Get(U->segment());
        std::memcpy(Host->Mapped + U->offset(), File + Seg->offset(), Seg->size());
      }
    flushToDevice(Dev->handle(), *Host);
    Status S = Status::ok();
    if (Host == &Staging) {
      S = submitOnce(*Dev, [&](VkCommandBuffer C) {
        VkBufferCopy Region{0, 0, B->size()};
        vkCmdCopyBuffer(C, Staging.Buffer, Buffers[I].Buffer, 1, &Region);
        memoryBarrier(C, VK_PIPELINE_STAGE_TRANSFER_BIT,
                      VK_ACCESS_TRANSFER_WRITE_BIT,
                      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                      VK_ACCESS_SHADER_READ_BIT);
      });
      destroyBuffer(Dev->handle(), Staging);
    }
    if (S)
      return S;
    // The device buffers now hold these weights: drop the file's pages of
    // each segment after its last upload, so that the weights are resident
    // once (on a GPU that shares the host's memory, as phones' and
    // lavapipe's do) and not also as the mapped file, and a session never
    // holds both copies of more than one buffer. A mapped file's pages come
    // back from the file should anything read them again (a constant read
    // on the host, a resize that uploads again); a model loaded from a
    // buffer keeps its copy.
    if (const auto *Ups = B->uploads())
      for (const fb::VulkanUpload *U : *Ups) {
        if (--UploadsLeft[U->segment()] != 0)
          continue;
        const fb::Buffer *Seg = M.buffers()->Get(U->segment());
        WeightsReleasedBytes +=
            Model->Bytes->releasePages(File + Seg->offset(), Seg->size());
      }
  }
  return Status::ok();
}

Status VulkanExecutor::createDescriptorSets() {
  const fb::VulkanPayload &P = payload();
  VkDevice D = Dev->handle();
  size_t N = P.dispatches() ? P.dispatches()->size() : 0;
  if (N == 0)
    return Status::ok();
  uint32_t Total = 0;
  for (const fb::VulkanDispatch *Dp : *P.dispatches())
    Total += Dp->bindings() ? Dp->bindings()->size() : 0;
  VkDescriptorPoolSize Size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, Total ? Total : 1};
  auto PoolInfo = vkStruct<VkDescriptorPoolCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO);
  PoolInfo.maxSets = uint32_t(N);
  PoolInfo.poolSizeCount = 1;
  PoolInfo.pPoolSizes = &Size;
  if (VkResult R = vkCreateDescriptorPool(D, &PoolInfo, nullptr, &DescriptorPool))
    return outOfMemory("creating the descriptor pool", R);
  std::vector<VkDescriptorSetLayout> Layouts;
  for (const fb::VulkanDispatch *Dp : *P.dispatches())
    Layouts.push_back(Pipes.setLayout(Dp->shader()));
  Sets.resize(N);
  auto Alloc = vkStruct<VkDescriptorSetAllocateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO);
  Alloc.descriptorPool = DescriptorPool;
  Alloc.descriptorSetCount = uint32_t(N);
  Alloc.pSetLayouts = Layouts.data();
  if (VkResult R = vkAllocateDescriptorSets(D, &Alloc, Sets.data()))
    return outOfMemory("allocating descriptor sets", R);
  std::vector<VkDescriptorBufferInfo> Infos;
  Infos.reserve(Total);
  std::vector<VkWriteDescriptorSet> Writes;
  for (unsigned I = 0; I < N; ++I) {
    const fb::VulkanDispatch *Dp = P.dispatches()->Get(I);
    if (!Dp->bindings())
      continue;
    for (unsigned B = 0; B < Dp->bindings()->size(); ++B) {
      const fb::VulkanBinding *Bd = Dp->bindings()->Get(B);
      Infos.push_back({Buffers[Bd->buffer()].Buffer, Bd->offset(), Bd->size()});
      auto W = vkStruct<VkWriteDescriptorSet>(VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET);
      W.dstSet = Sets[I];
      W.dstBinding = B;
      W.descriptorCount = 1;
      W.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      W.pBufferInfo = &Infos.back();
      Writes.push_back(W);
    }
  }
  vkUpdateDescriptorSets(D, uint32_t(Writes.size()), Writes.data(), 0, nullptr);
  return Status::ok();
}

Status VulkanExecutor::planReadback() {
  const fb::VulkanPayload &P = payload();
  size_t N = P.dispatches() ? P.dispatches()->size() : 0;
  CopiesAfter.assign(N, {});
  if (!KeepIntermediates || !P.places())
    return Status::ok();
  std::vector<int32_t> Operators;
  for (unsigned I = 0; I < N; ++I)
    Operators.push_back(P.dispatches()->Get(I)->operator_());
  VkDeviceSize End = 0;
  for (const PlannedRead &R : planGpuReadback(
           *Model, P.places(), P.buffers(), Operators,
           [&](size_t T) { return IoBuffer.count(T) != 0; })) {
    const fb::VulkanTensorPlace *Pl = R.Place;
    if (!R.Arena && Buffers[Pl->buffer()].Mapped) {
      // INPUT, OUTPUT or WEIGHTS bytes: no dispatch changes them before
      // the run ends, so they are read on the host then.
      HostReads.push_back({R.Tensor, Pl->buffer(), Pl->offset()});
    } else if (R.Ready >= 0) {
      CopiesAfter[size_t(R.Ready)].push_back(
          {R.Tensor, Pl->buffer(), Pl->offset(), End, Pl->size()});
      End += (Pl->size() + 15) / 16 * 16;
    } else {
      continue; // nothing has written it: no value to read
    }
    HostCopies[R.Tensor].assign(Model->Tensors[R.Tensor].Bytes, 0);
  }
  if (!End)
    return Status::ok();
  return createBuffer(*Dev, End, MemoryUse::HostVisible, ReadbackBuffer)
      .withContextIfError("the keep_intermediates readback buffer");
}

void VulkanExecutor::record(VkCommandBuffer C, bool Timestamps) const {
  const fb::VulkanPayload &P = payload();
  size_t N = P.dispatches() ? P.dispatches()->size() : 0;
  if (Timestamps)
    vkCmdResetQueryPool(C, Queries, 0, uint32_t(2 * N));
  bool Copied = false;
  for (unsigned I = 0; I < N; ++I) {
    const fb::VulkanDispatch *D = P.dispatches()->Get(I);
    VkPipelineLayout Layout = Pipes.layout(D->shader());
    vkCmdBindPipeline(C, VK_PIPELINE_BIND_POINT_COMPUTE, Pipes.pipeline(I));
    vkCmdBindDescriptorSets(C, VK_PIPELINE_BIND_POINT_COMPUTE, Layout, 0, 1,
                            &Sets[I], 0, nullptr);
    if (const auto *Push = D->push_constants(); Push && Push->size())
      vkCmdPushConstants(C, Layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                         Push->size(), Push->data());
    // Bottom of pipe after the previous barrier: every earlier dispatch is
    // done, so the pair measures this dispatch alone.
    if (Timestamps)
      vkCmdWriteTimestamp(C, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, Queries, 2 * I);
    vkCmdDispatch(C, D->group_count_x(), D->group_count_y(), D->group_count_z());
    if (Timestamps)
      vkCmdWriteTimestamp(C, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, Queries,
                          2 * I + 1);
    const std::vector<Readback> &Copies = CopiesAfter[I];
    VkPipelineStageFlags To = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
    VkAccessFlags ToAccess = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    if (!Copies.empty()) {
      To |= VK_PIPELINE_STAGE_TRANSFER_BIT;
      ToAccess |= VK_ACCESS_TRANSFER_READ_BIT;
    }
    memoryBarrier(C, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                  VK_ACCESS_SHADER_WRITE_BIT, To, ToAccess);
    if (Copies.empty())
      continue;
    for (const Readback &R : Copies) {
      VkBufferCopy Region{R.From, R.To, R.Size};
      vkCmdCopyBuffer(C, Buffers[R.Buffer].Buffer, ReadbackBuffer.Buffer, 1,
                      &Region);
    }
    // Later dispatches may reuse the bytes just read (the arena).
    memoryBarrier(C, VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
                  VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0);
    Copied = true;
  }
  memoryBarrier(C,
                VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                    (Copied ? VK_PIPELINE_STAGE_TRANSFER_BIT : 0),
                VK_ACCESS_SHADER_WRITE_BIT |
                    (Copied ? VK_ACCESS_TRANSFER_WRITE_BIT : 0),
                VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
}

Status VulkanExecutor::recordCommands() {
  VkDevice D = Dev->handle();
  size_t N = payload().dispatches() ? payload().dispatches()->size() : 0;
  bool Timestamps = N > 0 && Dev->timestampValidBits() > 0 &&
                    Dev->properties().limits.timestampPeriod > 0;
  if (Timestamps) {
    auto QInfo = vkStruct<VkQueryPoolCreateInfo>(VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO);
    QInfo.queryType = VK_QUERY_TYPE_TIMESTAMP;
    QInfo.queryCount = uint32_t(2 * N);
    if (vkCreateQueryPool(D, &QInfo, nullptr, &Queries) != VK_SUCCESS)
      Timestamps = false; // profiling then reports zeros
  }
  VkCommandBuffer Both[2] = {};
  auto Alloc = vkStruct<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
  Alloc.commandPool = Dev->commandPool();
  Alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  Alloc.commandBufferCount = Timestamps ? 2 : 1;
  if (VkResult R = vkAllocateCommandBuffers(D, &Alloc, Both))
    return outOfMemory("allocating command buffers", R);
  Cmd = Both[0];
  TimedCmd = Both[1];
  for (VkCommandBuffer C : {Cmd, TimedCmd}) {
    if (!C)
      continue;
    auto Begin = vkStruct<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
    vkBeginCommandBuffer(C, &Begin);
    record(C, C == TimedCmd);
    if (VkResult R = vkEndCommandBuffer(C))
      return outOfMemory("recording the command buffer", R);
  }
  auto FenceInfo = vkStruct<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
  if (VkResult R = vkCreateFence(D, &FenceInfo, nullptr, &Fence))
    return outOfMemory("creating a fence", R);
  return Status::ok();
}

Status VulkanExecutor::run(std::vector<uint64_t> *OpTimes) {
  if (!Dead.empty())
    return runtimeError("Vulkan: the session is unusable after an earlier "
                        "run ", Dead, "; create a new session");
  VkDevice D = Dev->handle();
  for (auto [T, B] : IoBuffer)
    flushToDevice(D, Buffers[B]);
  bool Timed = OpTimes && TimedCmd;
  VkCommandBuffer C = Timed ? TimedCmd : Cmd;
  auto Submit = vkStruct<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
  Submit.commandBufferCount = 1;
  Submit.pCommandBuffers = &C;
  VkResult R = vkQueueSubmit(Dev->queue(), 1, &Submit, Fence);
  bool Submitted = R == VK_SUCCESS;
  if (R == VK_SUCCESS)
    R = vkWaitForFences(D, 1, &Fence, VK_TRUE, RunTimeoutNs);
  if (R == VK_TIMEOUT) {
    Dead = concat("did not finish within ", RunTimeoutNs / 1000000, " ms");
    return runtimeError("Vulkan: the run ", Dead, " (kiln_vulkan_options."
                        "run_timeout_ms); the session is now unusable");
  }
  if (R == VK_ERROR_DEVICE_LOST) {
    Dead = "lost the device";
    return runtimeError("Vulkan: the device was lost during the run "
                        "(VK_ERROR_DEVICE_LOST); the session is now unusable");
  }
  if (R != VK_SUCCESS) {
    if (Submitted)
      Dead = concat("failed (", resultName(R), ")");
    return runtimeError("Vulkan: running the model failed (", resultName(R), ")");
  }
  vkResetFences(D, 1, &Fence);
  for (auto [T, B] : IoBuffer)
    invalidateForHost(D, Buffers[B]);
  if (Status S = validationVerdict())
    return S;

  const fb::VulkanPayload &P = payload();
  if (Timed) {
    size_t N = P.dispatches()->size();
    std::vector<uint64_t> Ticks(2 * N);
    R = vkGetQueryPoolResults(D, Queries, 0, uint32_t(2 * N),
                              Ticks.size() * 8, Ticks.data(), 8,
                              VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    if (R != VK_SUCCESS)
      return runtimeError("Vulkan: reading the timestamps failed (",
                          resultName(R), ")");
    uint32_t Bits = Dev->timestampValidBits();
    uint64_t Mask = Bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << Bits) - 1;
    double Period = Dev->properties().limits.timestampPeriod;
    for (unsigned I = 0; I < N; ++I) {
      int32_t Op = P.dispatches()->Get(I)->operator_();
      if (Op < 0 || size_t(Op) >= OpTimes->size())
        continue;
      uint64_t Ticks0 = Ticks[2 * I] & Mask, Ticks1 = Ticks[2 * I + 1] & Mask;
      uint64_t Delta = (Ticks1 - Ticks0) & Mask;
      (*OpTimes)[size_t(Op)] += uint64_t(double(Delta) * Period);
    }
  }
  if (ReadbackBuffer.Buffer) {
    invalidateForHost(D, ReadbackBuffer);
    for (const std::vector<Readback> &Copies : CopiesAfter)
      for (const Readback &Rb : Copies)
        placeToHost(Model->Tensors[Rb.Tensor], P.fp16(),
                    ReadbackBuffer.Mapped + Rb.To, HostCopies[Rb.Tensor].data());
  }
  for (const HostRead &H : HostReads) {
    invalidateForHost(D, Buffers[H.Buffer]);
    placeToHost(Model->Tensors[H.Tensor], P.fp16(),
                Buffers[H.Buffer].Mapped + H.Offset, HostCopies[H.Tensor].data());
  }
  return Status::ok();
}

EngineInfo VulkanExecutor::engineInfo() const {
  EngineInfo I;
  I.Device = Dev->name();
  I.Dispatches = payload().dispatches() ? payload().dispatches()->size() : 0;
  I.Pipelines = Pipes.count();
  I.PipelineCacheBytes = Cache.loadedBytes();
  I.GpuTimestamps = timesDispatches();
  I.Precision = Precision;
  I.WeightsReleasedBytes = WeightsReleasedBytes;
  return I;
}

uint8_t *VulkanExecutor::hostTensor(size_t T) const {
  if (auto It = IoBuffer.find(T); It != IoBuffer.end())
    return Buffers[It->second].Mapped;
  if (auto It = HostCopies.find(T); It != HostCopies.end())
    return const_cast<uint8_t *>(It->second.data());
  // Null for an activation with no host bytes (kiln_session_tensor then
  // fails cleanly).
  return const_cast<uint8_t *>(Model->Tensors[T].ConstData);
}

} // namespace kiln::rt::vk

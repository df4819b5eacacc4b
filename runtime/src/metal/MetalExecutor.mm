// The Metal executor (MetalExecutor.h): buffers, weight upload, per-dispatch
// plans checked against the device at creation, and the run. Compiled with
// -fobjc-arc (runtime/src/metal/Sources.cmake): the Metal objects Impl holds are
// strong references, released when the executor is destroyed; nothing here
// retains or releases by hand.
//
// Memory: every buffer is MTLResourceStorageModeShared. INPUT, OUTPUT and
// ARENA must be (the host writes inputs and reads outputs and kept
// activations in place). WEIGHTS are shared too, filled once on the host:
// every iOS device and Apple-silicon Mac has unified memory, where private
// storage buys nothing at run time, while a private buffer would need a
// staging copy of every weight at creation (twice the memory) and a blit,
// whose offsets and sizes macOS wants in multiples of 4. (An Intel Mac with
// a discrete GPU reads shared weights over PCIe: slower, still correct.)
//
// A run is one command buffer with one serial compute encoder (each
// dispatch sees what earlier ones wrote; Metal tracks the hazards of these
// buffers, whose hazard tracking is the default). Two things split it into
// several command buffers, each committed and waited for in order:
// keep_intermediates, after the last dispatch of each operator whose
// outputs live in the ARENA (their bytes are converted to the host layout
// on the host before later dispatches may reuse them), and profiling, at
// each change of operator (each command buffer's GPUStartTime..GPUEndTime
// is that operator's time; the waits between them are not counted).
#include "metal/MetalExecutor.h"

#include "gpu/GpuBuffersVerifier.h"
#include "gpu/GpuLimits.h"
#include "metal/MetalPipelines.h"
#include "gpu/GpuReadback.h"
#include "gpu/GpuReadbackPlan.h"

#import <Foundation/Foundation.h>
#import <Metal/Metal.h>
#include <TargetConditionals.h>

#include <algorithm>
#include <cstring>
#include <map>

namespace kiln::rt::metal {

namespace {

/// setBuffer:/setBytes: indices: Metal's argument table has 31 buffer slots.
constexpr uint32_t MaxBufferIndex = 30;
/// setBytes:length:atIndex: takes at most 4 KiB.
constexpr size_t MaxBytes = 4096;

/// Everything one dispatch encodes, checked at creation.
struct DispatchPlan {
  id<MTLComputePipelineState> Pipeline = nil;
  struct Bind {
    uint32_t Buffer;
    NSUInteger Offset, Index;
  };
  std::vector<Bind> Binds;
  const uint8_t *Push = nullptr;
  NSUInteger PushBytes = 0, PushIndex = 0;
  /// The kernel's buffer-size buffer: the byte size of each binding at its
  /// [[buffer(n)]] (common.glsl's bounds checks read it); empty: none.
  std::vector<uint32_t> Sizes;
  NSUInteger SizesIndex = 0;
  MTLSize Groups, Threads;
  /// A zero group count: nothing to run (Vulkan runs nothing either).
  bool Empty = false;
  int32_t Op = -1;
};

/// An activation read after dispatch `After` (keep_intermediates).
struct Readback {
  size_t Tensor;
  uint32_t Buffer;
  uint64_t Offset;
};

id<MTLDevice> defaultDevice() {
  id<MTLDevice> Dev = MTLCreateSystemDefaultDevice();
#if TARGET_OS_OSX
  // A command-line tool that links no CoreGraphics gets no default device
  // on macOS; any device will do.
  if (!Dev) {
    NSArray<id<MTLDevice>> *All = MTLCopyAllDevices();
    if (All.count)
      Dev = All[0];
  }
#endif
  return Dev;
}

} // namespace

struct MetalExecutor::Impl {
  std::shared_ptr<const LoadedModel> Model;
  bool KeepIntermediates = false;
  id<MTLDevice> Dev = nil;
  id<MTLCommandQueue> Queue = nil;
  std::string DeviceName;
  std::vector<id<MTLBuffer>> Buffers;
  uint64_t ArenaBytes = 0;
  /// Bytes of the mapped file dropped after their copy (createBuffers).
  uint64_t WeightsReleasedBytes = 0;
  Pipelines Pipes;
  std::vector<DispatchPlan> Plans;
  /// Graph input/output tensor -> its INPUT/OUTPUT buffer.
  std::map<size_t, size_t> IoBuffer;
  /// Reads after dispatch i (keep_intermediates), by dispatch.
  std::vector<std::vector<Readback>> ReadsAfter;
  /// Kept activations in INPUT, OUTPUT or WEIGHTS buffers: read after the
  /// run, which does not change them.
  std::vector<Readback> HostReads;
  /// Kept activations in the host layout, by tensor.
  std::map<size_t, std::vector<uint8_t>> HostCopies;

  const fb::MetalPayload &payload() const {
    return *Model->Root->payload_as_MetalPayload();
  }
  size_t numDispatches() const {
    return payload().dispatches() ? payload().dispatches()->size() : 0;
  }
  Status createBuffers();
  Status planDispatches();
  Status planReadback();
  Status submit(size_t Begin, size_t End, double *Seconds);
  void readBack(const Readback &R);
};

MetalExecutor::MetalExecutor() : I(new Impl()) {}
MetalExecutor::~MetalExecutor() = default;

Status MetalExecutor::create(std::shared_ptr<const LoadedModel> Model,
                             const SessionOptions &Opts,
                             std::unique_ptr<MetalExecutor> &Out) {
  if (!Model->Root->payload_as_MetalPayload()) // the loader refuses it first
    return invalidModel("the Metal file has no MetalPayload");
  std::unique_ptr<MetalExecutor> E(new MetalExecutor());
  Impl &M = *E->I;
  M.Model = std::move(Model);
  M.KeepIntermediates = Opts.KeepIntermediates;
  @autoreleasepool {
    M.Dev = defaultDevice();
    if (!M.Dev)
      return unsupported("Metal: this system has no Metal device");
    const char *Name = M.Dev.name.UTF8String;
    M.DeviceName = Name ? Name : "";
    M.Queue = [M.Dev newCommandQueue];
    if (!M.Queue)
      return runtimeError("Metal: creating a command queue on ", M.DeviceName,
                          " failed");
    if (Status S = M.createBuffers())
      return S;
    if (Opts.MaxArenaBytes && M.ArenaBytes > Opts.MaxArenaBytes)
      return {KILN_ERROR_OUT_OF_MEMORY,
              concat("the model's Metal arena takes ", M.ArenaBytes,
                     " bytes, over max_arena_bytes (", Opts.MaxArenaBytes,
                     ")")};
    if (Status S = M.Pipes.create(M.Dev, M.payload(), Opts.Metal.BinaryArchivePath))
      return S;
    if (Status S = M.planDispatches())
      return S;
    if (Status S = M.planReadback())
      return S;
  }
  Out = std::move(E);
  return Status::ok();
}

Status MetalExecutor::Impl::createBuffers() {
  const fb::MetalPayload &P = payload();
  const fb::Model &Root = *Model->Root;
  const uint8_t *File = Model->Bytes->data();
  size_t N = P.buffers() ? P.buffers()->size() : 0;
  // Copies of each segment still to come: its file pages go after the
  // last (a segment may fill several buffers).
  std::vector<uint32_t> UploadsLeft(Root.buffers() ? Root.buffers()->size() : 0,
                                    0);
  for (unsigned Index = 0; Index < N; ++Index)
    if (const fb::VulkanBuffer *B = P.buffers()->Get(Index);
        B->kind() == fb::VulkanBufferKind::WEIGHTS && B->uploads())
      for (const fb::VulkanUpload *U : *B->uploads())
        ++UploadsLeft[U->segment()];
  uint64_t MaxLength = UINT64_MAX;
  if (@available(macOS 10.14, iOS 12.0, *))
    MaxLength = Dev.maxBufferLength;
  Buffers.assign(N, nil);
  for (unsigned Index = 0; Index < N; ++Index) {
    const fb::VulkanBuffer *B = P.buffers()->Get(Index);
    // Past the size, the slack a bounds check of an empty binding may read
    // (gpu/GpuLimits.h); Metal makes no empty buffers anyway.
    uint64_t Length = B->size() + limits::GpuBufferSlackBytes;
    if (Length > MaxLength)
      return {KILN_ERROR_OUT_OF_MEMORY,
              concat("Metal buffer ", Index, " is ", Length, " bytes, over ",
                     DeviceName, "'s maxBufferLength (", MaxLength, ")")};
    id<MTLBuffer> Buf = [Dev newBufferWithLength:NSUInteger(Length)
                                         options:MTLResourceStorageModeShared];
    if (!Buf)
      return {KILN_ERROR_OUT_OF_MEMORY,
              concat("Metal: creating buffer ", Index, " of ", Length,
                     " bytes failed")};
    auto *Bytes = static_cast<uint8_t *>(Buf.contents);
    // Defined contents: inputs before the first set_input, the padding of
    // weights, and the arena (its contents are undefined to the kernels,
    // but zeros make runs reproducible).
    std::memset(Bytes, 0, NSUInteger(Length));
    switch (B->kind()) {
    case fb::VulkanBufferKind::ARENA:
      ArenaBytes += B->size();
      break;
    case fb::VulkanBufferKind::WEIGHTS:
      if (const auto *Ups = B->uploads())
        for (const fb::VulkanUpload *U : *Ups) {
          // The verifier keeps each segment inside the file and the buffer.
          const fb::Buffer *Seg = Root.buffers()->Get(U->segment());
          std::memcpy(Bytes + U->offset(), File + Seg->offset(), Seg->size());
          // The shared buffers are now the copy that stays: after the
          // segment's last copy, drop the mapped file's pages of it (as
          // VulkanExecutor::uploadWeights does).
          if (--UploadsLeft[U->segment()] == 0)
            WeightsReleasedBytes +=
                Model->Bytes->releasePages(File + Seg->offset(), Seg->size());
        }
      break;
    case fb::VulkanBufferKind::INPUT:
      IoBuffer[size_t(Model->Inputs[size_t(B->io_index())])] = Index;
      break;
    case fb::VulkanBufferKind::OUTPUT:
      IoBuffer[size_t(Model->Outputs[size_t(B->io_index())])] = Index;
      break;
    default:
      return invalidModel("Metal buffer ", Index, " has unknown kind ",
                          unsigned(B->kind()));
    }
    Buf.label = [NSString stringWithFormat:@"kiln buffer %u", Index];
    Buffers[Index] = Buf;
  }
  return Status::ok();
}

Status MetalExecutor::Impl::planDispatches() {
  const fb::MetalPayload &P = payload();
  size_t N = numDispatches();
  MTLSize MaxThreads = Dev.maxThreadsPerThreadgroup;
  uint64_t MaxThreadgroupMemory = 0;
  if (@available(macOS 10.13, iOS 11.0, *))
    MaxThreadgroupMemory = Dev.maxThreadgroupMemoryLength;
  Plans.resize(N);
  for (size_t D = 0; D < N; ++D) {
    const fb::MetalDispatch *Dp = P.dispatches()->Get(unsigned(D));
    const fb::MetalKernel *K = P.kernels()->Get(Dp->kernel());
    std::string Where =
        concat("Metal dispatch ", D, " (", kernelName(P, Dp->kernel()), "): ");
    DispatchPlan &Plan = Plans[D];
    Plan.Pipeline = Pipes.pipeline(D);
    Plan.Op = Dp->operator_();

    // Storage buffers: binding i at [[buffer(buffer_indices[i])]].
    uint32_t NumBindings = Dp->bindings() ? Dp->bindings()->size() : 0;
    uint32_t NumIndices = K->buffer_indices() ? K->buffer_indices()->size() : 0;
    if (NumBindings != NumIndices)
      return invalidModel(Where, NumBindings, " buffer bindings, and the kernel "
                          "takes ", NumIndices, " buffers");
    for (uint32_t B = 0; B < NumBindings; ++B) {
      const fb::VulkanBinding *Bd = Dp->bindings()->Get(B);
      uint32_t Index = K->buffer_indices()->Get(B);
      if (Bd->buffer() >= Buffers.size() ||
          Bd->offset() > Buffers[Bd->buffer()].length || Index > MaxBufferIndex)
        return invalidModel(Where, "binding ", B, " (buffer ", Bd->buffer(),
                            ", offset ", Bd->offset(), ", [[buffer(", Index,
                            ")]]) is out of range");
      Plan.Binds.push_back({Bd->buffer(), NSUInteger(Bd->offset()), Index});
    }
    // The bindings' sizes for the kernel's bounds checks (the verifier
    // keeps the index free and each size within 32 bits).
    if (K->buffer_size_index() >= 0) {
      Plan.Sizes.assign(MaxBufferIndex + 1, 0);
      for (uint32_t B = 0; B < NumBindings; ++B)
        Plan.Sizes[K->buffer_indices()->Get(B)] =
            uint32_t(Dp->bindings()->Get(B)->size());
      Plan.SizesIndex = NSUInteger(K->buffer_size_index());
    }

    // The push-constant block, by value.
    const auto *Push = Dp->push_constants();
    uint32_t PushBytes = Push ? Push->size() : 0;
    if (K->push_constant_index() >= 0 && K->push_constant_bytes() > 0) {
      if (PushBytes < K->push_constant_bytes() || PushBytes > MaxBytes ||
          uint32_t(K->push_constant_index()) > MaxBufferIndex)
        return invalidModel(Where, PushBytes, " push-constant bytes at [[buffer(",
                            K->push_constant_index(), ")]], and the kernel "
                            "reads ", K->push_constant_bytes(), " (at most ",
                            MaxBytes, " at an index up to ", MaxBufferIndex,
                            ")");
      Plan.Push = Push->data();
      Plan.PushBytes = PushBytes;
      Plan.PushIndex = NSUInteger(K->push_constant_index());
    }

    // Threadgroups: each dimension within the device's, the product within
    // the pipeline's.
    Plan.Threads = MTLSizeMake(Dp->threads_per_threadgroup_x(),
                               Dp->threads_per_threadgroup_y(),
                               Dp->threads_per_threadgroup_z());
    Plan.Groups = MTLSizeMake(Dp->threadgroups_x(), Dp->threadgroups_y(),
                              Dp->threadgroups_z());
    NSUInteger Threads[3] = {Plan.Threads.width, Plan.Threads.height,
                             Plan.Threads.depth};
    NSUInteger Max[3] = {MaxThreads.width, MaxThreads.height, MaxThreads.depth};
    uint64_t Total = 1;
    for (unsigned A = 0; A < 3; ++A) {
      if (Threads[A] == 0 || Threads[A] > Max[A])
        return invalidModel(Where, "threads per threadgroup ", "xyz"[A], " is ",
                            Threads[A], ", outside [1, ", Max[A], "] on ",
                            DeviceName);
      Total *= Threads[A];
    }
    // The size the kernel was specialized for (SPIRV-Cross's
    // gl_WorkGroupSize: the function constant's value, else the kernel's
    // threadgroup_size) must be the one dispatched, or the kernel would
    // compute with the wrong size.
    const auto *Fixed = K->threadgroup_size();
    const auto *SetBy = K->threadgroup_size_constants();
    if (Fixed && Fixed->size() == 3)
      for (unsigned A = 0; A < 3; ++A) {
        uint64_t Expected = Fixed->Get(A);
        if (SetBy && SetBy->size() == 3 && SetBy->Get(A) >= 0 &&
            Dp->function_constants())
          for (const fb::VulkanSpecConstant *C : *Dp->function_constants())
            if (int64_t(C->id()) == int64_t(SetBy->Get(A)))
              Expected = C->value();
        if (Expected != Threads[A])
          return invalidModel(Where, "threads per threadgroup ", "xyz"[A],
                              " is ", Threads[A], ", and the kernel was "
                              "specialized for ", Expected);
      }
    if (Total > Plan.Pipeline.maxTotalThreadsPerThreadgroup)
      return invalidModel(Where, "threadgroups of ", Total, " threads, over "
                          "the pipeline's maxTotalThreadsPerThreadgroup (",
                          Plan.Pipeline.maxTotalThreadsPerThreadgroup, ") on ",
                          DeviceName);
    // threadgroup_memory_bytes needs no setThreadgroupMemoryLength:atIndex::
    // SPIRV-Cross declares a kernel's threadgroup (shared) arrays inside the
    // function, where they are static (the pipeline's
    // staticThreadgroupMemoryLength); the kernels take no [[threadgroup(n)]]
    // parameters. Only the device's limit is checked.
    if (MaxThreadgroupMemory && K->threadgroup_memory_bytes() > MaxThreadgroupMemory)
      return invalidModel(Where, K->threadgroup_memory_bytes(),
                          " bytes of threadgroup memory, over ", DeviceName,
                          "'s maxThreadgroupMemoryLength (",
                          MaxThreadgroupMemory, ")");
    Plan.Empty = Plan.Groups.width == 0 || Plan.Groups.height == 0 ||
                 Plan.Groups.depth == 0;
  }
  return Status::ok();
}

Status MetalExecutor::Impl::planReadback() {
  const fb::MetalPayload &P = payload();
  size_t N = numDispatches();
  ReadsAfter.assign(N, {});
  if (!KeepIntermediates || !P.places())
    return Status::ok();
  std::vector<int32_t> Operators;
  for (size_t D = 0; D < N; ++D)
    Operators.push_back(P.dispatches()->Get(unsigned(D))->operator_());
  for (const PlannedRead &Plan : planGpuReadback(
           *Model, P.places(), P.buffers(), Operators,
           [&](size_t T) { return IoBuffer.count(T) != 0; })) {
    const fb::VulkanTensorPlace *Pl = Plan.Place;
    const TensorDesc &Desc = Model->Tensors[Plan.Tensor];
    if (Pl->buffer() >= Buffers.size() ||
        Pl->offset() > Buffers[Pl->buffer()].length ||
        vulkanPlaceBytes(Desc, P.fp16()) >
            Buffers[Pl->buffer()].length - Pl->offset())
      return invalidModel("Metal: the place of tensor ", Plan.Tensor,
                          " is outside buffer ", Pl->buffer());
    Readback R{Plan.Tensor, Pl->buffer(), Pl->offset()};
    if (!Plan.Arena) // no dispatch changes INPUT, OUTPUT or WEIGHTS bytes later
      HostReads.push_back(R);
    else if (Plan.Ready >= 0)
      ReadsAfter[size_t(Plan.Ready)].push_back(R);
    else
      continue; // nothing has written it: no value to read
    HostCopies[Plan.Tensor].assign(Desc.Bytes, 0);
  }
  return Status::ok();
}

Status MetalExecutor::Impl::submit(size_t Begin, size_t End, double *Seconds) {
  @autoreleasepool {
    id<MTLCommandBuffer> Cmd = [Queue commandBuffer];
    if (!Cmd)
      return runtimeError("Metal: creating a command buffer failed");
    // Serial: each dispatch runs after the previous one and sees its writes.
    id<MTLComputeCommandEncoder> Enc = [Cmd computeCommandEncoder];
    if (!Enc)
      return runtimeError("Metal: creating a compute command encoder failed");
    for (size_t D = Begin; D < End; ++D) {
      const DispatchPlan &Plan = Plans[D];
      if (Plan.Empty)
        continue;
      [Enc setComputePipelineState:Plan.Pipeline];
      for (const DispatchPlan::Bind &B : Plan.Binds)
        [Enc setBuffer:Buffers[B.Buffer] offset:B.Offset atIndex:B.Index];
      if (Plan.Push)
        [Enc setBytes:Plan.Push length:Plan.PushBytes atIndex:Plan.PushIndex];
      if (!Plan.Sizes.empty())
        [Enc setBytes:Plan.Sizes.data()
               length:Plan.Sizes.size() * sizeof(uint32_t)
              atIndex:Plan.SizesIndex];
      [Enc dispatchThreadgroups:Plan.Groups threadsPerThreadgroup:Plan.Threads];
    }
    [Enc endEncoding];
    [Cmd commit];
    [Cmd waitUntilCompleted];
    if (Cmd.status != MTLCommandBufferStatusCompleted)
      return runtimeError("Metal: running dispatches ", Begin, " to ", End - 1,
                          " failed (command buffer status ",
                          long(Cmd.status), "): ", describe(Cmd.error));
    if (Seconds) {
      *Seconds = 0;
      if (@available(macOS 10.15, iOS 10.3, *))
        *Seconds = Cmd.GPUEndTime - Cmd.GPUStartTime;
    }
  }
  return Status::ok();
}

void MetalExecutor::Impl::readBack(const Readback &R) {
  const auto *Bytes = static_cast<const uint8_t *>(Buffers[R.Buffer].contents);
  placeToHost(Model->Tensors[R.Tensor], payload().fp16(), Bytes + R.Offset,
              HostCopies[R.Tensor].data());
}

Status MetalExecutor::run(std::vector<uint64_t> *OpTimes) {
  Impl &M = *I;
  size_t N = M.numDispatches();
  // Where a new command buffer starts before dispatch D: after reads
  // (keep_intermediates), and, profiling, where the operator changes.
  auto Splits = [&](size_t D) {
    if (!M.ReadsAfter[D - 1].empty())
      return true;
    return OpTimes && M.Plans[D].Op != M.Plans[D - 1].Op;
  };
  for (size_t Begin = 0; Begin < N;) {
    size_t End = Begin + 1;
    while (End < N && !Splits(End))
      ++End;
    double Seconds = 0;
    if (Status S = M.submit(Begin, End, OpTimes ? &Seconds : nullptr))
      return S;
    for (const Readback &R : M.ReadsAfter[End - 1])
      M.readBack(R);
    if (int32_t Op = M.Plans[Begin].Op;
        OpTimes && Op >= 0 && size_t(Op) < OpTimes->size() && Seconds > 0)
      (*OpTimes)[size_t(Op)] += uint64_t(Seconds * 1e9);
    Begin = End;
  }
  for (const Readback &R : M.HostReads)
    M.readBack(R);
  return Status::ok();
}

uint8_t *MetalExecutor::hostTensor(size_t T) const {
  if (auto It = I->IoBuffer.find(T); It != I->IoBuffer.end())
    return static_cast<uint8_t *>(I->Buffers[It->second].contents);
  if (auto It = I->HostCopies.find(T); It != I->HostCopies.end())
    return const_cast<uint8_t *>(It->second.data());
  // Null for an activation with no host bytes (kiln_session_tensor then
  // fails cleanly).
  return const_cast<uint8_t *>(I->Model->Tensors[T].ConstData);
}

uint64_t MetalExecutor::arenaBytes() const { return I->ArenaBytes; }

EngineInfo MetalExecutor::engineInfo() const {
  EngineInfo Info;
  Info.Device = I->DeviceName;
  Info.Dispatches = I->numDispatches();
  Info.Pipelines = I->Pipes.count();
  Info.PipelineCacheBytes = I->Pipes.archiveBytes();
  Info.WeightsReleasedBytes = I->WeightsReleasedBytes;
  // Profiled runs time each operator's command buffer on the GPU clock.
  if (@available(macOS 10.15, iOS 10.3, *))
    Info.GpuTimestamps = true;
  Info.Precision =
      I->payload().fp16() ? "fp16 storage, fp16 arithmetic" : "fp32";
  return Info;
}

} // namespace kiln::rt::metal

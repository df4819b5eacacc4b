// The loader's checks of what the Vulkan and Metal payloads share (schema
// 1.5 and 1.7): the buffer list (arena, weights filled from segments,
// one INPUT and one OUTPUT buffer per graph input and output, of exactly
// its bytes) and the places of activations inside those buffers. Api
// ("Vulkan", "Metal") starts every message.
#pragma once

#include "Status.h"

#include "schema/kiln_generated.h"

#include <vector>

namespace kiln::rt {

struct LoadedModel;
struct TensorDesc;

/// A Vulkan or Metal file's graph inputs and outputs are f32 in the
/// caller's layout (INPUT and OUTPUT buffers hold exactly their bytes); an
/// image input is the u8 frame.
Status verifyGpuIo(const LoadedModel &LM);

using GpuBuffers = flatbuffers::Vector<flatbuffers::Offset<fb::VulkanBuffer>>;
using GpuPlaces = flatbuffers::Vector<flatbuffers::Offset<fb::VulkanTensorPlace>>;

Status verifyGpuBuffers(const fb::Model &M, const GpuBuffers *Buffers,
                        const std::vector<TensorDesc> &Tensors, const char *Api);

Status verifyGpuPlaces(const GpuBuffers *Buffers, const GpuPlaces *Places,
                       const std::vector<TensorDesc> &Tensors, bool Fp16,
                       const char *Api);

/// Binding I of a dispatch: a buffer of the payload, not empty, inside it.
Status verifyGpuBinding(const GpuBuffers *Buffers, unsigned I,
                        const fb::VulkanBinding &B);

/// A dispatch's grid (What: "group count", "threadgroups"), each count in
/// [1, limits::MaxVulkanGroupCount], and the operator it names (-1: none).
Status verifyGpuGridAndOperator(const fb::Model &M, const uint32_t Groups[3],
                                int32_t Operator, const char *What);
/// A workgroup of Local[0] x Local[1] x Local[2] within what every device
/// runs (limits::MaxWorkgroupSize, MaxWorkgroupInvocations).
Status verifyGpuWorkgroup(const uint64_t Local[3], const char *What);
/// Groups x Local invocations within BoundBytes (the bytes the dispatch
/// binds) plus limits::InvocationSlack.
Status verifyGpuInvocations(const uint32_t Groups[3], const uint64_t Local[3],
                            uint64_t BoundBytes, const char *What);

/// Offset + Size inside a buffer of Limit bytes, without overflow.
inline bool insideBuffer(uint64_t Offset, uint64_t Size, uint64_t Limit) {
  uint64_t End;
  return !__builtin_add_overflow(Offset, Size, &End) && End <= Limit;
}

/// Bytes tensor D takes in its device layout inside a place: C4 pads the
/// channels to a multiple of 4; fp16 payloads store float tensors in 2
/// bytes an element.
uint64_t vulkanPlaceBytes(const TensorDesc &D, bool Fp16);

/// Bytes of one element of D on the device.
size_t vulkanElementSize(const TensorDesc &D, bool Fp16);

} // namespace kiln::rt

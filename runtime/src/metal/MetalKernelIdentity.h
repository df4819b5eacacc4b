// What makes a Metal kernel record one of kiln's kernels: its MSL, the MSL
// version it is compiled at (the payload's), and every field the executor
// binds by (entry point, buffer, push-constant and buffer-size indices,
// function constants, threadgroup size and memory), in one byte string
// whose SHA-256 the runtime's Metal catalog holds (gpu/KernelCatalog.h).
// The build's tool (backends/metal/MetalKernelIdentitiesMain.cpp) writes
// the same bytes for the records the compiler writes, so a kernel whose MSL
// is kiln's but whose indices or version lie does not match. Header-only:
// the tool cannot link the runtime, whose build needs the tool's output.
#pragma once

#include "schema/kiln_generated.h"

#include <cstdint>
#include <string>

namespace kiln::rt {

inline std::string metalKernelIdentity(const fb::MetalKernel &K,
                                       uint32_t MslVersion) {
  std::string Out;
  auto U32 = [&](uint32_t V) {
    for (unsigned B = 0; B < 4; ++B)
      Out += char((V >> (8 * B)) & 0xff);
  };
  auto Str = [&](const flatbuffers::String *S) {
    U32(S ? uint32_t(S->size()) : 0);
    if (S)
      Out.append(S->data(), S->size());
  };
  Out += "kiln metal kernel 1";
  U32(MslVersion);
  Str(K.msl());
  Str(K.entry_point());
  U32(K.buffer_indices() ? K.buffer_indices()->size() : 0);
  if (K.buffer_indices())
    for (uint32_t I : *K.buffer_indices())
      U32(I);
  U32(uint32_t(K.push_constant_index()));
  U32(K.push_constant_bytes());
  U32(uint32_t(K.buffer_size_index()));
  U32(K.function_constants() ? K.function_constants()->size() : 0);
  if (K.function_constants())
    for (const fb::MetalFunctionConstant *C : *K.function_constants()) {
      U32(C->id());
      U32(uint32_t(C->type()));
    }
  U32(K.threadgroup_size() ? K.threadgroup_size()->size() : 0);
  if (K.threadgroup_size())
    for (uint32_t S : *K.threadgroup_size())
      U32(S);
  U32(K.threadgroup_size_constants() ? K.threadgroup_size_constants()->size()
                                     : 0);
  if (K.threadgroup_size_constants())
    for (int32_t C : *K.threadgroup_size_constants())
      U32(uint32_t(C));
  U32(K.threadgroup_memory_bytes());
  return Out;
}

} // namespace kiln::rt

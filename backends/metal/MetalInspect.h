// The Metal section of `kiln inspect` on a .kiln file for the Metal target
// (schema 1.7, MetalPayload): the MSL version, the kernels (MSL translated
// from the Vulkan kernels: entry point, buffer indices, push-constant index,
// function constants, threadgroup size and memory) and how often each is
// dispatched, the dispatches in order (kernel, operator, threadgroups,
// threads per threadgroup, function constants, bindings), the buffer plan
// and the byte totals. Rendering only reads the payload; it needs no device
// and compiles no MSL.
#pragma once

#include "backends/gpu/GpuInspect.h"
#include "schema/kiln_generated.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kiln {

/// Without --nodes, dispatches are listed one a line up to this many.
constexpr size_t MetalDispatchListLimit = GpuDispatchListLimit;

/// What the section shows of one kernel, for the renderers and tests.
struct MetalKernelStats {
  std::string Name;
  std::string EntryPoint;
  uint64_t MslBytes = 0;
  int64_t Dispatches = 0;
  std::vector<uint32_t> BufferIndices;
  /// [[buffer(n)]] of the push-constant block and its bytes; -1, 0: none.
  int32_t PushConstantIndex = -1;
  uint32_t PushConstantBytes = 0;
  /// [[buffer(n)]] of the binding sizes its bounds checks read (1.12); -1:
  /// none.
  int32_t BufferSizeIndex = -1;
  size_t FunctionConstants = 0;
  /// Each of x, y, z: "fcN" where function constant N sets it, else the
  /// fixed size: "[fc0,fc1,fc2]", "[64,1,1]".
  std::string Threadgroup;
  uint32_t ThreadgroupMemoryBytes = 0;
};

struct MetalTotals : GpuBufferTotals {
  uint64_t MslBytes = 0;
};

/// MetalPayload.msl_version (major * 10000 + minor * 100) as "2.1"; a patch
/// level, if any, as "2.1.3".
std::string mslVersionText(uint32_t Version);

std::vector<MetalKernelStats> metalKernels(const fb::MetalPayloadT &P);
MetalTotals metalTotals(const fb::ModelT &M, const fb::MetalPayloadT &P);

/// The text section ("" when M has no Metal payload). Detail lists every
/// dispatch; without it only up to MetalDispatchListLimit are listed.
std::string metalTextSection(const fb::ModelT &M, bool Detail);

/// The same data as JSON (null when M has no Metal payload). Every dispatch
/// is listed; sizes, indices and constants are numbers.
llvm::json::Value metalJsonSection(const fb::ModelT &M);

/// The file's kernel names, in file order, and one kernel's MSL verbatim
/// (`kiln inspect --kernel`; bad input for a name it lacks).
std::vector<std::string> metalKernelNames(const fb::ModelT &M);
llvm::Expected<std::string> metalKernelSource(const fb::ModelT &M,
                                              llvm::StringRef Name);

} // namespace kiln

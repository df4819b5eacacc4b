// What the Vulkan and Metal sections of `kiln inspect` share: both targets
// lower the same way (schema 1.7's MetalPayload reuses VulkanBuffer and
// VulkanTensorPlace), so the buffer plan, the byte totals over it, the
// dispatch bindings, the constants beyond the workgroup size and the table
// layout are rendered here once.
#pragma once

#include "schema/kiln_generated.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln {

/// Without --nodes, a GPU section lists dispatches one a line up to this
/// many.
constexpr size_t GpuDispatchListLimit = 200;

/// Device bytes of a GPU buffer plan, by buffer kind.
struct GpuBufferTotals {
  /// Device bytes of the WEIGHTS buffers, and of the segments uploaded into
  /// them.
  uint64_t WeightsBytes = 0;
  uint64_t UploadedBytes = 0;
  uint64_t ArenaBytes = 0;
  uint64_t InputBytes = 0;
  uint64_t OutputBytes = 0;
};

using GpuBuffers = std::vector<std::unique_ptr<fb::VulkanBufferT>>;

GpuBufferTotals gpuBufferTotals(const fb::ModelT &M, const GpuBuffers &Buffers);

/// The name of the operator a dispatch computes; "-" for none.
std::string gpuOperatorName(const fb::ModelT &M, int32_t Op);

/// Constant Id of a dispatch's (id, value) list, if set.
std::optional<uint32_t> gpuConstant(const std::vector<fb::VulkanSpecConstant> &C,
                                    uint32_t Id);

/// The constants from id FirstId on: "3=16 4=1", "-". Vulkan's text starts
/// at 3, after the workgroup size (ids 0..2, its own column); Metal's at 0,
/// since its function constants are what the pipeline is compiled with.
std::string gpuConstantsText(const std::vector<fb::VulkanSpecConstant> &C,
                                  uint32_t FirstId = 3);
llvm::json::Array gpuConstantsJson(const std::vector<fb::VulkanSpecConstant> &C,
                                        uint32_t FirstId = 3);

/// A dispatch's bindings: "buf#0[0, +1024] buf#1[0, +64]", "-".
std::string gpuBindingsText(const std::vector<fb::VulkanBinding> &B);
llvm::json::Array gpuBindingsJson(const std::vector<fb::VulkanBinding> &B);

/// "[x,y,z]".
std::string gpuTripleText(uint32_t X, uint32_t Y, uint32_t Z);

std::string gpuPad(std::string S, size_t Width);
std::string gpuPadLeft(const std::string &S, size_t Width);

/// Head and Rows as a table indented by four spaces, columns two spaces
/// apart and as wide as their widest cell; the columns in RightAligned are
/// right-aligned, the last column is not padded.
void gpuTable(llvm::raw_ostream &OS, const std::vector<std::string> &Head,
              const std::vector<std::vector<std::string>> &Rows,
              const std::vector<size_t> &RightAligned);

/// "  buffers: N", one line per buffer, and "  places: N activations".
void gpuBuffersText(llvm::raw_ostream &OS, const fb::ModelT &M,
                    const GpuBuffers &Buffers, size_t Places);
llvm::json::Array gpuBuffersJson(const fb::ModelT &M, const GpuBuffers &Buffers);

/// "  bytes:" with the kernels' bytes (named KernelLabel: "SPIR-V", "MSL")
/// and the totals.
void gpuBytesText(llvm::raw_ostream &OS, llvm::StringRef KernelLabel,
                  uint64_t KernelBytes, const GpuBufferTotals &T);
/// {KernelKey: KernelBytes, "weights", "uploaded", "arena", "inputs",
/// "outputs"}.
llvm::json::Object gpuBytesJson(llvm::StringRef KernelKey, uint64_t KernelBytes,
                                const GpuBufferTotals &T);

} // namespace kiln

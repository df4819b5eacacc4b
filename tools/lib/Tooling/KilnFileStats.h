// A .kiln file as `kiln inspect` and `kiln diff` see it: the verified
// FlatBuffer unpacked, and what it counts: operators by kind and engine,
// constants by dtype, MACs per operator, where the bytes of the file go, and
// each operator's provenance (Operator.sources, schema 1.2).
#pragma once

#include "schema/kiln_generated.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kiln {

/// Where the bytes of a .kiln file go; the parts add up to FileBytes.
struct KilnSizeBreakdown {
  uint64_t FileBytes = 0;
  /// The FlatBuffer: header, metadata, tensors, operators, less the target
  /// blobs it holds (counted in TargetBlobBytes instead).
  uint64_t FlatBufferBytes = 0;
  uint64_t SegmentBytes = 0;
  uint64_t SegmentCount = 0;
  /// Zeros that put every segment at a multiple of 64.
  uint64_t PaddingBytes = 0;
  /// The zeros after the last segment (over-read guard).
  uint64_t TailBytes = 0;
  /// Target blobs inside the FlatBuffer: the SPIR-V words of a Vulkan file
  /// (VulkanShader.spirv, 4 bytes each), the MSL of a Metal file
  /// (MetalKernel.msl); none for the CPU target.
  uint64_t TargetBlobBytes = 0;
};

struct KilnOperatorStats {
  const fb::OperatorT *Op = nullptr;
  /// The part of a partitioned file the operator is in, whose tensors its
  /// indices name (KilnFileStats::modelOf); -1 in any other file.
  int32_t Part = -1;
  std::string Kind;   // "CONV_2D", "BINARY.ADD", "UNARY.CLAMP"
  /// "xnnpack", "reference", "any"; "vulkan" for every operator of a Vulkan
  /// file, whose dispatches the payload lists (Operator.engine is a CPU
  /// field the Vulkan compiler leaves at its default).
  std::string Engine;
  int64_t Macs = 0;
  int64_t Params = 0; // elements of constant inputs
};

struct KilnFileStats {
  std::string Path;
  fb::ModelT Model;
  KilnSizeBreakdown Size;
  /// Kind -> engine -> count.
  std::map<std::string, std::map<std::string, int64_t>> OpHistogram;
  /// DType name -> (elements, bytes) of constant tensors.
  std::map<std::string, std::pair<int64_t, int64_t>> ParamsByType;
  std::vector<KilnOperatorStats> Operators;
  int64_t TotalMacs = 0;
  /// A partitioned file's parts (schema 1.13), as PartitionedPayload lists
  /// them, each read as a file of its own; the histograms, operators and
  /// MACs above are then theirs, summed in schedule order.
  std::vector<KilnFileStats> Parts;

  /// The model whose tensors O's indices name.
  const fb::ModelT &modelOf(const KilnOperatorStats &O) const {
    return O.Part < 0 ? Model : Parts[size_t(O.Part)].Model;
  }
};

/// Reads and verifies Path (the runtime's verifier), then counts. Errors
/// name the file.
llvm::Expected<KilnFileStats> readKilnFileStats(llvm::StringRef Path);

/// Counts a model already read (and, for anything but tests, verified):
/// FileBytes is the length of the file it came from. Constants are counted
/// by their logical shape whatever their layout (BLOCKED, PACKED), and
/// MACs from the logical dims of activations (NHWC, C4).
KilnFileStats kilnFileStatsOf(fb::ModelT Model, std::string Path,
                              uint64_t FileBytes);

/// The bytes of the target blobs in M (see KilnSizeBreakdown).
uint64_t kilnTargetBlobBytes(const fb::ModelT &M);

/// "f32[1,3,64,64] NCHW" for a tensor of the file.
/// A symbolic dim (schema 1.9) shows as its symbol ("N", "2N") when the
/// model's Symbols are given, else as "?".
std::string describeKilnTensor(const fb::TensorT &T,
                               const std::vector<std::string> &Symbols = {});

/// "F32" -> "f32".
std::string kilnDTypeName(fb::DType T);

} // namespace kiln

// The Metal executor's compute pipelines (Objective-C++, included only by
// the .mm files; compiled with ARC, so the Metal objects below are strong
// references released with their owner). Each MetalKernel's MSL is compiled
// once (newLibraryWithSource:, the payload's MSL version, fast math off),
// the first time a dispatch uses it; each distinct (kernel, function-constant
// values) gets one MTLComputePipelineState, shared by every dispatch that
// asks for the same values. With an MTLBinaryArchive path (macOS 11, iOS 14)
// pipelines are looked up there first and the ones compiled are added and
// written back; any failure there only costs compile time.
#pragma once

#import <Metal/Metal.h>

#include "Status.h"
#include "loader/LoadedModel.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kiln::rt::metal {

/// "Metal kernel 3 (conv2d_c4)": how errors name a kernel.
std::string kernelName(const fb::MetalPayload &P, uint32_t Kernel);
/// An NSError's description, or "unknown error" for nil.
std::string describe(NSError *Err);

class Pipelines {
public:
  /// Creates the pipeline of every dispatch of P on Dev. ArchivePath: see
  /// MetalOptions::BinaryArchivePath ("" for none). KILN_ERROR_UNSUPPORTED
  /// for an MSL version this OS lacks; KILN_ERROR_INVALID_MODEL for MSL
  /// that does not compile, an unknown entry point or function constant.
  Status create(id<MTLDevice> Dev, const fb::MetalPayload &P,
                const std::string &ArchivePath);

  /// The pipeline dispatch D runs.
  id<MTLComputePipelineState> pipeline(size_t D) const { return ByDispatch[D]; }
  /// Distinct pipelines created.
  size_t count() const { return Cache.size(); }
  /// Bytes of the binary archive file the session started from (0: none,
  /// or it could not be read).
  uint64_t archiveBytes() const { return ArchiveBytes; }

private:
  Status library(id<MTLDevice> Dev, const fb::MetalPayload &P, uint32_t K,
                 MTLLanguageVersion Version, __strong id<MTLLibrary> &Out);
  Status pipelineFor(id<MTLDevice> Dev, const fb::MetalPayload &P, size_t D,
                     MTLLanguageVersion Version,
                     __strong id<MTLComputePipelineState> &Out);

  /// By kernel; nil until a dispatch uses it.
  std::vector<id<MTLLibrary>> Libraries;
  /// (kernel, each (id << 32 | value) of the dispatch's function constants).
  using Key = std::pair<uint32_t, std::vector<uint64_t>>;
  std::map<Key, id<MTLComputePipelineState>> Cache;
  std::vector<id<MTLComputePipelineState>> ByDispatch;
  /// The id<MTLBinaryArchive> (typed id: the protocol exists from macOS 11
  /// and iOS 14 only, and is used inside availability checks); nil: none.
  id Archive = nil;
  std::string ArchivePath;
  /// Pipelines added to Archive that were not in it.
  bool ArchiveDirty = false;
  uint64_t ArchiveBytes = 0;
};

} // namespace kiln::rt::metal

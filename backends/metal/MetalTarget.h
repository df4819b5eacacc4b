// The Metal target: the Vulkan target's lowering (the same kernels,
// dispatches, C4 buffers, memory plan and prepacked weights) with every
// SPIR-V kernel the model uses translated to MSL by SPIRV-Cross
// (MslTranslation.h), and every dispatch's workgroup size and group counts
// turned into a threadgroup size and grid. The kiln runtime's Metal
// executor (runtime/src/metal, Apple only) runs the MetalPayload.
#pragma once

#include "backends/common/KilnModule.h"
#include "schema/kiln_generated.h"
#include "IR/Graph.h"

#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <vector>

namespace kiln {

struct MetalCompileResult {
  KilnModule Module;
  size_t Operators = 0, Dispatches = 0;
  uint64_t ArenaBytes = 0, WeightBytes = 0, MslBytes = 0;
  /// Kernel name -> dispatches using it.
  std::map<std::string, int64_t> Kernels;
  bool Fp16 = false;
};

/// Lists every node the Metal target cannot run in one bad-input error
/// (the Vulkan target's list: the kernels are the same).
llvm::Error checkMetalGraph(const Graph &G);
/// The IR ops the Metal target runs, sorted.
std::vector<std::string> metalSupportedOps();
/// Fp16 (--quantize fp16): half weights and activations, and half
/// arithmetic in every kernel that has a Vulkan fp16-arithmetic twin (every
/// Metal GPU computes in half natively); graph inputs and outputs f32.
llvm::Expected<MetalCompileResult> compileForMetal(const Graph &G,
                                                   bool Fp16 = false);

/// The Metal kernel record compileForMetal writes for catalog kernel Name:
/// its MSL and reflection. The runtime's Metal catalog is made of these
/// (MetalKernelIdentitiesMain.cpp).
llvm::Expected<std::unique_ptr<fb::MetalKernelT>>
metalCatalogKernel(const std::string &Name);

} // namespace kiln

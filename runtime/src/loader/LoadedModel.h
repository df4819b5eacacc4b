// A model that passed verification: its bytes, the FlatBuffer root, and the
// checked description of every tensor. Immutable and shared by sessions.
#pragma once

#include "loader/ModelBytes.h"
#include "loader/SpirvReflection.h"
#include "loader/TensorDesc.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kiln::rt {

struct LoadedModel {
  std::shared_ptr<ModelBytes> Bytes;
  const fb::Model *Root = nullptr;
  std::vector<TensorDesc> Tensors;
  /// Tensor indices of the graph inputs and outputs.
  std::vector<int32_t> Inputs, Outputs;
  /// Metadata strings by key ("target", "source_hash", ...).
  std::map<std::string, std::string> Metadata;
  /// The target it is compiled for (Targets.h): one this runtime runs.
  fb::Target Target = fb::Target::CPU;
  /// Vulkan files: what reflection learned of each SPIR-V module (by
  /// VulkanPayload.shaders index).
  std::vector<VulkanModuleInfo> VulkanModules;

  const fb::Operator &op(size_t I) const { return *Root->operators()->Get(unsigned(I)); }
  size_t numOperators() const {
    return Root->operators() ? Root->operators()->size() : 0;
  }
};

/// Verifies Bytes (ModelVerifier.cpp) and builds the model. Errors are
/// KILN_ERROR_INVALID_MODEL (or UNSUPPORTED for another schema version).
Status loadVerifiedModel(std::shared_ptr<ModelBytes> Bytes,
                         std::shared_ptr<const LoadedModel> &Out);

} // namespace kiln::rt

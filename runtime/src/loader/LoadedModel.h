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

/// A dim of size Factor * (the size of symbol Symbol) (schema 1.9).
struct SymbolicDimDesc {
  int32_t Axis = 0;
  int32_t Symbol = 0;
  int64_t Factor = 1;
};

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
  /// A batch-polymorphic file's symbols (Model.symbols), the sizes they have
  /// here (every shape in Tensors is at these sizes: 1 each as loaded, or a
  /// session's, specializeModel), and each tensor's symbolic dims. All
  /// empty for a static file.
  std::vector<std::string> Symbols;
  std::vector<int64_t> SymbolSizes;
  std::vector<std::vector<SymbolicDimDesc>> TensorSymbols;

  bool isPolymorphic() const { return !Symbols.empty(); }

  const fb::Operator &op(size_t I) const { return *Root->operators()->Get(unsigned(I)); }
  /// Graph input I's image description (TensorInfo.image, schema 1.10), or
  /// null when it is not an image input (or out of range).
  const fb::ImageInputInfo *imageInput(size_t I) const {
    const fb::Metadata *MD = Root->metadata();
    if (!MD || !MD->inputs() || I >= MD->inputs()->size() || I >= Inputs.size())
      return nullptr;
    return MD->inputs()->Get(unsigned(I))->image();
  }
  size_t numOperators() const {
    return Root->operators() ? Root->operators()->size() : 0;
  }
};

/// Verifies Bytes (ModelVerifier.cpp) and builds the model. Errors are
/// KILN_ERROR_INVALID_MODEL (or UNSUPPORTED for another schema version). A
/// batch-polymorphic file is checked and described with every symbol at 1.
Status loadVerifiedModel(std::shared_ptr<ModelBytes> Bytes,
                         std::shared_ptr<const LoadedModel> &Out);

/// The batch-polymorphic model Model at other symbol sizes (one per symbol,
/// each at least 1): every check of loadVerifiedModel runs again at those
/// sizes (shapes, limits, each operator's contract). Errors are
/// KILN_ERROR_INVALID_ARGUMENT, naming the tensor or operator.
Status specializeModel(const LoadedModel &Model,
                       const std::vector<int64_t> &Sizes,
                       std::shared_ptr<const LoadedModel> &Out);

} // namespace kiln::rt

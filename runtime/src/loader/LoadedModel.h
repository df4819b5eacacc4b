// A model that passed verification: its bytes, the FlatBuffer root, and the
// checked description of every tensor. Immutable and shared by sessions.
#pragma once

#include "loader/ModelBytes.h"
#include "loader/TargetRules.h"
#include "loader/TensorDesc.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kiln::rt {

/// What a target's payload verifier learned of the payload, for its
/// executor (vulkan/VulkanPayloadVerifier.h: each SPIR-V module's
/// reflection); each target derives its own.
struct PayloadInfo {
  virtual ~PayloadInfo() = default;
};

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
  /// The target it is compiled for, and what the loader knows of it
  /// (TargetRules.h; never null once loaded).
  fb::Target Target = fb::Target::CPU;
  const TargetRules *Rules = nullptr;
  /// What the target's payload verifier kept (null: nothing).
  std::shared_ptr<const PayloadInfo> Payload;
  /// A batch-polymorphic file's symbols (Model.symbols), the sizes they have
  /// here (every shape in Tensors is at these sizes: 1 each as loaded, or a
  /// session's, specializeModel), and each tensor's symbolic dims. All
  /// empty for a static file.
  std::vector<std::string> Symbols;
  std::vector<int64_t> SymbolSizes;
  std::vector<std::vector<SymbolicDimDesc>> TensorSymbols;

  /// A partitioned file (schema 1.13) is seen through its parts: every
  /// operator of every part, in schedule order, each with the index in
  /// Tensors where its part's tensors start (they follow the outer file's
  /// own), so that tools read any operator's outputs as in a one-target
  /// file. Empty for other files. The payload verifier fills them.
  struct PartOperator {
    const fb::Operator *Op = nullptr;
    int32_t TensorBase = 0;
  };
  std::vector<PartOperator> PartOperators;
  bool Partitioned = false;

  bool isPolymorphic() const { return !Symbols.empty(); }

  const fb::Operator &op(size_t I) const {
    return Partitioned ? *PartOperators[I].Op
                       : *Root->operators()->Get(unsigned(I));
  }
  /// Where operator I's tensor indices point in Tensors (0 but in a
  /// partitioned file).
  int32_t tensorBase(size_t I) const {
    return Partitioned ? PartOperators[I].TensorBase : 0;
  }
  /// Graph input I's image description (TensorInfo.image, schema 1.10), or
  /// null when it is not an image input (or out of range).
  const fb::ImageInputInfo *imageInput(size_t I) const {
    const fb::Metadata *MD = Root->metadata();
    if (!MD || !MD->inputs() || I >= MD->inputs()->size() || I >= Inputs.size())
      return nullptr;
    return MD->inputs()->Get(unsigned(I))->image();
  }
  size_t numOperators() const {
    if (Partitioned)
      return PartOperators.size();
    return Root->operators() ? Root->operators()->size() : 0;
  }
};

/// Verifies Bytes (ModelVerifier.cpp) for the targets of Catalog and
/// builds the model, at the given symbol sizes (null: every symbol at 1).
/// Errors are KILN_ERROR_INVALID_MODEL (or UNSUPPORTED for another schema
/// version or an unknown target). The runtime's callers go through the
/// registry (target/RuntimeTargets.h: loadVerifiedModel, specializeModel),
/// which passes its table.
Status verifyModel(const TargetCatalog &Catalog,
                   std::shared_ptr<ModelBytes> Bytes,
                   const std::vector<int64_t> *Sizes,
                   std::shared_ptr<const LoadedModel> &Out);

} // namespace kiln::rt

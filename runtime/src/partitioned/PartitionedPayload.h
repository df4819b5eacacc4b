// What the partitioned target's verifier learned of a file (schema 1.13,
// PartitionedPayload): each part as a model of its own target, verified by
// that target's verifier, in schedule order, with the outer tensors its
// graph inputs and outputs are bound to.
#pragma once

#include "loader/LoadedModel.h"

#include <memory>
#include <vector>

namespace kiln::rt {

struct PartitionedInfo final : PayloadInfo {
  struct Part {
    /// Index in PartitionedPayload.partitions.
    size_t Index = 0;
    std::shared_ptr<const LoadedModel> Model;
    /// Outer tensors bound to the part's graph inputs and outputs, in its
    /// binding order.
    std::vector<int32_t> Inputs, Outputs;
    /// Where the part's operators and tensors start in the outer model's
    /// flat view (LoadedModel::PartOperators, Tensors).
    size_t FirstOperator = 0;
    int32_t TensorBase = 0;
  };
  std::vector<Part> Parts; // in schedule order
};

/// TargetRules::VerifyPayload of the partitioned target.
Status verifyPartitionedPayload(const fb::Model &M, LoadedModel &LM);

} // namespace kiln::rt

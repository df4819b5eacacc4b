// The loader's checks of an NNAPI file's payload (schema 1.6,
// fb::NnapiPayload), run in every build: the feature level; every operand's
// type, dims, quantization and value (inline bytes or a whole weight
// segment) and the kiln tensor it maps; every operation's code, level,
// operand counts and order (each operand written once, read after it is
// written); the model's inputs and outputs; and the host steps
// (host_before, host_after: TRANSPOSE, RESHAPE, QUANTIZE, DEQUANTIZE, CAST) with
// the tensors flowing from the graph inputs through them and the NNAPI
// model to the graph outputs. Messages name the operand or operation index.
#pragma once

#include "Status.h"

#include "schema/kiln_generated.h"

#include <vector>

namespace kiln::rt {

struct TensorDesc;

/// Checks M's NnapiPayload against M's tensors (already described in
/// Tensors) and operators (already checked structurally).
Status verifyNnapiPayload(const fb::Model &M,
                          const std::vector<TensorDesc> &Tensors);

/// Elements and bytes of a checked operand (1 element for a scalar).
uint64_t nnapiOperandElements(const fb::NnapiOperand &O);
uint64_t nnapiOperandBytes(const fb::NnapiOperand &O);

} // namespace kiln::rt

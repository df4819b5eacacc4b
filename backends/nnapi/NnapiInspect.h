// The NNAPI section of `kiln inspect` on a .kiln file for the NNAPI target
// (schema 1.6, NnapiPayload): the feature level the file needs, its
// operation histogram, operands (constants inline or in weight segments),
// the model's inputs and outputs, the host-side conversions, and with
// --nodes every operation with its operands.
#pragma once

#include "schema/kiln_generated.h"

#include "llvm/Support/JSON.h"

#include <string>

namespace kiln {

/// Without --nodes, operations are listed one a line up to this many.
constexpr size_t NnapiOperationListLimit = 200;

/// The text section ("" when M has no NNAPI payload).
std::string nnapiTextSection(const fb::ModelT &M, bool Detail);

/// The same as JSON (null when M has no NNAPI payload).
llvm::json::Value nnapiJsonSection(const fb::ModelT &M);

} // namespace kiln

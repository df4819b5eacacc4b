// Large float initializers without protobuf's copy. Parsing a ModelProto
// copies every raw_data field into the message: for ResNet-50, 100 MB of
// memcpy and page faults, measured to be a large part of a conversion
// (docs/benchmarks.md has the figures). stripLargeRawData walks the
// serialized model's wire format once, finds the raw_data of the large FLOAT
// initializers of the main graph, and returns the model with those fields
// cut short (a few hundred KB for protobuf to parse) plus where their bytes
// lie in the original buffer, which the importer then aliases.
//
// Only the main graph's initializers, only FLOAT, only at least MinBytes:
// small and integer tensors (shapes, indices) keep their raw_data in the
// message, where ONNX shape inference reads values. A stripped raw_data
// keeps one zero byte, not none: the tensor still has its one value field
// for ONNX's checker (which counts an empty raw_data as absent and checks no
// sizes), and the importer reads the bytes from RawData instead.
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Optional.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace kiln::onnx_import {

struct StrippedModel {
  /// The model with the large raw_data fields cut to one byte.
  std::string Bytes;
  /// For each graph.initializer, in order: where its raw_data lies in the
  /// original buffer when it was stripped, None when it was left in place.
  std::vector<llvm::Optional<llvm::ArrayRef<uint8_t>>> RawData;
};

/// None when nothing would be stripped, or when the bytes are not
/// well-formed protobuf wire data (the caller parses them whole and reports
/// the error as before).
llvm::Optional<StrippedModel> stripLargeRawData(llvm::StringRef Model,
                                                uint64_t MinBytes);

} // namespace kiln::onnx_import

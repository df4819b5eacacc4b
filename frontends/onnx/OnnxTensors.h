// ONNX TensorProto / TypeProto decoding: element types, shapes, and tensor
// data from raw_data, the typed repeated fields, or external data files.
// raw_data and external data are aliased (never copied): the Buffer keeps the
// parsed ModelProto or the mapped data file alive.
#pragma once

#include "IR/Tensor.h"
#include "IR/Type.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <string>

namespace onnx {
class TensorProto;
class TypeProto;
} // namespace onnx

namespace kiln::onnx_import {

/// kiln's element type for an ONNX TensorProto::DataType, or None (strings,
/// complex numbers, unknown codes).
llvm::Optional<ElementType> elementTypeFromOnnx(int32_t DataType);
/// Printable name of an ONNX data type code ("FLOAT", "STRING", ...).
std::string onnxTypeName(int32_t DataType);

/// Where external data is read from: the model's folder and the files already
/// mapped (several initializers usually share one file).
class ExternalDataResolver {
public:
  /// ModelDir empty: external data is refused (in-memory models).
  explicit ExternalDataResolver(std::string ModelDir)
      : ModelDir(std::move(ModelDir)) {}

  /// Checks that Location is a relative path inside the model folder with no
  /// `..` component and no symlink on the way, and that it names a regular
  /// file. Returns the full path. Messages are plain (the caller adds context).
  llvm::Expected<std::string> resolve(llvm::StringRef Location) const;
  /// Maps (once) and returns the file at a path from resolve().
  llvm::Expected<std::shared_ptr<llvm::MemoryBuffer>>
  map(const std::string &FullPath);

private:
  std::string ModelDir;
  llvm::StringMap<std::shared_ptr<llvm::MemoryBuffer>> Mapped;
};

/// Decodes T into a Tensor. Owner keeps T's raw_data alive (the ModelProto);
/// null: the bytes are copied. Resolver may be null when external data is not
/// allowed. Raw, when given, is T's raw_data, which the parse left out
/// (OnnxRawData.h); Owner then keeps those bytes alive. Errors are plain
/// messages naming the tensor.
llvm::Expected<Tensor>
decodeTensor(const onnx::TensorProto &T, std::shared_ptr<const void> Owner,
             ExternalDataResolver *Resolver,
             llvm::Optional<llvm::ArrayRef<uint8_t>> Raw = llvm::None);

/// The static shape of T's dims, checked against the limits.
llvm::Expected<Shape> tensorShape(const onnx::TensorProto &T);

/// A graph input/output type. Symbolic dims become Dim::symbol, missing ones
/// Dim(). Errors for non-tensor types and unsupported element types.
llvm::Expected<TensorType> typeFromOnnx(const onnx::TypeProto &T);

} // namespace kiln::onnx_import

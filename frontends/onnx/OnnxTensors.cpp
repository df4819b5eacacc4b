// Decoding ONNX tensors into kiln Tensors, with every size checked before it
// is trusted: dims against the limits, byte counts against shape x element
// size, external-data ranges against the file size (overflow-checked), and
// external-data paths against the model folder (no absolute paths, no `..`,
// no symlinks). raw_data and external data are aliased, never copied.
#include "frontends/onnx/OnnxTensors.h"

#include "Support/Error.h"
#include "Support/FileSystem.h"
#include "Support/Limits.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Path.h"

#include <onnx/onnx_pb.h>

#include <sys/stat.h>

namespace kiln::onnx_import {

using onnx::TensorProto;

llvm::Optional<ElementType> elementTypeFromOnnx(int32_t DataType) {
  switch (DataType) {
  case TensorProto::FLOAT: return ElementType::F32;
  case TensorProto::UINT8: return ElementType::U8;
  case TensorProto::INT8: return ElementType::I8;
  case TensorProto::UINT16: return ElementType::U16;
  case TensorProto::INT16: return ElementType::I16;
  case TensorProto::INT32: return ElementType::I32;
  case TensorProto::INT64: return ElementType::I64;
  case TensorProto::BOOL: return ElementType::Bool;
  case TensorProto::FLOAT16: return ElementType::F16;
  case TensorProto::DOUBLE: return ElementType::F64;
  case TensorProto::UINT32: return ElementType::U32;
  case TensorProto::UINT64: return ElementType::U64;
  case TensorProto::BFLOAT16: return ElementType::BF16;
  default: return llvm::None;
  }
}

std::string onnxTypeName(int32_t DataType) {
  if (TensorProto::DataType_IsValid(DataType))
    return TensorProto::DataType_Name(TensorProto::DataType(DataType));
  return "data type " + std::to_string(DataType);
}

//===-- External data ------------------------------------------------------===//

llvm::Expected<std::string>
ExternalDataResolver::resolve(llvm::StringRef Location) const {
  if (ModelDir.empty())
    return inputError("external data '{0}' cannot be used here: the model was "
                      "not read from a file",
                      Location);
  if (Location.empty())
    return inputError("external data has an empty location");
  if (Location.startswith("/") || llvm::sys::path::is_absolute(Location))
    return inputError("external data path '{0}' is absolute; it must be "
                      "relative to the model's folder",
                      Location);
  if (Location.contains('\\') || Location.contains('\0'))
    return inputError("external data path '{0}' contains a backslash or NUL",
                      Location);
  llvm::SmallVector<llvm::StringRef, 8> Parts;
  Location.split(Parts, '/');
  std::string Path = ModelDir;
  bool Any = false;
  for (llvm::StringRef P : Parts) {
    if (P.empty() || P == ".")
      continue;
    if (P == "..")
      return inputError("external data path '{0}' contains '..'; it must stay "
                        "inside the model's folder",
                        Location);
    Path += "/";
    Path += P.str();
    Any = true;
    struct stat St;
    if (::lstat(Path.c_str(), &St) != 0)
      return inputError("external data file '{0}' does not exist", Location);
    if (S_ISLNK(St.st_mode))
      return inputError("external data path '{0}' goes through a symlink "
                        "('{1}'); symlinks are refused",
                        Location, P);
  }
  if (!Any)
    return inputError("external data path '{0}' names no file", Location);
  struct stat St;
  if (::lstat(Path.c_str(), &St) != 0 || !S_ISREG(St.st_mode))
    return inputError("external data path '{0}' is not a regular file",
                      Location);
  return Path;
}

llvm::Expected<std::shared_ptr<llvm::MemoryBuffer>>
ExternalDataResolver::map(const std::string &FullPath) {
  auto It = Mapped.find(FullPath);
  if (It != Mapped.end())
    return It->second;
  auto Buf = mapFile(FullPath);
  if (!Buf)
    return Buf.takeError();
  Mapped[FullPath] = *Buf;
  return *Buf;
}

//===-- Shapes and types ---------------------------------------------------===//

static llvm::Expected<Shape> checkedShape(llvm::ArrayRef<int64_t> Dims,
                                          llvm::StringRef What) {
  if (int64_t(Dims.size()) > limits::MaxRank)
    return inputError("{0} has rank {1}, above the limit {2}", What,
                      Dims.size(), limits::MaxRank);
  int64_t Count = 1;
  for (int64_t D : Dims) {
    if (D < 0)
      return inputError("{0} has a negative dim {1}", What, D);
    if (D > limits::MaxDim)
      return inputError("{0} has dim {1}, above the limit {2}", What, D,
                        limits::MaxDim);
    if (__builtin_mul_overflow(Count, D, &Count) || Count > limits::MaxElements)
      return inputError("{0} has more than {1} elements", What,
                        limits::MaxElements);
  }
  return makeShape(Dims);
}

llvm::Expected<Shape> tensorShape(const TensorProto &T) {
  std::vector<int64_t> Dims(T.dims().begin(), T.dims().end());
  return checkedShape(Dims, "tensor '" + T.name() + "'");
}

llvm::Expected<TensorType> typeFromOnnx(const onnx::TypeProto &T) {
  if (!T.has_tensor_type())
    return inputError("only tensor types are supported (not sequences, maps "
                      "or optionals)");
  const auto &TT = T.tensor_type();
  auto Elem = elementTypeFromOnnx(TT.elem_type());
  if (!Elem)
    return inputError("element type {0} is not supported",
                      onnxTypeName(TT.elem_type()));
  Shape S;
  if (!TT.has_shape())
    return inputError("the tensor has no shape (unknown rank is not supported)");
  if (TT.shape().dim_size() > limits::MaxRank)
    return inputError("rank {0} is above the limit {1}", TT.shape().dim_size(),
                      limits::MaxRank);
  for (const auto &D : TT.shape().dim()) {
    if (D.has_dim_value()) {
      if (D.dim_value() < 0 || D.dim_value() > limits::MaxDim)
        return inputError("dim {0} is negative or above the limit {1}",
                          D.dim_value(), limits::MaxDim);
      S.push_back(Dim(D.dim_value()));
    } else if (D.has_dim_param() && !D.dim_param().empty()) {
      S.push_back(Dim::symbol(D.dim_param()));
    } else {
      S.push_back(Dim());
    }
  }
  if (exceedsElementLimit(S))
    return inputError("shape {0} has more elements than the limit of 2^34",
                      toString(S));
  return TensorType(*Elem, std::move(S));
}

//===-- Data ---------------------------------------------------------------===//

template <typename To, typename Field>
static Buffer packField(const Field &Values) {
  std::vector<uint8_t> Bytes(size_t(Values.size()) * sizeof(To));
  uint8_t *Out = Bytes.data();
  for (auto V : Values) {
    To X = static_cast<To>(V);
    std::memcpy(Out, &X, sizeof(To));
    Out += sizeof(To);
  }
  return Buffer::own(std::move(Bytes));
}

/// Typed fields: int32_data carries every type narrower than 32 bits (one
/// element per entry; f16/bf16 as their bit patterns), uint64_data carries
/// u32 and u64.
static llvm::Expected<Buffer> typedData(const TensorProto &T, ElementType E,
                                        int64_t Count) {
  int64_t Have = -1;
  Buffer B;
  switch (E) {
  case ElementType::F32:
    Have = T.float_data_size();
    B = packField<float>(T.float_data());
    break;
  case ElementType::F64:
    Have = T.double_data_size();
    B = packField<double>(T.double_data());
    break;
  case ElementType::I64:
    Have = T.int64_data_size();
    B = packField<int64_t>(T.int64_data());
    break;
  case ElementType::U64:
    Have = T.uint64_data_size();
    B = packField<uint64_t>(T.uint64_data());
    break;
  case ElementType::U32:
    Have = T.uint64_data_size();
    B = packField<uint32_t>(T.uint64_data());
    break;
  case ElementType::I32:
    Have = T.int32_data_size();
    B = packField<int32_t>(T.int32_data());
    break;
  case ElementType::I16:
    Have = T.int32_data_size();
    B = packField<int16_t>(T.int32_data());
    break;
  case ElementType::U16:
  case ElementType::F16:
  case ElementType::BF16:
    Have = T.int32_data_size();
    B = packField<uint16_t>(T.int32_data());
    break;
  case ElementType::I8:
    Have = T.int32_data_size();
    B = packField<int8_t>(T.int32_data());
    break;
  case ElementType::U8:
    Have = T.int32_data_size();
    B = packField<uint8_t>(T.int32_data());
    break;
  case ElementType::Bool: {
    Have = T.int32_data_size();
    std::vector<uint8_t> Bytes;
    for (int32_t V : T.int32_data())
      Bytes.push_back(V != 0);
    B = Buffer::own(std::move(Bytes));
    break;
  }
  }
  if (Have != Count)
    return inputError("tensor '{0}' has {1} values in its typed data field, "
                      "its shape needs {2}",
                      T.name(), Have, Count);
  return B;
}

static llvm::Expected<Buffer> externalData(const TensorProto &T,
                                           ExternalDataResolver *Resolver,
                                           uint64_t Expected) {
  std::string Location;
  uint64_t Offset = 0, Length = 0;
  bool HasLength = false;
  for (const auto &KV : T.external_data()) {
    if (KV.key() == "location") {
      Location = KV.value();
    } else if (KV.key() == "offset" || KV.key() == "length") {
      uint64_t V;
      if (llvm::StringRef(KV.value()).getAsInteger(10, V))
        return inputError("tensor '{0}': external data {1} '{2}' is not a "
                          "non-negative integer",
                          T.name(), KV.key(), KV.value());
      if (KV.key() == "offset") {
        Offset = V;
      } else {
        Length = V;
        HasLength = true;
      }
    }
  }
  if (!Resolver)
    return inputError("tensor '{0}' uses external data, which is not allowed "
                      "for an in-memory model",
                      T.name());
  auto Path = Resolver->resolve(Location);
  if (!Path)
    return addContext(Path.takeError(), "tensor '" + T.name() + "'");
  auto File = Resolver->map(*Path);
  if (!File)
    return File.takeError();
  uint64_t Size = (*File)->getBufferSize();
  if (!HasLength)
    Length = Offset <= Size ? Size - Offset : 0;
  uint64_t End;
  if (__builtin_add_overflow(Offset, Length, &End) || End > Size)
    return inputError("tensor '{0}': external data range offset {1} + length "
                      "{2} runs past the end of '{3}' ({4} bytes)",
                      T.name(), Offset, Length, Location, Size);
  if (Length != Expected)
    return inputError("tensor '{0}': external data has {1} bytes, its shape "
                      "needs {2}",
                      T.name(), Length, Expected);
  const uint8_t *Data =
      reinterpret_cast<const uint8_t *>((*File)->getBufferStart()) + Offset;
  return Buffer::aliasMapped(*File, Data, Length);
}

llvm::Expected<Tensor> decodeTensor(const TensorProto &T,
                                    std::shared_ptr<const void> Owner,
                                    ExternalDataResolver *Resolver,
                                    llvm::Optional<llvm::ArrayRef<uint8_t>> Raw) {
  if (T.has_segment())
    return inputError("tensor '{0}' is segmented, which is not supported",
                      T.name());
  auto Elem = elementTypeFromOnnx(T.data_type());
  if (!Elem)
    return inputError("tensor '{0}' has element type {1}, which kiln does not "
                      "support",
                      T.name(), onnxTypeName(T.data_type()));
  auto S = tensorShape(T);
  if (!S)
    return S.takeError();
  int64_t Count = *numElements(*S);
  uint64_t Bytes = uint64_t(Count) * elementSize(*Elem);
  TensorType Type(*Elem, *S);

  if (T.data_location() == TensorProto::EXTERNAL) {
    auto B = externalData(T, Resolver, Bytes);
    if (!B)
      return B.takeError();
    return Tensor(Type, std::move(*B));
  }
  if (T.has_raw_data()) {
    if (!Raw)
      Raw = llvm::ArrayRef<uint8_t>(
          reinterpret_cast<const uint8_t *>(T.raw_data().data()),
          T.raw_data().size());
    if (Raw->size() != Bytes)
      return inputError("tensor '{0}' of type {1} has {2} bytes of raw_data, "
                        "its shape needs {3}",
                        T.name(), toString(Type), Raw->size(), Bytes);
    if (Owner)
      return Tensor(Type, Buffer::alias(std::move(Owner), Raw->data(), Raw->size()));
    return Tensor(Type, Buffer::copy(*Raw));
  }
  auto B = typedData(T, *Elem, Count);
  if (!B)
    return B.takeError();
  return Tensor(Type, std::move(*B));
}

} // namespace kiln::onnx_import

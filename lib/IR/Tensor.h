// Constant tensor data. A Buffer is an immutable, ref-counted byte range that
// either owns its bytes or aliases memory kept alive by an owner (an mmap of
// the input file, a parsed protobuf), so weights are never copied to be read.
#pragma once

#include "numerics/FloatConversions.h"

#include "IR/Type.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

namespace llvm {
class MemoryBuffer;
}

namespace kiln {

class Buffer {
public:
  Buffer() = default;

  /// Takes ownership of Bytes.
  static Buffer own(std::vector<uint8_t> Bytes);
  /// Copies Bytes into a new owned buffer.
  static Buffer copy(llvm::ArrayRef<uint8_t> Bytes);
  /// Aliases [Data, Data+Size); Owner keeps that memory alive.
  static Buffer alias(std::shared_ptr<const void> Owner, const uint8_t *Data,
                      size_t Size);
  /// Aliases [Data, Data+Size) of a file mapping; when the last Buffer of
  /// this range goes, the range's pages leave the process's resident memory
  /// (dropMappedPages), so a pass that replaces a large weight (a transpose,
  /// a rescale) does not keep the file's copy resident beside its own.
  static Buffer aliasMapped(std::shared_ptr<const llvm::MemoryBuffer> File,
                            const uint8_t *Data, size_t Size);
  /// B with its bytes moved to the spill file when weight spilling is on and
  /// they are large and on the heap (Support/Scratch.h): the same bytes,
  /// held by the page cache; B itself otherwise. The bytes must be final
  /// (the mapping is read-only).
  static Buffer spilledIfLarge(Buffer B);

  const uint8_t *data() const { return Data; }
  size_t size() const { return Size; }
  llvm::ArrayRef<uint8_t> bytes() const { return {Data, Size}; }
  llvm::StringRef str() const {
    return {reinterpret_cast<const char *>(Data), Size};
  }
  /// True when this buffer points into memory it does not own (an mmap...).
  bool isAlias() const { return Aliased; }
  /// Drops this buffer's pages from resident memory when it aliases a file
  /// mapping (aliasMapped, or a spilled constant); they are read again from the
  /// page cache if touched. A no-op for bytes on the heap. A writer calls it
  /// once it has hashed or written a weight it will not read again soon.
  void releaseResident() const;
  bool isAligned(size_t Alignment) const {
    return reinterpret_cast<uintptr_t>(Data) % Alignment == 0;
  }

private:
  /// Where an empty buffer points: never null, so memcpy(dst, data(), 0) and
  /// friends are well-defined, and suitably aligned for any element type.
  static const uint8_t *emptyData();

  std::shared_ptr<const void> Owner;
  const uint8_t *Data = emptyData();
  size_t Size = 0;
  bool Aliased = false;
  /// The mapping Data lies in, for releaseResident; kept alive by Owner.
  const llvm::MemoryBuffer *Mapping = nullptr;
};

/// A constant: a type (always static) and exactly numElements*elementSize bytes.
class Tensor {
public:
  Tensor() = default;
  Tensor(TensorType Type, Buffer Data)
      : Type(std::move(Type)), Data(std::move(Data)) {}

  const TensorType &type() const { return Type; }
  const Buffer &buffer() const { return Data; }
  int64_t numElements() const { return kiln::numElements(Type.Dims).getValueOr(0); }

  /// Typed read of element I (the caller knows the element type). Uses memcpy,
  /// so unaligned aliases are fine.
  template <typename T> T at(int64_t I) const {
    T V;
    std::memcpy(&V, Data.data() + I * sizeof(T), sizeof(T));
    return V;
  }
  /// Element I converted to double, whatever the element type.
  double asDouble(int64_t I) const;
  /// Element I converted to int64 (floats truncate toward zero).
  int64_t asInt(int64_t I) const;

  /// Builds an owned tensor from typed values.
  template <typename T>
  static Tensor fromValues(ElementType Elem, Shape Dims,
                           llvm::ArrayRef<T> Values) {
    std::vector<uint8_t> Bytes(Values.size() * sizeof(T));
    if (!Values.empty())
      std::memcpy(Bytes.data(), Values.data(), Bytes.size());
    return Tensor(TensorType(Elem, std::move(Dims)), Buffer::own(std::move(Bytes)));
  }

  /// A rank-0 tensor of element type Elem holding V (converted as by a C
  /// cast; f16/bf16 round to nearest even).
  static Tensor scalar(ElementType Elem, double V);

  /// This tensor with its bytes spilled (Buffer::spilledIfLarge).
  /// Graph::createConstant calls it for every constant a pass makes, once
  /// the bytes are final (a buffer being filled must stay on the heap).
  static Tensor spilledIfLarge(Tensor T) {
    return Tensor(std::move(T.Type), Buffer::spilledIfLarge(std::move(T.Data)));
  }

  bool sameContents(const Tensor &O) const {
    return Type == O.Type && Data.str() == O.Data.str();
  }

private:
  TensorType Type;
  Buffer Data;
};

/// IEEE half and bfloat16 conversions (round to nearest even), shared with
/// the runtime (lib/Numerics).
using numerics::bf16ToFloat;
using numerics::floatToBf16;
using numerics::floatToHalf;
using numerics::halfToFloat;

} // namespace kiln

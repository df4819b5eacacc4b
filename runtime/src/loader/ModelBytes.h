// The bytes of a .kiln file: a read-only mmap of the file, or a 64-byte
// aligned copy of a caller's buffer. Segments are used in place from here.
#pragma once

#include "Status.h"

#include <cstddef>
#include <cstdint>
#include <memory>

namespace kiln::rt {

class ModelBytes {
public:
  ~ModelBytes();
  ModelBytes(const ModelBytes &) = delete;
  ModelBytes &operator=(const ModelBytes &) = delete;

  /// Maps Path read-only. IO errors name the file and the reason.
  static Status mapFile(const char *Path, std::shared_ptr<ModelBytes> &Out);
  /// Copies [Data, Data + Size) into aligned memory.
  static Status copyBuffer(const void *Data, size_t Size,
                           std::shared_ptr<ModelBytes> &Out);
  /// Refers to [Data, Data + Size) without owning it (verification only).
  static std::shared_ptr<ModelBytes> borrow(const void *Data, size_t Size);
  /// Size bytes of Parent from Offset (a part of a partitioned file), kept
  /// alive with Parent. The caller checks the range. A slice has no fd.
  static std::shared_ptr<ModelBytes> slice(std::shared_ptr<const ModelBytes> Parent,
                                           size_t Offset, size_t Size);

  const uint8_t *data() const { return Data; }
  size_t size() const { return Size; }
  /// The mapped file, kept open for executors that map it themselves
  /// (NNAPI's createFromFd); -1 for a copied or borrowed buffer.
  int fd() const { return Fd; }
  /// Drops the resident pages of the whole pages inside [Begin, Begin +
  /// Bytes) when these bytes are a file mapping (also through a slice):
  /// they are read again from the file if anything touches them. Returns
  /// the bytes dropped; 0 for a copied or borrowed buffer (whose memory
  /// would be lost), or a range outside the bytes.
  uint64_t releasePages(const uint8_t *Begin, uint64_t Bytes) const;

private:
  ModelBytes() = default;
  const uint8_t *Data = nullptr;
  size_t Size = 0;
  bool Mapped = false;
  bool Borrowed = false;
  int Fd = -1;
  std::shared_ptr<const ModelBytes> Parent; // a slice's
};

} // namespace kiln::rt

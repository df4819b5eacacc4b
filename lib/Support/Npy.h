// NumPy .npy and .npz files: the tensor exchange format of `kiln run`,
// calibration data and reference outputs.
//
// Parsing is strict because these files come from users: the header length
// is bounded, only numeric little-endian dtypes are accepted (never pickled
// objects), C order only, and shape x itemsize must equal the data size
// exactly, computed with overflow checks.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kiln {

enum class NpyDType { F16, F32, F64, I8, I16, I32, I64, U8, U16, U32, U64, Bool };

size_t npyItemSize(NpyDType T);
/// The numpy descr, e.g. "<f4" or "|u1".
const char *npyDescr(NpyDType T);
/// The type of a numpy descr ("<f4"; "|u1", "<u1" or "=u1"), or none for
/// anything else (big-endian, objects, structured types).
std::optional<NpyDType> npyDTypeOfDescr(llvm::StringRef Descr);

struct NpyArray {
  NpyDType DType = NpyDType::F32;
  std::vector<int64_t> Shape;
  /// The element bytes, C order, little-endian. May alias the file mapping.
  std::shared_ptr<const void> Owner;
  const uint8_t *Data = nullptr;
  size_t Size = 0;
};

/// What an .npy header declares: the dtype and shape, where the data starts
/// and how many bytes it takes (overflow-checked, within the element limit).
struct NpyHeader {
  NpyDType DType = NpyDType::F32;
  std::vector<int64_t> Shape;
  uint64_t DataOffset = 0;
  uint64_t DataBytes = 0;
};

/// Parses the header at the start of Bytes, which may hold only the first
/// npyMaxHeaderPrefix() bytes of the file (no data is read).
llvm::Expected<NpyHeader> parseNpyHeader(llvm::StringRef Bytes,
                                         llvm::StringRef Name);
/// The most bytes a valid header (magic, version, length, dict) takes.
size_t npyMaxHeaderPrefix();

/// Parses the bytes of one .npy file. Name is used in messages. The result
/// aliases Bytes; Owner must keep them alive.
llvm::Expected<NpyArray> parseNpy(llvm::StringRef Bytes, llvm::StringRef Name,
                                  std::shared_ptr<const void> Owner);
llvm::Expected<NpyArray> readNpyFile(llvm::StringRef Path);

/// Serializes one array as .npy version 1.0.
std::string serializeNpy(NpyDType DType, llvm::ArrayRef<int64_t> Shape,
                         llvm::StringRef Data);
/// Writes a .npy file atomically.
llvm::Error writeNpyFile(llvm::StringRef Path, NpyDType DType,
                         llvm::ArrayRef<int64_t> Shape, llvm::StringRef Data);

/// Called with each .npz member's name (without ".npy") and header before
/// its data is inflated: an error stops the read, so a member the caller
/// cannot use (a wrong dtype or shape, an unknown name) costs only its
/// header, however large it declares itself.
using NpzMemberCheck =
    std::function<llvm::Error(llvm::StringRef Member, const NpyHeader &H)>;

/// Reads every member of an .npz archive (stored or deflated), in archive
/// order. Member names lose their ".npy" suffix. Entry count and sizes are
/// bounded before anything is inflated; each member's header is inflated
/// and checked (against its entry's size, then by Check) before its data.
llvm::Expected<std::vector<std::pair<std::string, NpyArray>>>
readNpzFile(llvm::StringRef Path, const NpzMemberCheck &Check = nullptr);
/// The same on an archive in memory; Name is used in messages. The arrays
/// own their data, so Bytes may go away afterwards.
llvm::Expected<std::vector<std::pair<std::string, NpyArray>>>
readNpzBuffer(llvm::StringRef Bytes, llvm::StringRef Name,
              const NpzMemberCheck &Check = nullptr);

/// Writes an .npz archive (stored, as numpy.savez) atomically. Names are
/// kept exactly; ".npy" is appended to each member name.
llvm::Error writeNpzFile(llvm::StringRef Path,
                         llvm::ArrayRef<std::pair<std::string, std::string>>
                             NamedNpyBytes);

} // namespace kiln

// Structural checks on a zip archive before libtorch (or anything else) reads
// it. Two passes:
//
//  1. Our own walk over the raw bytes, with every offset and length
//     bounds-checked and every sum overflow-checked: the end record (and the
//     ZIP64 one), each central-directory entry (name, flags, method, sizes,
//     limits), the local header it points at (which must agree with it), the
//     data descriptor after the data when there is one (PyTorch always writes
//     them), and that no two entries share bytes. libzip is lenient about
//     several of these (it takes the central directory's word for sizes and
//     does not look at data descriptors), so they are checked here.
//  2. libzip (zip_open with ZIP_CHECKCONS) reads every entry, in fixed-size
//     chunks, inflating as needed and verifying the CRC; we count the bytes it
//     hands back against the declared size and stop as soon as an entry holds
//     more than it declares. Nothing is ever inflated past the declared size,
//     and the declared sizes are bounded by ZipLimits before anything is read.
#include "Support/ZipCheck.h"

#include "Support/Error.h"
#include "Support/FileSystem.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <zip.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace kiln {

namespace {

constexpr uint32_t SigLocal = 0x04034b50;        // PK\3\4
constexpr uint32_t SigCentral = 0x02014b50;      // PK\1\2
constexpr uint32_t SigEnd = 0x06054b50;          // PK\5\6
constexpr uint32_t SigZip64End = 0x06064b50;     // PK\6\6
constexpr uint32_t SigZip64Locator = 0x07064b50; // PK\6\7
constexpr uint32_t SigDescriptor = 0x08074b50;   // PK\7\8

constexpr uint64_t EndSize = 22;
constexpr uint64_t Zip64LocatorSize = 20;
constexpr uint64_t Zip64EndMinSize = 56;
constexpr uint64_t CentralSize = 46;
constexpr uint64_t LocalSize = 30;
constexpr uint64_t MaxCommentLength = 0xFFFF;

constexpr uint16_t FlagEncrypted = 1u << 0;
constexpr uint16_t FlagDescriptor = 1u << 3;
constexpr uint16_t FlagStrongEncryption = 1u << 6;
constexpr uint16_t FlagMaskedHeaders = 1u << 13;

constexpr uint16_t MethodStored = 0;
constexpr uint16_t MethodDeflate = 8;
constexpr uint16_t MethodAes = 99;

constexpr uint16_t ExtraZip64 = 0x0001;
constexpr uint32_t Sat32 = 0xFFFFFFFFu;
constexpr uint16_t Sat16 = 0xFFFFu;

/// Bytes read from libzip per call: entries are streamed, never held whole.
constexpr size_t ChunkBytes = 64 * 1024;
/// Entry names longer than this are shortened in messages.
constexpr size_t MaxShownName = 200;

std::string hex32(uint32_t V) {
  char Buf[11];
  std::snprintf(Buf, sizeof(Buf), "0x%08x", unsigned(V));
  return Buf;
}

/// The name as it goes into a one-line message: printable ASCII as is,
/// anything else (NUL, newlines, non-ASCII bytes) as \xNN.
std::string shownName(llvm::StringRef Name) {
  std::string S;
  for (char C : Name.take_front(MaxShownName)) {
    auto U = static_cast<unsigned char>(C);
    if (U >= 0x20 && U < 0x7F) {
      S += C;
    } else {
      S += "\\x";
      S += llvm::hexdigit(U >> 4, true);
      S += llvm::hexdigit(U & 0xF, true);
    }
  }
  if (Name.size() > MaxShownName)
    S += "...";
  return S;
}

/// Why Name may not be extracted as a relative path, or "" when it may.
const char *nameProblem(llvm::StringRef Name) {
  if (Name.contains('\0'))
    return "NUL byte";
  if (Name.contains('\\'))
    return "backslash";
  if (Name.startswith("/"))
    return "absolute path";
  if (Name.size() >= 2 && Name[1] == ':' && llvm::isAlpha(Name[0]))
    return "drive letter";
  llvm::StringRef Rest = Name;
  while (!Rest.empty()) {
    auto [Component, Tail] = Rest.split('/');
    if (Component == "..")
      return "'..' component";
    Rest = Tail;
  }
  return "";
}

/// A little-endian view of the file with bounds-checked reads.
class Bytes {
public:
  explicit Bytes(llvm::StringRef Data) : Data(Data) {}
  uint64_t size() const { return Data.size(); }
  /// Whether [Off, Off + Len) lies inside the file (no overflow possible).
  bool fits(uint64_t Off, uint64_t Len) const {
    return Off <= Data.size() && Len <= Data.size() - Off;
  }
  // Callers check fits() first.
  uint16_t u16(uint64_t Off) const {
    return uint16_t(byte(Off) | byte(Off + 1) << 8);
  }
  uint32_t u32(uint64_t Off) const {
    return uint32_t(u16(Off)) | uint32_t(u16(Off + 2)) << 16;
  }
  uint64_t u64(uint64_t Off) const {
    return uint64_t(u32(Off)) | uint64_t(u32(Off + 4)) << 32;
  }
  llvm::StringRef str(uint64_t Off, uint64_t Len) const {
    return Data.substr(Off, Len);
  }

private:
  unsigned byte(uint64_t Off) const {
    return static_cast<unsigned char>(Data[Off]);
  }
  llvm::StringRef Data;
};

/// The ZIP64 extended-information field of an extra-field block.
struct Zip64Field {
  bool Present = false;
  llvm::StringRef Payload;
};

/// Walks the id/size blocks of an extra field. Returns false when a block
/// runs past the end (up to 3 bytes of trailing padding are tolerated).
bool findZip64(llvm::StringRef Extra, Zip64Field &Out) {
  Bytes B(Extra);
  uint64_t Pos = 0;
  while (B.fits(Pos, 4)) {
    uint16_t Id = B.u16(Pos), Len = B.u16(Pos + 2);
    if (!B.fits(Pos + 4, Len))
      return false;
    if (Id == ExtraZip64 && !Out.Present) {
      Out.Present = true;
      Out.Payload = B.str(Pos + 4, Len);
    }
    Pos += 4 + uint64_t(Len);
  }
  return true;
}

/// Replaces each saturated 32-bit field by the next 8-byte value of the ZIP64
/// field, in the order the format defines. False when the values are missing.
bool applyZip64(const Zip64Field &Z, std::initializer_list<uint64_t *> Fields) {
  Bytes B(Z.Payload);
  uint64_t Pos = 0;
  for (uint64_t *F : Fields) {
    if (*F != Sat32)
      continue;
    if (!Z.Present || !B.fits(Pos, 8))
      return false;
    *F = B.u64(Pos);
    Pos += 8;
  }
  return true;
}

struct Entry {
  uint64_t Index = 0;
  llvm::StringRef Name; // raw bytes, inside the mapped file
  std::string Shown;    // for messages
  uint16_t Flags = 0;
  uint16_t Method = 0;
  uint32_t Crc = 0;
  uint64_t CompSize = 0;
  uint64_t Size = 0;
  uint64_t LocalOffset = 0;
  uint64_t End = 0; // one past the local header, data and descriptor
};

class Checker {
public:
  Checker(llvm::StringRef Path, llvm::StringRef Data, const ZipLimits &Limits)
      : Path(Path), B(Data), Limits(Limits) {}

  llvm::Error run() {
    if (llvm::Error E = readEnd())
      return E;
    if (llvm::Error E = readCentralDirectory())
      return E;
    if (llvm::Error E = checkOverlaps())
      return E;
    return readEntries();
  }

private:
  llvm::Error readEnd();
  llvm::Error readZip64End(uint64_t LocatorOff, uint64_t &Count,
                           uint64_t &CdSize, uint64_t &CdOffset,
                           uint64_t &RecordsStart);
  llvm::Error readCentralDirectory();
  llvm::Error readCentralEntry(uint64_t &Pos, uint64_t Index);
  llvm::Error checkLocalHeader(Entry &En);
  llvm::Error checkOverlaps();
  llvm::Error readEntries();

  llvm::StringRef Path;
  Bytes B;
  const ZipLimits &Limits;

  uint64_t EntryCount = 0;
  uint64_t CdOffset = 0;
  uint64_t CdEnd = 0;
  uint64_t TotalBytes = 0;
  std::vector<Entry> Entries;
  llvm::DenseSet<llvm::StringRef> Names;
};

llvm::Error Checker::readEnd() {
  if (B.size() == 0)
    return inputError("{0}: file is empty, not a zip archive", Path);
  // The end record is the last thing in the file: 22 bytes and a comment of
  // at most 64 KiB. Take the last signature whose comment ends the file.
  uint64_t EndOff = 0;
  bool Found = false;
  if (B.size() >= EndSize) {
    uint64_t Lowest = B.size() > EndSize + MaxCommentLength
                          ? B.size() - EndSize - MaxCommentLength
                          : 0;
    for (uint64_t Off = B.size() - EndSize + 1; Off-- > Lowest;) {
      if (B.u32(Off) == SigEnd && Off + EndSize + B.u16(Off + 20) == B.size()) {
        EndOff = Off;
        Found = true;
        break;
      }
    }
  }
  if (!Found) {
    if (B.fits(0, 4) && B.u32(0) == SigLocal)
      return inputError("{0}: truncated zip archive: the end-of-central-"
                        "directory record is missing",
                        Path);
    return inputError("{0}: not a zip archive (no end-of-central-directory "
                      "record)",
                      Path);
  }

  uint64_t Disk = B.u16(EndOff + 4), CdDisk = B.u16(EndOff + 6);
  uint64_t DiskCount = B.u16(EndOff + 8), Count = B.u16(EndOff + 10);
  uint64_t CdSize = B.u32(EndOff + 12), CdOff = B.u32(EndOff + 16);
  uint64_t RecordsStart = EndOff; // where the central directory must end

  if (EndOff >= Zip64LocatorSize &&
      B.u32(EndOff - Zip64LocatorSize) == SigZip64Locator) {
    uint64_t Count64 = 0, Size64 = 0, Off64 = 0;
    if (llvm::Error E = readZip64End(EndOff - Zip64LocatorSize, Count64, Size64,
                                     Off64, RecordsStart))
      return E;
    // Fields of the end record that are not saturated must say the same
    // (readZip64End has checked that the ZIP64 record is single-volume).
    struct Field {
      const char *What;
      uint64_t &Small;
      uint64_t Big;
      uint64_t Saturated;
    } Fields[] = {{"disk number", Disk, 0, Sat16},
                  {"central directory disk", CdDisk, 0, Sat16},
                  {"entry count on this disk", DiskCount, Count64, Sat16},
                  {"entry count", Count, Count64, Sat16},
                  {"central directory size", CdSize, Size64, Sat32},
                  {"central directory offset", CdOff, Off64, Sat32}};
    for (Field &F : Fields) {
      if (F.Small != F.Saturated && F.Small != F.Big)
        return inputError("{0}: the ZIP64 end-of-central-directory record "
                          "says {1} {2} but the end record says {3}",
                          Path, F.What, F.Big, F.Small);
      F.Small = F.Big;
    }
  }

  if (Disk != 0 || CdDisk != 0 || DiskCount != Count)
    return inputError("{0}: multi-volume (split) zip archives are not "
                      "supported",
                      Path);
  if (Count == 0)
    return inputError("{0}: zip archive has no entries", Path);
  if (Count > Limits.MaxEntries)
    return inputError(
        "{0}: zip archive has {1} entries, above the limit of {2}", Path, Count,
        Limits.MaxEntries);
  if (CdOff > RecordsStart || CdSize > RecordsStart - CdOff)
    return inputError("{0}: the central directory (offset {1}, {2} bytes) runs "
                      "past the end of the archive (offset {3}): truncated, or "
                      "a lying end record",
                      Path, CdOff, CdSize, RecordsStart);
  if (CdOff + CdSize != RecordsStart)
    return inputError("{0}: the central directory (offset {1}, {2} bytes) ends "
                      "{3} bytes before the end record",
                      Path, CdOff, CdSize, RecordsStart - CdOff - CdSize);
  if (Count > CdSize / CentralSize)
    return inputError("{0}: the end record declares {1} entries but the "
                      "central directory of {2} bytes cannot hold them",
                      Path, Count, CdSize);
  EntryCount = Count;
  CdOffset = CdOff;
  CdEnd = CdOff + CdSize;
  return llvm::Error::success();
}

llvm::Error Checker::readZip64End(uint64_t LocatorOff, uint64_t &Count,
                                  uint64_t &CdSize, uint64_t &CdOff,
                                  uint64_t &RecordsStart) {
  uint32_t Disk = B.u32(LocatorOff + 4);
  uint64_t RecordOff = B.u64(LocatorOff + 8);
  uint32_t Disks = B.u32(LocatorOff + 16);
  if (Disk != 0 || Disks > 1)
    return inputError("{0}: multi-volume (split) zip archives are not "
                      "supported",
                      Path);
  if (RecordOff > LocatorOff || LocatorOff - RecordOff < Zip64EndMinSize)
    return inputError("{0}: the ZIP64 locator points at offset {1}, outside "
                      "the archive's records (which end at {2})",
                      Path, RecordOff, LocatorOff);
  if (B.u32(RecordOff) != SigZip64End)
    return inputError("{0}: no ZIP64 end-of-central-directory record at "
                      "offset {1}",
                      Path, RecordOff);
  uint64_t RecordSize = B.u64(RecordOff + 4);
  if (RecordSize != LocatorOff - RecordOff - 12)
    return inputError("{0}: the ZIP64 end-of-central-directory record "
                      "declares {1} bytes but {2} lie before the locator",
                      Path, RecordSize, LocatorOff - RecordOff - 12);
  uint32_t RecDisk = B.u32(RecordOff + 16), RecCdDisk = B.u32(RecordOff + 20);
  uint64_t DiskCount = B.u64(RecordOff + 24);
  Count = B.u64(RecordOff + 32);
  CdSize = B.u64(RecordOff + 40);
  CdOff = B.u64(RecordOff + 48);
  if (RecDisk != 0 || RecCdDisk != 0 || DiskCount != Count)
    return inputError("{0}: multi-volume (split) zip archives are not "
                      "supported",
                      Path);
  RecordsStart = RecordOff;
  return llvm::Error::success();
}

llvm::Error Checker::readCentralDirectory() {
  Entries.reserve(EntryCount);
  Names.reserve(unsigned(std::min<uint64_t>(EntryCount, 1u << 20)));
  uint64_t Pos = CdOffset;
  for (uint64_t I = 0; I < EntryCount; ++I)
    if (llvm::Error E = readCentralEntry(Pos, I))
      return E;
  if (Pos != CdEnd)
    return inputError("{0}: the central directory is {1} bytes but its {2} "
                      "entries take {3}",
                      Path, CdEnd - CdOffset, EntryCount, Pos - CdOffset);
  return llvm::Error::success();
}

llvm::Error Checker::readCentralEntry(uint64_t &Pos, uint64_t Index) {
  if (CdEnd - Pos < CentralSize)
    return inputError("{0}: the central directory ends inside entry #{1}", Path,
                      Index);
  if (B.u32(Pos) != SigCentral)
    return inputError("{0}: no central directory header for entry #{1} at "
                      "offset {2}",
                      Path, Index, Pos);
  Entry En;
  En.Index = Index;
  En.Flags = B.u16(Pos + 8);
  En.Method = B.u16(Pos + 10);
  En.Crc = B.u32(Pos + 16);
  En.CompSize = B.u32(Pos + 20);
  En.Size = B.u32(Pos + 24);
  uint64_t NameLen = B.u16(Pos + 28), ExtraLen = B.u16(Pos + 30),
           CommentLen = B.u16(Pos + 32);
  uint16_t DiskStart = B.u16(Pos + 34);
  En.LocalOffset = B.u32(Pos + 42);
  uint64_t VarLen = NameLen + ExtraLen + CommentLen;
  if (CdEnd - Pos - CentralSize < VarLen)
    return inputError("{0}: the central directory ends inside entry #{1}", Path,
                      Index);
  if (NameLen > Limits.MaxNameLength)
    return inputError("{0}: entry #{1} has a name of {2} bytes, above the "
                      "limit of {3}",
                      Path, Index, NameLen, Limits.MaxNameLength);
  En.Name = B.str(Pos + CentralSize, NameLen);
  llvm::StringRef Extra = B.str(Pos + CentralSize + NameLen, ExtraLen);
  Pos += CentralSize + VarLen;

  if (En.Name.empty())
    return inputError("{0}: entry #{1} has an empty name", Path, Index);
  En.Shown = shownName(En.Name);
  if (const char *Problem = nameProblem(En.Name); *Problem)
    return inputError("{0}: entry '{1}' has a path-traversal name ({2})", Path,
                      En.Shown, Problem);
  if (!Names.insert(En.Name).second)
    return inputError("{0}: entry '{1}' appears twice", Path, En.Shown);

  if ((En.Flags & (FlagEncrypted | FlagStrongEncryption | FlagMaskedHeaders)) ||
      En.Method == MethodAes)
    return inputError("{0}: entry '{1}' is encrypted", Path, En.Shown);
  if (En.Method != MethodStored && En.Method != MethodDeflate)
    return inputError("{0}: entry '{1}' uses compression method {2}; only "
                      "stored (0) and deflate (8) are supported",
                      Path, En.Shown, En.Method);

  Zip64Field Z64;
  if (!findZip64(Extra, Z64))
    return inputError("{0}: entry '{1}' has a malformed extra field", Path,
                      En.Shown);
  uint64_t Disk = DiskStart == Sat16 ? Sat32 : DiskStart;
  if (!applyZip64(Z64, {&En.Size, &En.CompSize, &En.LocalOffset, &Disk}))
    return inputError("{0}: entry '{1}' has ZIP64 size markers but no ZIP64 "
                      "extra field holding the sizes",
                      Path, En.Shown);
  if (Disk != 0)
    return inputError("{0}: multi-volume (split) zip archives are not "
                      "supported",
                      Path);

  if (En.Size > Limits.MaxEntryBytes)
    return inputError("{0}: entry '{1}' declares {2} uncompressed bytes, above "
                      "the limit of {3} per entry",
                      Path, En.Shown, En.Size, Limits.MaxEntryBytes);
  if (__builtin_add_overflow(TotalBytes, En.Size, &TotalBytes) ||
      TotalBytes > Limits.MaxTotalBytes)
    return inputError("{0}: entry '{1}' brings the declared uncompressed total "
                      "above the limit of {2} bytes",
                      Path, En.Shown, Limits.MaxTotalBytes);
  if (En.Method == MethodStored && En.CompSize != En.Size)
    return inputError("{0}: entry '{1}' is stored uncompressed but declares "
                      "{2} compressed and {3} uncompressed bytes",
                      Path, En.Shown, En.CompSize, En.Size);

  if (llvm::Error E = checkLocalHeader(En))
    return E;
  Entries.push_back(std::move(En));
  return llvm::Error::success();
}

llvm::Error Checker::checkLocalHeader(Entry &En) {
  uint64_t Off = En.LocalOffset;
  if (Off > CdOffset || CdOffset - Off < LocalSize)
    return inputError("{0}: entry '{1}' has its local header at offset {2}, "
                      "outside the data area (which ends at {3})",
                      Path, En.Shown, Off, CdOffset);
  if (B.u32(Off) != SigLocal)
    return inputError("{0}: entry '{1}' has no local header at offset {2}",
                      Path, En.Shown, Off);
  uint16_t Flags = B.u16(Off + 6), Method = B.u16(Off + 8);
  uint32_t Crc = B.u32(Off + 14);
  uint64_t CompSize = B.u32(Off + 18), Size = B.u32(Off + 22);
  uint64_t NameLen = B.u16(Off + 26), ExtraLen = B.u16(Off + 28);
  uint64_t DataStart = Off + LocalSize;
  if (CdOffset - DataStart < NameLen + ExtraLen)
    return inputError("{0}: entry '{1}': its local header runs into the "
                      "central directory",
                      Path, En.Shown);
  llvm::StringRef Name = B.str(DataStart, NameLen);
  llvm::StringRef Extra = B.str(DataStart + NameLen, ExtraLen);
  DataStart += NameLen + ExtraLen;

  auto disagree = [&](const char *What, const std::string &Local,
                      const std::string &Central) {
    return inputError("{0}: entry '{1}': the local header says {2} {3} but "
                      "the central directory says {4}",
                      Path, En.Shown, What, Local, Central);
  };
  if (Name != En.Name)
    return disagree("name", "'" + shownName(Name) + "'", "'" + En.Shown + "'");
  constexpr uint16_t Compared =
      FlagEncrypted | FlagDescriptor | FlagStrongEncryption | FlagMaskedHeaders;
  if ((Flags & Compared) != (En.Flags & Compared))
    return disagree("flags", hex32(Flags & Compared),
                    hex32(En.Flags & Compared));
  if (Method != En.Method)
    return disagree("compression method", std::to_string(Method),
                    std::to_string(En.Method));

  Zip64Field Z64;
  if (!findZip64(Extra, Z64))
    return inputError("{0}: entry '{1}' has a malformed extra field in its "
                      "local header",
                      Path, En.Shown);
  if (!applyZip64(Z64, {&Size, &CompSize}))
    return inputError("{0}: entry '{1}' has ZIP64 size markers in its local "
                      "header but no ZIP64 extra field holding the sizes",
                      Path, En.Shown);

  // With a data descriptor the local header may leave CRC and sizes zero
  // (PyTorch does); the descriptor after the data must then hold them.
  bool Deferred =
      (Flags & FlagDescriptor) && Crc == 0 && CompSize == 0 && Size == 0;
  if (!Deferred) {
    if (Crc != En.Crc)
      return disagree("CRC", hex32(Crc), hex32(En.Crc));
    if (CompSize != En.CompSize)
      return disagree("compressed size", std::to_string(CompSize),
                      std::to_string(En.CompSize));
    if (Size != En.Size)
      return disagree("uncompressed size", std::to_string(Size),
                      std::to_string(En.Size));
  }

  if (En.CompSize > CdOffset - DataStart)
    return inputError("{0}: entry '{1}' declares {2} compressed bytes at "
                      "offset {3}, past the start of the central directory "
                      "(offset {4})",
                      Path, En.Shown, En.CompSize, DataStart, CdOffset);
  uint64_t End = DataStart + En.CompSize;

  if (Flags & FlagDescriptor) {
    // The signature is optional; sizes are 8 bytes when the local header
    // carries a ZIP64 field.
    uint64_t SizeBytes = Z64.Present ? 8 : 4;
    uint64_t Fields = 4 + 2 * SizeBytes;
    uint64_t Room = CdOffset - End;
    uint64_t At = End;
    if (Room >= 4 + Fields && B.u32(End) == SigDescriptor &&
        !(En.Crc == SigDescriptor && B.u32(End + 4) != SigDescriptor))
      At = End + 4;
    if (CdOffset - At < Fields)
      return inputError("{0}: entry '{1}' has no data descriptor after its "
                        "data",
                        Path, En.Shown);
    uint32_t DCrc = B.u32(At);
    uint64_t DComp = SizeBytes == 8 ? B.u64(At + 4) : B.u32(At + 4);
    uint64_t DSize = SizeBytes == 8 ? B.u64(At + 12) : B.u32(At + 8);
    auto disagreeDesc = [&](const char *What, const std::string &Desc,
                            const std::string &Central) {
      return inputError("{0}: entry '{1}': the data descriptor says {2} {3} "
                        "but the central directory says {4}",
                        Path, En.Shown, What, Desc, Central);
    };
    if (DCrc != En.Crc)
      return disagreeDesc("CRC", hex32(DCrc), hex32(En.Crc));
    if (DComp != En.CompSize)
      return disagreeDesc("compressed size", std::to_string(DComp),
                          std::to_string(En.CompSize));
    if (DSize != En.Size)
      return disagreeDesc("uncompressed size", std::to_string(DSize),
                          std::to_string(En.Size));
    End = At + Fields;
  }
  En.End = End;
  return llvm::Error::success();
}

llvm::Error Checker::checkOverlaps() {
  // Entries that share bytes are how non-recursive zip bombs multiply one
  // compressed stream; no writer does it honestly.
  std::vector<const Entry *> ByOffset;
  ByOffset.reserve(Entries.size());
  for (const Entry &En : Entries)
    ByOffset.push_back(&En);
  llvm::sort(ByOffset, [](const Entry *A, const Entry *B) {
    return A->LocalOffset < B->LocalOffset;
  });
  for (size_t I = 1; I < ByOffset.size(); ++I)
    if (ByOffset[I]->LocalOffset < ByOffset[I - 1]->End)
      return inputError("{0}: entries '{1}' and '{2}' overlap in the file",
                        Path, ByOffset[I - 1]->Shown, ByOffset[I]->Shown);
  return llvm::Error::success();
}

struct ZipCloser {
  void operator()(zip_t *Z) const { zip_discard(Z); }
};
struct ZipFileCloser {
  void operator()(zip_file_t *F) const { zip_fclose(F); }
};

llvm::Error Checker::readEntries() {
  zip_error_t Err;
  zip_error_init(&Err);
  llvm::StringRef Data = B.str(0, B.size());
  zip_source_t *Src =
      zip_source_buffer_create(Data.data(), Data.size(), 0, &Err);
  if (!Src) {
    std::string Msg = zip_error_strerror(&Err);
    zip_error_fini(&Err);
    return inputError("{0}: cannot read as a zip archive: {1}", Path, Msg);
  }
  std::unique_ptr<zip_t, ZipCloser> Zip(
      zip_open_from_source(Src, ZIP_RDONLY | ZIP_CHECKCONS, &Err));
  if (!Zip) {
    zip_source_free(Src);
    std::string Msg = zip_error_strerror(&Err);
    zip_error_fini(&Err);
    return inputError("{0}: not a valid zip archive: {1}", Path, Msg);
  }
  zip_error_fini(&Err);
  if (zip_get_num_entries(Zip.get(), 0) != zip_int64_t(Entries.size()))
    return inputError("{0}: libzip sees {1} entries where the central "
                      "directory has {2}",
                      Path, zip_get_num_entries(Zip.get(), 0), Entries.size());

  std::vector<char> Chunk(ChunkBytes);
  for (const Entry &En : Entries) {
    zip_stat_t St;
    zip_stat_init(&St);
    if (zip_stat_index(Zip.get(), En.Index, ZIP_FL_ENC_RAW, &St) != 0 ||
        !(St.valid & ZIP_STAT_SIZE) || St.size != En.Size)
      return inputError("{0}: entry '{1}' cannot be read: {2}", Path, En.Shown,
                        zip_strerror(Zip.get()));
    std::unique_ptr<zip_file_t, ZipFileCloser> F(
        zip_fopen_index(Zip.get(), En.Index, 0));
    if (!F)
      return inputError("{0}: entry '{1}' cannot be opened: {2}", Path,
                        En.Shown, zip_strerror(Zip.get()));
    uint64_t Got = 0;
    while (true) {
      zip_int64_t N = zip_fread(F.get(), Chunk.data(), Chunk.size());
      if (N < 0) {
        zip_error_t *FE = zip_file_get_error(F.get());
        int Code = zip_error_code_zip(FE);
        if (Code == ZIP_ER_CRC)
          return inputError("{0}: entry '{1}' fails its CRC check: the data "
                            "does not match CRC {2}",
                            Path, En.Shown, hex32(En.Crc));
        // At the end of the data libzip reports a short entry as
        // inconsistent; say what it is.
        if (Code == ZIP_ER_INCONS && Got < En.Size)
          return inputError("{0}: entry '{1}' declares {2} bytes but holds "
                            "only {3}",
                            Path, En.Shown, En.Size, Got);
        return inputError("{0}: entry '{1}' is corrupt: {2}", Path, En.Shown,
                          zip_error_strerror(FE));
      }
      if (N == 0)
        break;
      if (uint64_t(N) > En.Size - Got)
        return inputError("{0}: entry '{1}' holds more than the {2} bytes it "
                          "declares",
                          Path, En.Shown, En.Size);
      Got += uint64_t(N);
    }
    if (Got != En.Size)
      return inputError("{0}: entry '{1}' declares {2} bytes but holds only "
                        "{3}",
                        Path, En.Shown, En.Size, Got);
  }
  return llvm::Error::success();
}

} // namespace

llvm::Error checkZipArchive(llvm::StringRef Path, const ZipLimits &Limits) {
  auto Buf = mapFile(Path);
  if (!Buf)
    return Buf.takeError();
  return checkZipBytes((*Buf)->getBuffer(), Path, Limits);
}

llvm::Error checkZipBytes(llvm::StringRef Bytes, llvm::StringRef Name,
                          const ZipLimits &Limits) {
  return Checker(Name, Bytes, Limits).run();
}

} // namespace kiln

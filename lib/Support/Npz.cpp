// .npz archives through libzip. Reading bounds the entry count and sizes
// before inflating anything (a zip bomb gets an error, not an OOM) and relies
// on libzip's CRC check; writing builds the archive in memory with fixed
// timestamps (so outputs are deterministic) and then writes it atomically.
#include "Support/Error.h"
#include "Support/FileSystem.h"
#include "Support/Limits.h"
#include "Support/Npy.h"

#include <zip.h>

#include <algorithm>
#include <memory>
#include <set>

namespace kiln {

namespace {
constexpr int64_t MaxEntries = 4096;
constexpr uint64_t MaxTotalBytes = uint64_t(16) << 30;
/// 1980-01-01, the earliest time a zip header can hold.
constexpr time_t FixedMTime = 315532800;

struct ZipCloser {
  void operator()(zip_t *Z) const { zip_discard(Z); }
};
using ZipPtr = std::unique_ptr<zip_t, ZipCloser>;

std::string zipErrorText(zip_error_t *E) {
  std::string S = zip_error_strerror(E);
  return S;
}
} // namespace

llvm::Expected<std::vector<std::pair<std::string, NpyArray>>>
readNpzFile(llvm::StringRef Path, const NpzMemberCheck &Check) {
  auto Buf = mapFile(Path);
  if (!Buf)
    return Buf.takeError();
  return readNpzBuffer((*Buf)->getBuffer(), Path, Check);
}

llvm::Expected<std::vector<std::pair<std::string, NpyArray>>>
readNpzBuffer(llvm::StringRef Bytes, llvm::StringRef Path,
              const NpzMemberCheck &Check) {
  zip_error_t Err;
  zip_error_init(&Err);
  zip_source_t *Src =
      zip_source_buffer_create(Bytes.data(), Bytes.size(), 0, &Err);
  if (!Src) {
    std::string Msg = zipErrorText(&Err);
    zip_error_fini(&Err);
    return inputError("{0}: cannot read as .npz: {1}", Path, Msg);
  }
  ZipPtr Zip(zip_open_from_source(Src, ZIP_RDONLY | ZIP_CHECKCONS, &Err));
  if (!Zip) {
    zip_source_free(Src);
    std::string Msg = zipErrorText(&Err);
    zip_error_fini(&Err);
    return inputError("{0}: not a valid .npz (zip) archive: {1}", Path, Msg);
  }
  zip_error_fini(&Err);

  zip_int64_t Count = zip_get_num_entries(Zip.get(), 0);
  if (Count < 0 || Count > MaxEntries)
    return inputError("{0}: .npz has {1} entries, above the limit of {2}", Path,
                      Count, MaxEntries);
  std::vector<std::pair<std::string, NpyArray>> Out;
  std::set<std::string> Seen;
  uint64_t Total = 0;
  for (zip_int64_t I = 0; I < Count; ++I) {
    zip_stat_t St;
    if (zip_stat_index(Zip.get(), zip_uint64_t(I), 0, &St) != 0 ||
        !(St.valid & ZIP_STAT_NAME) || !(St.valid & ZIP_STAT_SIZE))
      return inputError("{0}: cannot read entry {1} of the archive", Path, I);
    llvm::StringRef Name = St.name;
    if (!Name.endswith(".npy"))
      return inputError("{0}: entry '{1}' is not an .npy array", Path, Name);
    if (St.size > limits::MaxFileBytes ||
        __builtin_add_overflow(Total, St.size, &Total) || Total > MaxTotalBytes)
      return inputError("{0}: entry '{1}' declares {2} bytes; the archive "
                        "exceeds the size limit",
                        Path, Name, St.size);
    std::string Key = Name.drop_back(4).str();
    if (!Seen.insert(Key).second)
      return inputError("{0}: entry '{1}' appears twice", Path, Name);
    zip_file_t *F = zip_fopen_index(Zip.get(), zip_uint64_t(I), 0);
    if (!F)
      return inputError("{0}: cannot open entry '{1}': {2}", Path, Name,
                        zip_strerror(Zip.get()));
    // The header first (at most npyMaxHeaderPrefix() bytes), checked
    // against the entry's size and the caller before the data is inflated.
    std::string MemberName = (Path + ":" + Name).str();
    auto Data = std::make_shared<std::string>(
        size_t(std::min<uint64_t>(St.size, npyMaxHeaderPrefix())), '\0');
    zip_int64_t Got = zip_fread(F, Data->data(), Data->size());
    llvm::Error HeaderError = llvm::Error::success();
    if (Got == zip_int64_t(Data->size())) {
      auto H = parseNpyHeader(*Data, MemberName);
      if (!H)
        HeaderError = H.takeError();
      else if (H->DataOffset + H->DataBytes != St.size)
        HeaderError = inputError(
            "{0}: header declares {1} elements of {2} ({3} bytes) but the "
            "entry holds {4} data bytes",
            MemberName, H->DataBytes / npyItemSize(H->DType),
            npyDescr(H->DType), H->DataBytes,
            St.size - std::min(St.size, H->DataOffset));
      else if (Check)
        HeaderError = Check(Key, *H);
    }
    if (HeaderError) {
      zip_fclose(F);
      return HeaderError;
    }
    if (Got == zip_int64_t(Data->size()) && Data->size() < St.size) {
      size_t Head = Data->size();
      Data->resize(size_t(St.size));
      zip_int64_t Rest = zip_fread(F, Data->data() + Head, St.size - Head);
      Got = Rest < 0 ? Rest : Got + Rest;
    }
    // One more read must hit EOF: an entry longer than declared is a lie too.
    char Extra;
    zip_int64_t More = Got == zip_int64_t(St.size) ? zip_fread(F, &Extra, 1) : 0;
    std::string FileErr = zip_error_strerror(zip_file_get_error(F));
    zip_fclose(F);
    if (Got != zip_int64_t(St.size) || More != 0)
      return inputError("{0}: entry '{1}' is corrupt or its size is wrong ({2})",
                        Path, Name, FileErr);
    auto Arr = parseNpy(*Data, MemberName, Data);
    if (!Arr)
      return Arr.takeError();
    Out.emplace_back(std::move(Key), std::move(*Arr));
  }
  return Out;
}

llvm::Error writeNpzFile(
    llvm::StringRef Path,
    llvm::ArrayRef<std::pair<std::string, std::string>> NamedNpyBytes) {
  zip_error_t Err;
  zip_error_init(&Err);
  zip_source_t *Mem = zip_source_buffer_create(nullptr, 0, 0, &Err);
  if (!Mem)
    return internalError("cannot create an in-memory zip: {0}",
                         zipErrorText(&Err));
  zip_source_keep(Mem);
  zip_t *Z = zip_open_from_source(Mem, ZIP_TRUNCATE, &Err);
  if (!Z) {
    zip_source_free(Mem);
    return internalError("cannot create an in-memory zip: {0}",
                         zipErrorText(&Err));
  }
  zip_error_fini(&Err);
  for (const auto &[Name, Bytes] : NamedNpyBytes) {
    zip_source_t *S =
        zip_source_buffer(Z, Bytes.data(), Bytes.size(), /*freep=*/0);
    zip_int64_t Idx =
        S ? zip_file_add(Z, (Name + ".npy").c_str(), S, ZIP_FL_ENC_UTF_8) : -1;
    if (Idx < 0) {
      if (S)
        zip_source_free(S);
      std::string Msg = zip_strerror(Z);
      zip_discard(Z);
      zip_source_free(Mem);
      return inputError("{0}: cannot add '{1}': {2}", Path, Name, Msg);
    }
    zip_set_file_compression(Z, zip_uint64_t(Idx), ZIP_CM_STORE, 0);
    zip_file_set_mtime(Z, zip_uint64_t(Idx), FixedMTime, 0);
  }
  if (zip_close(Z) != 0) {
    std::string Msg = zip_strerror(Z);
    zip_discard(Z);
    zip_source_free(Mem);
    return inputError("{0}: cannot build the archive: {1}", Path, Msg);
  }
  std::string Archive;
  if (zip_source_open(Mem) == 0) {
    zip_source_seek(Mem, 0, SEEK_END);
    zip_int64_t Size = zip_source_tell(Mem);
    zip_source_seek(Mem, 0, SEEK_SET);
    Archive.resize(size_t(Size));
    zip_int64_t Got = zip_source_read(Mem, Archive.data(), zip_uint64_t(Size));
    zip_source_close(Mem);
    if (Got != Size)
      Archive.clear();
  }
  zip_source_free(Mem);
  if (Archive.empty())
    return internalError("{0}: could not read back the in-memory archive", Path);
  return writeFileAtomically(Path, Archive);
}

} // namespace kiln

#include "Support/FileSystem.h"

#include "Support/Error.h"
#include "Support/Limits.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace kiln {

llvm::Expected<std::shared_ptr<llvm::MemoryBuffer>>
mapFile(llvm::StringRef Path) {
  llvm::sys::fs::file_status Status;
  if (std::error_code EC = llvm::sys::fs::status(Path, Status))
    return inputError("{0}: cannot open: {1}", Path, EC.message());
  if (Status.type() == llvm::sys::fs::file_type::directory_file)
    return inputError("{0}: is a directory, expected a file", Path);
  if (Status.getSize() > limits::MaxFileBytes)
    return inputError("{0}: file is {1} bytes, above the {2}-byte limit", Path,
                      Status.getSize(), limits::MaxFileBytes);
  auto BufOrErr = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
  if (!BufOrErr)
    return inputError("{0}: cannot read: {1}", Path,
                      BufOrErr.getError().message());
  return std::shared_ptr<llvm::MemoryBuffer>(std::move(*BufOrErr));
}

llvm::Error writeFileAtomically(llvm::StringRef Path, llvm::StringRef Bytes) {
  llvm::SmallString<256> Dir(Path);
  llvm::sys::path::remove_filename(Dir);
  if (Dir.empty())
    Dir = ".";
  llvm::SmallString<256> Model(Dir);
  llvm::sys::path::append(Model,
                          "." + llvm::sys::path::filename(Path) + ".tmp-%%%%%%");
  int FD = -1;
  llvm::SmallString<256> TempPath;
  if (std::error_code EC =
          llvm::sys::fs::createUniqueFile(Model, FD, TempPath))
    return inputError("{0}: cannot create a temporary file in '{1}': {2}", Path,
                      Dir, EC.message());
  auto Fail = [&](llvm::StringRef What) -> llvm::Error {
    std::string Reason = std::strerror(errno);
    ::close(FD);
    llvm::sys::fs::remove(TempPath);
    return inputError("{0}: {1} failed: {2}", Path, What, Reason);
  };
  const char *P = Bytes.data();
  size_t Left = Bytes.size();
  while (Left > 0) {
    ssize_t N = ::write(FD, P, Left);
    if (N < 0) {
      if (errno == EINTR)
        continue;
      return Fail("write");
    }
    P += N;
    Left -= size_t(N);
  }
  if (::fsync(FD) != 0)
    return Fail("fsync");
  if (::close(FD) != 0) {
    std::string Reason = std::strerror(errno);
    llvm::sys::fs::remove(TempPath);
    return inputError("{0}: close failed: {1}", Path, Reason);
  }
  if (std::error_code EC = llvm::sys::fs::rename(TempPath, Path)) {
    llvm::sys::fs::remove(TempPath);
    return inputError("{0}: cannot rename the temporary file into place: {1}",
                      Path, EC.message());
  }
  return llvm::Error::success();
}

} // namespace kiln

#include "passes/quant/CalibrationFiles.h"

#include "Support/Error.h"
#include "Support/FileSystem.h"
#include "Support/Image.h"

#include "llvm/ADT/Optional.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <map>

namespace kiln {

namespace {
constexpr size_t MaxFiles = 50'000'000;
constexpr uint64_t MaxListBytes = uint64_t(256) << 20;
constexpr int MaxFolderDepth = 32;

llvm::Optional<CalibrationFileKind> kindOf(llvm::StringRef Path) {
  if (isImagePath(Path))
    return CalibrationFileKind::Image;
  llvm::StringRef Ext = llvm::sys::path::extension(Path);
  if (Ext.equals_insensitive(".npy"))
    return CalibrationFileKind::Npy;
  if (Ext.equals_insensitive(".npz"))
    return CalibrationFileKind::Npz;
  return llvm::None;
}

/// Symbolic links are followed, so a folder or file can be reached twice:
/// a link to a folder above it (a loop) or two names of one file. Each is
/// an error naming both paths: counted again, a sample would weigh double
/// in the statistics without anyone asking for it.
llvm::Expected<std::vector<CalibrationFile>> listFolder(llvm::StringRef Dir) {
  std::vector<CalibrationFile> Files;
  std::map<llvm::sys::fs::UniqueID, std::string> Folders, Seen;
  llvm::sys::fs::file_status Root;
  if (!llvm::sys::fs::status(Dir, Root))
    Folders.emplace(Root.getUniqueID(), Dir.str());
  std::error_code EC;
  for (llvm::sys::fs::recursive_directory_iterator It(Dir, EC), End;
       It != End && !EC; It.increment(EC)) {
    if (It.level() > MaxFolderDepth) {
      It.no_push();
      continue;
    }
    // The followed file's status, with its device and inode.
    llvm::sys::fs::file_status Status;
    if (llvm::sys::fs::status(It->path(), Status))
      continue; // a dangling link
    if (Status.type() == llvm::sys::fs::file_type::directory_file) {
      auto [Where, New] = Folders.emplace(Status.getUniqueID(), It->path());
      if (!New)
        return inputError("{0}: '{1}' is the folder '{2}' again (a symbolic "
                          "link loop); remove the link",
                          Dir, It->path(), Where->second);
      continue;
    }
    auto Kind = kindOf(It->path());
    if (!Kind)
      continue;
    if (Status.type() != llvm::sys::fs::file_type::regular_file)
      continue;
    auto [Where, New] = Seen.emplace(Status.getUniqueID(), It->path());
    if (!New) {
      // Report the pair in path order, whatever order the folder lists.
      std::string A = Where->second;
      std::string B = It->path();
      if (B < A)
        std::swap(A, B);
      return inputError("{0}: '{1}' and '{2}' are the same file (a link); "
                        "each sample would be counted twice",
                        Dir, A, B);
    }
    if (Files.size() >= MaxFiles)
      return inputError("{0}: more than {1} calibration files", Dir, MaxFiles);
    Files.push_back({It->path(), *Kind});
  }
  if (EC)
    return inputError("{0}: cannot list the folder: {1}", Dir, EC.message());
  std::sort(Files.begin(), Files.end(),
            [](const CalibrationFile &A, const CalibrationFile &B) {
              return A.Path < B.Path;
            });
  return Files;
}

llvm::Expected<std::vector<CalibrationFile>> listFromText(llvm::StringRef List) {
  auto Buf = mapFile(List);
  if (!Buf)
    return Buf.takeError();
  llvm::StringRef Text = (*Buf)->getBuffer();
  if (Text.size() > MaxListBytes)
    return inputError("{0}: the calibration list is {1} bytes, above the "
                      "{2}-byte limit",
                      List, Text.size(), MaxListBytes);
  if (Text.contains('\0'))
    return inputError("{0}: not a text file; --calib takes a folder, an image "
                      "(.jpg, .jpeg, .png), an .npy/.npz file, or a text file "
                      "listing them",
                      List);
  llvm::SmallString<256> Base(List);
  llvm::sys::path::remove_filename(Base);
  std::vector<CalibrationFile> Files;
  size_t LineNo = 0;
  while (!Text.empty()) {
    auto [Line, Rest] = Text.split('\n');
    Text = Rest;
    ++LineNo;
    Line = Line.trim();
    if (Line.empty() || Line.startswith("#"))
      continue;
    auto Kind = kindOf(Line);
    if (!Kind)
      return inputError("{0}:{1}: '{2}' is not a .jpg, .jpeg, .png, .npy or "
                        ".npz file",
                        List, LineNo, Line);
    llvm::SmallString<256> P;
    if (llvm::sys::path::is_absolute(Line)) {
      P = Line;
    } else {
      P = Base;
      llvm::sys::path::append(P, Line);
    }
    if (!llvm::sys::fs::is_regular_file(P))
      return inputError("{0}:{1}: '{2}' does not exist or is not a file", List,
                        LineNo, P);
    if (Files.size() >= MaxFiles)
      return inputError("{0}: more than {1} calibration files", List, MaxFiles);
    Files.push_back({P.str().str(), *Kind});
  }
  return Files;
}
} // namespace

llvm::Expected<std::vector<CalibrationFile>>
listCalibrationFiles(llvm::StringRef Path) {
  llvm::sys::fs::file_status Status;
  if (std::error_code EC = llvm::sys::fs::status(Path, Status))
    return inputError("{0}: cannot open the calibration data: {1}", Path,
                      EC.message());
  if (Status.type() == llvm::sys::fs::file_type::directory_file)
    return listFolder(Path);
  if (auto Kind = kindOf(Path))
    return std::vector<CalibrationFile>{{Path.str(), *Kind}};
  return listFromText(Path);
}

} // namespace kiln

#include "KirPairWriter.h"

#include "Support/FileSystem.h"
#include "Support/FolderLock.h"
#include "Support/Hash.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <fstream>
#include <string>

namespace kiln {

namespace {

/// Whether Entry is a sidecar of the .kir named Base: `Base.weights` (the
/// name before sidecars carried a hash) or `Base.weights-HASH`.
bool isSidecarOf(llvm::StringRef Entry, llvm::StringRef Base) {
  if (!Entry.consume_front(Base) || !Entry.consume_front(".weights"))
    return false;
  return Entry.empty() ||
         (Entry.consume_front("-") && !Entry.empty() &&
          Entry.find_first_not_of("0123456789abcdef") == llvm::StringRef::npos);
}

/// The first line of every .kir in Dir (a `weights "NAME"` line where the
/// .kir has a sidecar). Only a line's first 4 KiB are read.
llvm::StringSet<> kirFirstLines(llvm::StringRef Dir) {
  llvm::StringSet<> Lines;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC)) {
    if (!llvm::StringRef(It->path()).endswith(".kir"))
      continue;
    std::ifstream In(It->path(), std::ios::binary);
    std::string Line(4096, '\0');
    In.read(Line.data(), static_cast<std::streamsize>(Line.size()));
    Line.resize(static_cast<size_t>(In.gcount()));
    Lines.insert(llvm::StringRef(Line).split('\n').first);
  }
  return Lines;
}

/// Removes Base's sidecars in Dir other than Keep that no .kir there names.
/// Best effort: the new pair is complete whatever this leaves.
void removeUnnamedSidecars(llvm::StringRef Dir, llvm::StringRef Base,
                           llvm::StringRef Keep) {
  llvm::StringSet<> Named = kirFirstLines(Dir);
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC)) {
    llvm::StringRef Entry = llvm::sys::path::filename(It->path());
    if (Entry == Keep || !isSidecarOf(Entry, Base))
      continue;
    if (Named.contains(llvm::StringRef(sidecarLine(Entry)).rtrim('\n')))
      continue;
    llvm::sys::fs::remove(It->path());
  }
}

} // namespace

llvm::Error writeKirPair(llvm::StringRef Out, llvm::StringRef Text,
                         const WeightsSidecar &Sidecar) {
  if (llvm::Error E = checkOutputPath(Out)) // before a sidecar is written
    return E;
  llvm::StringRef Base = llvm::sys::path::filename(Out);
  llvm::SmallString<256> Dir(llvm::sys::path::parent_path(Out));
  if (Dir.empty())
    Dir = ".";
  FolderLock Lock(Dir);
  std::string Name;
  std::string Full;
  if (!Sidecar.empty()) {
    Name = (Base + ".weights-" + hashToHex(contentHash(Sidecar.bytes()))).str();
    llvm::SmallString<256> SidecarPath(Dir);
    llvm::sys::path::append(SidecarPath, Name);
    if (llvm::Error E = writeFileAtomically(SidecarPath, Sidecar.bytes()))
      return E;
    Full = sidecarLine(Name);
  }
  Full += Text;
  if (llvm::Error E = writeFileAtomically(Out, Full))
    return E; // the sidecar just written is removed by the next write
  removeUnnamedSidecars(Dir, Base, Name);
  return llvm::Error::success();
}

} // namespace kiln

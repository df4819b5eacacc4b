// An advisory lock on a folder, held by writers that publish more than one
// file there as a unit (a .kir and its weights sidecar).
#pragma once

#include "llvm/ADT/StringRef.h"

namespace kiln {

/// Holds an exclusive flock(2) on a folder from construction to destruction:
/// two kiln processes that publish into the same folder take turns. Where
/// the filesystem has no locks (some network mounts), it holds nothing and
/// says so through held(); callers then rely on their own naming rules.
class FolderLock {
public:
  explicit FolderLock(llvm::StringRef Dir);
  ~FolderLock();
  FolderLock(const FolderLock &) = delete;
  FolderLock &operator=(const FolderLock &) = delete;

  bool held() const { return Held; }

private:
  int Fd = -1;
  bool Held = false;
};

} // namespace kiln

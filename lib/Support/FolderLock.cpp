#include "Support/FolderLock.h"

#include <cerrno>
#include <fcntl.h>
#include <string>
#include <sys/file.h>
#include <unistd.h>

namespace kiln {

FolderLock::FolderLock(llvm::StringRef Dir) {
  std::string Path = Dir.empty() ? std::string(".") : Dir.str();
  Fd = ::open(Path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (Fd < 0)
    return;
  int Rc;
  do
    Rc = ::flock(Fd, LOCK_EX);
  while (Rc != 0 && errno == EINTR);
  Held = Rc == 0;
}

FolderLock::~FolderLock() {
  if (Fd >= 0)
    ::close(Fd); // releases the lock
}

} // namespace kiln

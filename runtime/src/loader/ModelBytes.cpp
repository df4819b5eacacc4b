#include "loader/ModelBytes.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kiln::rt {

ModelBytes::~ModelBytes() {
  if (Fd >= 0)
    close(Fd);
  if (Mapped)
    munmap(const_cast<uint8_t *>(Data), Size);
  else if (!Borrowed)
    std::free(const_cast<uint8_t *>(Data));
}

std::shared_ptr<ModelBytes> ModelBytes::borrow(const void *Data, size_t Size) {
  std::shared_ptr<ModelBytes> B(new ModelBytes());
  B->Data = static_cast<const uint8_t *>(Data);
  B->Size = Size;
  B->Borrowed = true;
  return B;
}

uint64_t ModelBytes::releasePages(const uint8_t *Begin, uint64_t Bytes) const {
  if (Begin < Data || Bytes > Size || uint64_t(Begin - Data) > Size - Bytes)
    return 0;
  if (Parent) // a slice: the parent holds the mapping
    return Parent->releasePages(Begin, Bytes);
  if (!Mapped)
    return 0;
  const uintptr_t Page = uintptr_t(sysconf(_SC_PAGESIZE));
  uintptr_t From = (uintptr_t(Begin) + Page - 1) / Page * Page;
  uintptr_t To = (uintptr_t(Begin) + Bytes) / Page * Page;
  if (To <= From)
    return 0;
  // A private read-only file mapping: the pages come back from the file.
  if (madvise(reinterpret_cast<void *>(From), To - From, MADV_DONTNEED) != 0)
    return 0;
  return To - From;
}

std::shared_ptr<ModelBytes>
ModelBytes::slice(std::shared_ptr<const ModelBytes> Parent, size_t Offset,
                  size_t Size) {
  std::shared_ptr<ModelBytes> B(new ModelBytes());
  B->Data = Parent->data() + Offset;
  B->Size = Size;
  B->Borrowed = true; // the parent owns the bytes
  B->Parent = std::move(Parent);
  return B;
}

Status ModelBytes::mapFile(const char *Path, std::shared_ptr<ModelBytes> &Out) {
  int Fd = open(Path, O_RDONLY | O_CLOEXEC);
  if (Fd < 0)
    return {KILN_ERROR_IO, concat(Path, ": cannot open: ", std::strerror(errno))};
  struct stat St;
  if (fstat(Fd, &St) != 0 || !S_ISREG(St.st_mode)) {
    int Err = errno;
    close(Fd);
    return {KILN_ERROR_IO, concat(Path, ": not a regular file",
                                  Err ? std::string(": ") + std::strerror(Err)
                                      : std::string())};
  }
  if (St.st_size == 0) {
    close(Fd);
    return invalidModel(Path, ": the file is empty");
  }
  void *P = mmap(nullptr, size_t(St.st_size), PROT_READ, MAP_PRIVATE, Fd, 0);
  int Err = errno;
  if (P == MAP_FAILED) {
    close(Fd);
    return {KILN_ERROR_IO, concat(Path, ": cannot map: ", std::strerror(Err))};
  }
  std::shared_ptr<ModelBytes> B(new ModelBytes());
  B->Fd = Fd;
  B->Data = static_cast<const uint8_t *>(P);
  B->Size = size_t(St.st_size);
  B->Mapped = true;
  Out = std::move(B);
  return Status::ok();
}

Status ModelBytes::copyBuffer(const void *Data, size_t Size,
                              std::shared_ptr<ModelBytes> &Out) {
  if (!Data || Size == 0)
    return invalidArgument("kiln_model_load_buffer: empty or null buffer");
  size_t Rounded = (Size + 63) / 64 * 64;
  if (Rounded < Size)
    return {KILN_ERROR_OUT_OF_MEMORY, "kiln_model_load_buffer: size overflows"};
  void *P = std::aligned_alloc(64, Rounded);
  if (!P)
    return {KILN_ERROR_OUT_OF_MEMORY,
            concat("cannot allocate ", Size, " bytes for the model")};
  std::memcpy(P, Data, Size);
  std::shared_ptr<ModelBytes> B(new ModelBytes());
  B->Data = static_cast<const uint8_t *>(P);
  B->Size = Size;
  Out = std::move(B);
  return Status::ok();
}

} // namespace kiln::rt

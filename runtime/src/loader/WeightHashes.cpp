#include "loader/WeightHashes.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <iomanip>
#include <sstream>
#include <string>

namespace kiln::rt {

uint64_t weightHash(const void *Data, size_t Size) { return XXH64(Data, Size, 0); }

namespace {

/// "w0, w0.bias": the tensors whose bytes live in segment Index.
std::string tensorsIn(const fb::Model &Root, uint32_t Index) {
  std::string Names;
  if (Root.tensors())
    for (const fb::Tensor *T : *Root.tensors())
      if (T->buffer() == int32_t(Index))
        Names += (Names.empty() ? "" : ", ") +
                 (T->name() ? T->name()->str() : std::string("?"));
  return Names.empty() ? "no tensor" : Names;
}

std::string hex(uint64_t Value) {
  std::ostringstream OS;
  OS << std::hex << std::setw(16) << std::setfill('0') << Value;
  return OS.str();
}

} // namespace

Status verifyWeightHashes(const LoadedModel &Model) {
  const auto *Buffers = Model.Root->buffers();
  if (!Buffers)
    return Status::ok();
  for (uint32_t I = 0; I < Buffers->size(); ++I) {
    const fb::Buffer &B = *Buffers->Get(I);
    // The loader checked that every segment lies inside the file.
    if (B.xxhash64() == 0)
      return invalidModel("segment ", I, " (", tensorsIn(*Model.Root, I),
                          ") carries no weight hash (the file was written "
                          "before schema 1.7), so verify_weight_hashes "
                          "cannot check it");
    uint64_t Found = weightHash(Model.Bytes->data() + B.offset(), B.size());
    if (Found != B.xxhash64())
      return invalidModel("segment ", I, " (", B.size(), " bytes at offset ",
                          B.offset(), "; ", tensorsIn(*Model.Root, I),
                          ") is damaged: its xxHash64 is ", hex(Found),
                          ", the file records ", hex(B.xxhash64()));
  }
  return Status::ok();
}

} // namespace kiln::rt

#include "loader/WeightHashes.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <cstddef>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

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

/// The FlatBuffer against Model.flatbuffer_xxhash64: its bytes hashed with
/// that field's own 8 bytes read as zeros.
void checkStructureHash(const LoadedModel &Model, HashCheck &C) {
  const fb::Model &Root = *Model.Root;
  uint64_t Size = Root.flatbuffer_bytes(), Recorded = Root.flatbuffer_xxhash64();
  const uint8_t *Base = Model.Bytes->data();
  // Model derives privately from flatbuffers::Table, which finds fields.
  const uint8_t *Field = reinterpret_cast<const flatbuffers::Table &>(Root)
                             .GetAddressOf(fb::Model::VT_FLATBUFFER_XXHASH64);
  if (Size == 0 || Recorded == 0 || !Field) {
    C.Unrecorded.push_back("the file records no hash of its FlatBuffer");
    return;
  }
  uint64_t At = uint64_t(Field - Base);
  if (Size > Model.Bytes->size() || At + 8 > Size) {
    C.Mismatches.push_back(concat(
        "the FlatBuffer is damaged: it records its size as ", Size,
        " bytes, but the file is ", Model.Bytes->size(),
        " bytes and its hash field ends at byte ", At + 8));
    return;
  }
  // A copy with the field zeroed: the FlatBuffer is small beside the
  // weights (kilobytes for a CPU file, the shader text for a GPU one).
  std::vector<uint8_t> Flat(Base, Base + Size);
  std::fill_n(Flat.begin() + ptrdiff_t(At), 8, uint8_t(0));
  uint64_t Found = weightHash(Flat.data(), Flat.size());
  C.StructureHashed = true;
  if (Found != Recorded)
    C.Mismatches.push_back(concat("the FlatBuffer (", Size,
                                " bytes: the file's structure, operators and "
                                "options) is damaged: its xxHash64 is ",
                                hex(Found), ", the file records ",
                                hex(Recorded)));
}

} // namespace

HashCheck checkWeightHashes(const LoadedModel &Model) {
  HashCheck C;
  checkStructureHash(Model, C);
  const auto *Buffers = Model.Root->buffers();
  if (!Buffers)
    return C;
  for (uint32_t I = 0; I < Buffers->size(); ++I) {
    const fb::Buffer &B = *Buffers->Get(I);
    if (B.xxhash64() == 0) {
      ++C.SegmentsWithoutHash;
      C.Unrecorded.push_back(concat("segment ", I, " (", tensorsIn(*Model.Root, I),
                                  ") carries no weight hash"));
      continue;
    }
    // The loader checked that every segment lies inside the file.
    uint64_t Found = weightHash(Model.Bytes->data() + B.offset(), B.size());
    ++C.SegmentsHashed;
    C.BytesHashed += B.size();
    if (Found != B.xxhash64())
      C.Mismatches.push_back(concat("segment ", I, " (", B.size(),
                                  " bytes at offset ", B.offset(), "; ",
                                  tensorsIn(*Model.Root, I),
                                  ") is damaged: its xxHash64 is ", hex(Found),
                                  ", the file records ", hex(B.xxhash64())));
  }
  return C;
}

Status verifyWeightHashes(const LoadedModel &Model) {
  HashCheck C = checkWeightHashes(Model);
  if (!C.Unrecorded.empty())
    return invalidModel(C.Unrecorded.front(),
                        " (the file was written before schema 1.7), so "
                        "verify_weight_hashes cannot check it");
  if (!C.Mismatches.empty())
    return invalidModel(C.Mismatches.front());
  return Status::ok();
}

} // namespace kiln::rt

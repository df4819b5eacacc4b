// Layout: [FlatBuffer][zeros to 64][segment 0][zeros to 64][segment 1]...
// [last segment][zeros to 64][64 zeros].
// Segment offsets live inside the FlatBuffer, so the FlatBuffer is packed
// with offsets relative to the first segment, measured, then packed again
// with the real base. Defaults are forced, so every offset field is present
// and the second packing has the same size as the first.
#include "backends/common/KilnWriter.h"

#include "Support/Error.h"
#include "Support/FileSystem.h"
#include "Support/Hash.h"
#include "schema/KilnSchemaVersion.h"

#include <algorithm>

namespace kiln {

namespace {

/// Records the FlatBuffer's size and hash in its own fields
/// (Model.flatbuffer_bytes, flatbuffer_xxhash64): the hash covers every byte
/// with the hash field read as zeros. Called once every other field has its
/// final value.
void sealFlatBuffer(char *Flat, size_t Size) {
  fb::Model *Root = fb::GetMutableModel(Flat);
  Root->mutate_flatbuffer_bytes(Size);
  Root->mutate_flatbuffer_xxhash64(0);
  Root->mutate_flatbuffer_xxhash64(contentHash(llvm::StringRef(Flat, Size)));
}

uint64_t alignUp(uint64_t X) {
  return (X + fb::SegmentAlignment - 1) / fb::SegmentAlignment *
         fb::SegmentAlignment;
}

std::string packFlatBuffer(const fb::ModelT &M) {
  flatbuffers::FlatBufferBuilder B(1 << 16);
  B.ForceDefaults(true);
  B.Finish(fb::Model::Pack(B, &M), fb::ModelIdentifier());
  return std::string(reinterpret_cast<const char *>(B.GetBufferPointer()),
                     B.GetSize());
}

llvm::Error checkSegmentIndices(const KilnModule &M) {
  for (size_t I = 0; I < M.Model.tensors.size(); ++I) {
    int32_t Index = M.Model.tensors[I]->buffer;
    if (Index < -1 || Index >= int32_t(M.Segments.size()))
      return internalError("kiln writer: tensor {0} ('{1}') names segment {2} "
                           "of {3}",
                           I, M.Model.tensors[I]->name, Index,
                           M.Segments.size());
  }
  return llvm::Error::success();
}

/// 1.16 for GRU, 1.15 for LSTM or an omitted NNAPI operand, 1.14 for a self-test, 1.13 for a partitioned file, 1.12 for Metal kernels that read buffer lengths, 1.11 for BOX_NMS, 1.10
/// for image inputs (PIXELS_TO_TENSOR), 1.9 for symbolic dims, else 1.8.
uint32_t requiredMinor(const fb::ModelT &Model) {
  uint32_t Minor =
      Model.symbols.empty() ? fb::StaticFileMinor : fb::SymbolicFileMinor;
  for (const auto &Op : Model.operators)
    if (Op->kind == fb::OpKind::GRU)
      Minor = std::max<uint32_t>(Minor, 16);
    else if (Op->kind == fb::OpKind::LSTM)
      Minor = std::max<uint32_t>(Minor, 15);
    else if (Op->kind == fb::OpKind::BOX_NMS)
      Minor = std::max<uint32_t>(Minor, 11);
    else if (Op->kind == fb::OpKind::PIXELS_TO_TENSOR)
      Minor = std::max<uint32_t>(Minor, 10);
  if (const fb::MetalPayloadT *P = Model.payload.AsMetalPayload())
    for (const auto &K : P->kernels)
      if (K->buffer_size_index >= 0)
        Minor = std::max<uint32_t>(Minor, 12);
  if (Model.payload.AsPartitionedPayload())
    Minor = std::max<uint32_t>(Minor, 13);
  if (Model.self_test)
    Minor = std::max<uint32_t>(Minor, 14);
  if (const fb::NnapiPayloadT *P = Model.payload.AsNnapiPayload())
    for (const auto &Operand : P->operands)
      if (Operand->source == fb::NnapiValueSource::OMITTED)
        Minor = std::max<uint32_t>(Minor, 15);
  return Minor;
}

} // namespace

llvm::Expected<std::unique_ptr<KilnFileLayout>> layoutKilnModule(KilnModule &M) {
  if (llvm::Error E = checkSegmentIndices(M))
    return E;
  M.Model.schema_major = fb::SchemaMajor;
  // A file is stamped with the oldest minor that has what it uses, so a
  // static file keeps 1.8's stamp and bytes.
  M.Model.schema_minor = requiredMinor(M.Model);

  // Segment offsets relative to the first one.
  std::vector<uint64_t> Relative;
  uint64_t SegmentsEnd = 0;
  for (const Segment &S : M.Segments) {
    SegmentsEnd = alignUp(SegmentsEnd);
    Relative.push_back(SegmentsEnd);
    SegmentsEnd += S.size();
  }
  M.Model.buffers.clear();
  auto Hashes = std::make_shared<std::vector<uint64_t>>(M.Segments.size(), 0);
  for (size_t I = 0; I < M.Segments.size(); ++I) {
    auto B = std::make_unique<fb::BufferT>();
    B->offset = Relative[I];
    B->size = M.Segments[I].size();
    if (!M.Segments[I].isProduced()) {
      const Buffer &Bytes = M.Segments[I].bytes();
      B->xxhash64 = (*Hashes)[I] = contentHash(Bytes.str());
      Bytes.releaseResident();
    }
    M.Model.buffers.push_back(std::move(B));
  }

  uint64_t Base = alignUp(packFlatBuffer(M.Model).size());
  std::string Flat;
  for (int Attempt = 0;; ++Attempt) {
    for (size_t I = 0; I < M.Segments.size(); ++I)
      M.Model.buffers[I]->offset = Base + Relative[I];
    Flat = packFlatBuffer(M.Model);
    if (alignUp(Flat.size()) == Base)
      break;
    if (Attempt == 2)
      return internalError("kiln writer: the FlatBuffer size does not settle "
                           "({0} bytes, segments at {1})",
                           Flat.size(), Base);
    Base = alignUp(Flat.size());
  }

  // Final unless segments are produced or the source hash comes late;
  // patchHashes seals it again then.
  sealFlatBuffer(Flat.data(), Flat.size());
  auto L = std::make_unique<KilnFileLayout>();
  L->FlatBuffer = std::move(Flat);
  L->SegmentHashes = Hashes;
  L->Pieces.push_back({0, L->FlatBuffer});
  for (size_t I = 0; I < M.Segments.size(); ++I) {
    const Segment &S = M.Segments[I];
    if (!S.isProduced()) {
      Buffer Bytes = S.bytes(); // shares the bytes, not a copy
      L->Pieces.push_back({Base + Relative[I], Bytes.str(), nullptr, 0,
                           [Bytes] { Bytes.releaseResident(); }});
      continue;
    }
    // Hashed as it is produced (possibly more than once: the same value).
    L->LateHashed.push_back(I);
    uint64_t Size = S.size();
    L->Pieces.push_back({Base + Relative[I],
                         {},
                         [Produce = S.producer(), Hashes, I, Size](char *Out) {
                           Produce(Out);
                           (*Hashes)[I] = contentHash(llvm::StringRef(Out, Size));
                         },
                         Size});
  }
  L->Size = L->FlatBuffer.size();
  // Zeros after the last segment, so that kernels which read a little past
  // their inputs (XNNPACK: 16 bytes) stay inside the file.
  if (!M.Segments.empty())
    L->Size = alignUp(Base + SegmentsEnd) + fb::SegmentAlignment;
  return L;
}

void KilnFileLayout::patchHashes(char *Flat) const {
  fb::Model *Root = fb::GetMutableModel(Flat);
  for (size_t I : LateHashed)
    Root->mutable_buffers()->GetMutableObject(unsigned(I))->mutate_xxhash64(
        (*SegmentHashes)[I]);
  sealFlatBuffer(Flat, FlatBuffer.size());
}

llvm::Expected<std::string> serializeKilnModule(KilnModule &M) {
  auto L = layoutKilnModule(M);
  if (!L)
    return L.takeError();
  std::string File((*L)->Size, '\0');
  for (const FilePiece &P : (*L)->Pieces) {
    if (P.Produce) // a multiple of 64 past the string's (16-aligned) start
      P.Produce(File.data() + P.Offset);
    else
      std::copy(P.Bytes.begin(), P.Bytes.end(), File.begin() + P.Offset);
  }
  (*L)->patchHashes(File.data());
  return File;
}

llvm::Error writeKilnFile(
    llvm::StringRef Path, KilnModule &M,
    llvm::function_ref<llvm::Error(llvm::StringRef Written)> Check,
    LateSourceHash SourceHash) {
  if (SourceHash) {
    if (!M.Model.metadata)
      return internalError("kiln writer: a late source hash needs metadata");
    // Same length as the real hash, so the layout does not change.
    M.Model.metadata->source_hash = hashToHex(0);
  }
  auto L = layoutKilnModule(M);
  if (!L)
    return L.takeError();
  const KilnFileLayout &Layout = **L;
  if (!SourceHash && Layout.LateHashed.empty())
    return writeFileAtomically(Path, Layout.Pieces, Layout.Size, Check);

  // The FlatBuffer last, with its late fields filled in.
  const std::string &Flat = Layout.FlatBuffer;
  size_t HashAt = 0;
  if (SourceHash)
    HashAt = size_t(fb::GetModel(Flat.data())->metadata()->source_hash()->data() -
                    Flat.data());
  std::vector<FilePiece> Pieces(Layout.Pieces.begin() + 1, Layout.Pieces.end());
  Pieces.push_back({0, {},
                    [&Flat, &Layout, HashAt, SourceHash](char *Out) {
                      std::copy(Flat.begin(), Flat.end(), Out);
                      if (SourceHash) {
                        std::string Hex = hashToHex(SourceHash());
                        std::copy(Hex.begin(), Hex.end(), Out + HashAt);
                      }
                      Layout.patchHashes(Out);
                    },
                    Flat.size()});
  return writeFileAtomically(Path, Pieces, (*L)->Size, Check);
}

} // namespace kiln

// kiln verify: everything a .kiln file can be checked for without running
// it. The runtime's loader checks the structure (every offset, index, size
// and the target's payload); then the FlatBuffer and each weight segment
// are hashed and compared with the xxHash64 the writer recorded
// (Model.flatbuffer_xxhash64, Buffer.xxhash64; schema 1.7), and the 64 zero
// bytes after the last segment are checked.
// Every damaged segment is listed, with the tensors that use it.
// The zero padding between segments is checked too.
//   kiln verify FILE.kiln [--json]
#include "Command.h"

#include "Support/Error.h"
#include "Support/FileSystem.h"
#include "Support/Hash.h"
#include "kiln/kiln.h"
#include "schema/KilnSchemaVersion.h"
#include "schema/kiln_generated.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

namespace kiln {

namespace {

struct VerifyOptions {
  std::string File;
  bool Json = false;
};

/// The names of the tensors stored in segment Index ("w0, w0.bias").
std::string tensorsOf(const fb::Model &M, uint32_t Index) {
  std::string Names;
  if (M.tensors())
    for (const fb::Tensor *T : *M.tensors())
      if (T->buffer() == int32_t(Index))
        Names += (Names.empty() ? "" : ", ") +
                 (T->name() ? T->name()->str() : std::string("?"));
  return Names.empty() ? "no tensor" : Names;
}

llvm::Error runVerify(const VerifyOptions &O) {
  auto Buf = mapFile(O.File);
  if (!Buf)
    return Buf.takeError();
  llvm::StringRef Bytes = (*Buf)->getBuffer();
  if (kiln_verify_buffer(Bytes.data(), Bytes.size()) != KILN_OK)
    return inputError("{0}: {1}", O.File, kiln_last_error());
  const fb::Model &M = *fb::GetModel(Bytes.data());
  // Files from schema 1.7 on record every hash: a missing one is damage.
  bool HashesExpected = M.schema_minor() >= 7;
  uint64_t Hashed = 0, HashedBytes = 0, Unrecorded = 0, LastEnd = 0;
  std::vector<std::string> Damage;
  bool StructureHashed = false;
  if (M.flatbuffer_bytes() != 0 && M.flatbuffer_xxhash64() != 0) {
    uint64_t Size = M.flatbuffer_bytes();
    // Model derives privately from flatbuffers::Table, which finds fields.
    uint64_t At = uint64_t(
        reinterpret_cast<const flatbuffers::Table &>(M).GetAddressOf(
            fb::Model::VT_FLATBUFFER_XXHASH64) -
        reinterpret_cast<const uint8_t *>(Bytes.data()));
    if (Size > Bytes.size() || At + 8 > Size) {
      Damage.push_back(llvm::formatv(
          "the FlatBuffer records its size as {0} bytes, but the file is {1} "
          "bytes and its hash field ends at byte {2}",
          Size, Bytes.size(), At + 8));
    } else {
      std::string Flat = Bytes.substr(0, Size).str();
      std::fill_n(Flat.begin() + At, 8, '\0');
      uint64_t Found = contentHash(Flat);
      StructureHashed = true;
      if (Found != M.flatbuffer_xxhash64())
        Damage.push_back(llvm::formatv(
            "the FlatBuffer ({0} bytes: the structure, operators and their "
            "options): xxHash64 {1}, the file records {2}",
            Size, hashToHex(Found), hashToHex(M.flatbuffer_xxhash64())));
    }
  } else if (HashesExpected) {
    Damage.push_back("the FlatBuffer records no hash of itself, which every "
                     "file of schema 1.7 or later does");
  }
  if (const auto *Buffers = M.buffers())
    for (uint32_t I = 0; I < Buffers->size(); ++I) {
      const fb::Buffer *B = Buffers->Get(I);
      LastEnd = std::max<uint64_t>(LastEnd, B->offset() + B->size());
      if (B->xxhash64() == 0) {
        ++Unrecorded;
        if (HashesExpected)
          Damage.push_back(llvm::formatv(
              "segment {0} ({1}) records no hash, which every segment of a "
              "file of schema 1.7 or later does",
              I, tensorsOf(M, I)));
        continue;
      }
      uint64_t Found = contentHash(Bytes.substr(B->offset(), B->size()));
      ++Hashed;
      HashedBytes += B->size();
      if (Found != B->xxhash64())
        Damage.push_back(llvm::formatv(
            "segment {0} ({1} bytes at offset {2}; {3}): xxHash64 {4}, the "
            "file records {5}",
            I, B->size(), B->offset(), tensorsOf(M, I), hashToHex(Found),
            hashToHex(B->xxhash64())));
    }
  // The gaps before each segment are the writer's zero padding.
  std::vector<std::pair<uint64_t, uint64_t>> Spans;
  if (StructureHashed) // then the padding after the FlatBuffer is checked too
    Spans.push_back({0, M.flatbuffer_bytes()});
  if (const auto *Buffers = M.buffers())
    for (const fb::Buffer *B : *Buffers)
      if (B->size())
        Spans.push_back({B->offset(), B->offset() + B->size()});
  std::sort(Spans.begin(), Spans.end());
  for (size_t I = 1; I < Spans.size(); ++I)
    if (Spans[I].first > Spans[I - 1].second &&
        Bytes.slice(Spans[I - 1].second, Spans[I].first)
                .find_first_not_of('\0') != llvm::StringRef::npos)
      Damage.push_back(llvm::formatv(
          "the padding at bytes {0}..{1}, before a segment, is not zeros",
          Spans[I - 1].second, Spans[I].first));
  bool Tail = true;
  if (LastEnd) {
    llvm::StringRef After = Bytes.substr(LastEnd);
    Tail = After.size() >= fb::SegmentAlignment &&
           After.find_first_not_of('\0') == llvm::StringRef::npos;
    if (!Tail)
      Damage.push_back(llvm::formatv(
          "the {0} bytes after the last segment are not the {1} zero bytes "
          "the writer leaves (the file is truncated or damaged)",
          After.size(), fb::SegmentAlignment));
  }
  if (!Damage.empty()) {
    std::string Text = llvm::formatv("{0}: {1} problem(s):", O.File, Damage.size());
    for (const std::string &D : Damage)
      Text += "\n  " + D;
    return inputError("{0}", Text);
  }
  if (O.Json) {
    printJson(llvm::json::Object{{"file", O.File},
                                 {"ok", true},
                                 {"structure_hashed", StructureHashed},
                                 {"segments_hashed", int64_t(Hashed)},
                                 {"bytes_hashed", int64_t(HashedBytes)},
                                 {"segments_without_hash", int64_t(Unrecorded)},
                                 {"tail_guard", Tail}});
    return llvm::Error::success();
  }
  llvm::outs() << O.File << ": ok: the structure verifies"
               << (StructureHashed ? " and matches its recorded hash" : "")
               << "; " << Hashed << " segment(s), " << HashedBytes
               << " bytes, match their recorded hashes";
  if (Unrecorded)
    llvm::outs() << "; " << Unrecorded
                 << " segment(s) carry no hash (written before schema 1.7)";
  llvm::outs() << "\n";
  return llvm::Error::success();
}

} // namespace

Command addVerifyCommand(CLI::App &App) {
  auto O = std::make_shared<VerifyOptions>();
  CLI::App *Sub = App.add_subcommand(
      "verify", "check a .kiln file completely: its structure, every weight "
                "segment against its recorded hash, and the tail guard");
  Sub->add_option("file", O->File, "the .kiln file")->required();
  Sub->add_flag("--json", O->Json, "print a JSON report on stdout");
  return {Sub, [O] { return runVerify(*O); }};
}

} // namespace kiln

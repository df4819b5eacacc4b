// kiln verify: everything a .kiln file can be checked for without running
// it. The runtime (kiln_verify_hashes) checks the structure (every offset,
// index, size and the target's payload), then hashes the FlatBuffer and each
// weight segment and compares them with the xxHash64s the writer recorded
// (Model.flatbuffer_xxhash64, Buffer.xxhash64; schema 1.7), naming every
// damaged segment with its tensors. Here: the zero padding before each
// segment, and the 64 zero bytes after the last.
//   kiln verify FILE.kiln [--json]
#include "Command.h"

#include "Support/Error.h"
#include "Support/FileSystem.h"
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

llvm::Error runVerify(const VerifyOptions &O) {
  auto Buf = mapFile(O.File);
  if (!Buf)
    return Buf.takeError();
  llvm::StringRef Bytes = (*Buf)->getBuffer();
  // The runtime checks the structure, then every recorded hash, and lists
  // what is damaged, one problem a line.
  kiln_hash_report Report{};
  Report.struct_size = sizeof Report;
  std::vector<std::string> Damage;
  if (kiln_verify_hashes(Bytes.data(), Bytes.size(), &Report) != KILN_OK) {
    if (Report.problems == 0) // the structure did not verify
      return inputError("{0}: {1}", O.File, kiln_last_error());
    llvm::SmallVector<llvm::StringRef, 8> Lines;
    llvm::StringRef(kiln_last_error()).split(Lines, '\n');
    for (llvm::StringRef L : Lines)
      Damage.push_back(L.str());
  }
  // What only the writer's layout tells: the zero padding before each
  // segment and the zero tail guard after the last.
  const fb::Model &M = *fb::GetModel(Bytes.data());
  uint64_t LastEnd = 0;
  std::vector<std::pair<uint64_t, uint64_t>> Spans;
  if (Report.structure_hashed) // its size is checked: the padding after it too
    Spans.push_back({0, M.flatbuffer_bytes()});
  if (const auto *Buffers = M.buffers())
    for (const fb::Buffer *B : *Buffers) {
      LastEnd = std::max<uint64_t>(LastEnd, B->offset() + B->size());
      if (B->size())
        Spans.push_back({B->offset(), B->offset() + B->size()});
    }
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
                                 {"structure_hashed", Report.structure_hashed != 0},
                                 {"segments_hashed", int64_t(Report.segments_hashed)},
                                 {"bytes_hashed", int64_t(Report.bytes_hashed)},
                                 {"segments_without_hash",
                                  int64_t(Report.segments_without_hash)},
                                 {"tail_guard", Tail}});
    return llvm::Error::success();
  }
  commandOut() << O.File << ": ok: the structure verifies"
               << (Report.structure_hashed ? " and matches its recorded hash" : "")
               << "; " << Report.segments_hashed << " segment(s), "
               << Report.bytes_hashed << " bytes, match their recorded hashes";
  if (Report.segments_without_hash)
    commandOut() << "; " << Report.segments_without_hash
                 << " segment(s) carry no hash (written before schema 1.7)";
  commandOut() << "\n";
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

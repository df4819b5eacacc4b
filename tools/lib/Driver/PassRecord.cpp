#include "Driver/PassRecord.h"

#include "Support/Error.h"
#include "Support/FileSystem.h"
#include "Support/Hash.h"
#include "Support/Json.h"

#include <algorithm>


namespace kiln {

namespace {

constexpr const char *Format = "kiln-pass-record";
constexpr int64_t FormatVersion = 1;

llvm::json::Object countsJson(const std::map<std::string, int64_t> &Counts) {
  llvm::json::Object O;
  for (const auto &[K, N] : Counts)
    O[K] = N;
  return O;
}

/// Reads the JSON object Key of O as name -> count; false on any other shape.
bool readCounts(const llvm::json::Object &O, llvm::StringRef Key,
                std::map<std::string, int64_t> &Out) {
  const llvm::json::Object *Counts = O.getObject(Key);
  if (!Counts)
    return false;
  for (const auto &[K, V] : *Counts) {
    // No graph has 2^40 of anything; JSON's larger numbers read as the
    // int64 maximum.
    auto N = V.getAsInteger();
    if (!N || *N < 0 || *N > (int64_t(1) << 40))
      return false;
    Out[K.str()] = *N;
  }
  return true;
}

/// Where two pass lists part: "pass 16 is expand-layer-norm there and
/// eliminate-noops here".
template <typename SamePass>
std::string firstDifference(const std::vector<std::string> &There,
                            const std::vector<std::string> &Here,
                            SamePass Same) {
  size_t I = 0;
  while (I < There.size() && I < Here.size() && Same(There[I], Here[I]))
    ++I;
  auto At = [&](const std::vector<std::string> &L) {
    return I < L.size() ? L[I] : std::string("the end");
  };
  if (I == There.size() && I == Here.size())
    return "the same passes";
  if (I == Here.size())
    return llvm::formatv("it ran {0} more", There.size() - I);
  return llvm::formatv("pass {0} is {1} there and {2} here", I + 1, At(There),
                       At(Here));
}

} // namespace

void addPassRecordFlag(CLI::App &Sub, std::string &Path) {
  Sub.add_option("--pass-record", Path,
                 "the model is a .kir that `kiln opt --pass-record FILE` "
                 "wrote: its pipeline ran then and is recorded, not run again");
}

llvm::json::Value passRecordJson(const PassRecord &R) {
  llvm::json::Array Passes;
  for (const PassSummary &P : R.Passes)
    Passes.push_back(llvm::json::Object{{"name", P.Name},
                                        {"changed", P.Changed},
                                        {"counts", countsJson(P.Counts)}});
  return llvm::json::Object{{"format", Format},
                            {"format_version", FormatVersion},
                            {"kiln", R.Kiln},
                            {"target", R.Target},
                            {"pipeline", R.Pipeline},
                            {"ir_hash", R.IrHash},
                            {"ops_before", countsJson(R.OpsBefore)},
                            {"passes", std::move(Passes)}};
}

llvm::Expected<PassRecord> readPassRecord(llvm::StringRef Path) {
  auto Buf = mapFile(Path);
  if (!Buf)
    return Buf.takeError();
  return parsePassRecord((*Buf)->getBuffer(), Path);
}

llvm::Expected<PassRecord> parsePassRecord(llvm::StringRef Text,
                                           llvm::StringRef Path) {
  auto V = parseJsonFile(Text, Path);
  if (!V)
    return V.takeError();
  auto Bad = [&](llvm::StringRef What) {
    return inputError("{0}: not a pass record (kiln opt --pass-record): {1}",
                      Path, What);
  };
  const llvm::json::Object *O = V->getAsObject();
  if (!O)
    return Bad("not a JSON object");
  if (O->getString("format") != llvm::Optional<llvm::StringRef>(Format))
    return Bad("its \"format\" is not \"kiln-pass-record\"");
  if (O->getInteger("format_version") != FormatVersion)
    return Bad("its \"format_version\" is not 1");
  PassRecord R;
  for (auto [Key, Field] :
       {std::pair<const char *, std::string *>{"kiln", &R.Kiln},
        {"target", &R.Target},
        {"pipeline", &R.Pipeline},
        {"ir_hash", &R.IrHash}}) {
    auto S = O->getString(Key);
    if (!S)
      return Bad(std::string("\"") + Key + "\" is missing or not a string");
    *Field = S->str();
  }
  if (!readCounts(*O, "ops_before", R.OpsBefore))
    return Bad("\"ops_before\" is not an object of counts");
  const llvm::json::Array *Passes = O->getArray("passes");
  if (!Passes)
    return Bad("\"passes\" is missing or not an array");
  for (const llvm::json::Value &P : *Passes) {
    const llvm::json::Object *PO = P.getAsObject();
    PassSummary S;
    auto Name = PO ? PO->getString("name") : llvm::None;
    auto Changed = PO ? PO->getBoolean("changed") : llvm::None;
    if (!Name || !Changed || !readCounts(*PO, "counts", S.Counts))
      return Bad("a \"passes\" entry is not {\"name\", \"changed\", \"counts\"}");
    S.Name = Name->str();
    S.Changed = *Changed;
    R.Passes.push_back(std::move(S));
  }
  return R;
}

llvm::Expected<std::string> irFileHash(llvm::StringRef Path) {
  auto Buf = mapFile(Path);
  if (!Buf)
    return Buf.takeError();
  return hashToHex(contentHash((*Buf)->getBuffer()));
}

llvm::Expected<std::vector<std::string>>
checkPassRecord(const PassRecord &Record, llvm::StringRef RecordPath,
                const CompileGraphOptions &O,
                const std::vector<std::string> &Want) {
  if (!llvm::StringRef(O.Input).endswith(".kir"))
    return usageError("--pass-record {0}: the model must be the .kir that "
                      "kiln opt wrote with it, not {1}",
                      RecordPath, O.Input);
  if (Record.Kiln != O.KilnVersion)
    return inputError("{0}: recorded by kiln {1}; this is kiln {2}: run kiln "
                      "opt again",
                      RecordPath, Record.Kiln, O.KilnVersion);
  auto Hash = irFileHash(O.Input);
  if (!Hash)
    return Hash.takeError();
  if (*Hash != Record.IrHash)
    return inputError("{0}: records another .kir than {1} (its hash is {2}, "
                      "the record's {3}): the .kir changed after kiln opt "
                      "wrote it",
                      RecordPath, O.Input, *Hash, Record.IrHash);
  const Target &T = O.ForTarget ? *O.ForTarget : *findTarget("cpu");
  std::vector<std::string> Have;
  for (const PassSummary &P : Record.Passes)
    Have.push_back(P.Name);
  // A pass the target's options replace by a variant (PassVariants) may
  // have run as itself: the .kir then holds what the pass made, which the
  // target runs too.
  std::map<std::string, std::string> Variants;
  if (T.PassVariants)
    Variants = T.PassVariants(pipelineTargetOptions(O));
  auto Same = [&](const std::string &Ran, const std::string &Wanted) {
    auto V = Variants.find(Ran);
    return Ran == Wanted || (V != Variants.end() && V->second == Wanted);
  };
  bool Prefix = Have.size() <= Want.size() &&
                std::equal(Have.begin(), Have.end(), Want.begin(), Same);
  if (!Prefix || Record.Pipeline != O.Pipeline.label())
    return usageError(
        "{0}: {1} went through target {2}'s {3} pipeline ({4} passes); this "
        "command runs target {5}'s {6} pipeline ({7} passes), and {8}: give "
        "kiln opt the same --target and pipeline flags",
        RecordPath, O.Input, Record.Target, Record.Pipeline, Have.size(),
        T.Name, O.Pipeline.label(), Want.size(), firstDifference(Have, Want, Same));
  return std::vector<std::string>(Want.begin() + Have.size(), Want.end());
}

} // namespace kiln

#include "Build/BuildState.h"

#include "Support/Error.h"
#include "Support/FileSystem.h"
#include "Support/Hash.h"
#include "Support/Json.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <vector>

namespace kiln {

namespace {

llvm::Expected<std::string> hashFile(const std::string &Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!Buf)
    return inputError("{0}: cannot read: {1}", Path, Buf.getError().message());
  return hashToHex(contentHash((*Buf)->getBuffer()));
}

std::optional<JobStamp> parseStamp(const llvm::json::Object &O) {
  JobStamp S;
  auto Key = O.getString("key");
  if (!Key)
    return std::nullopt;
  S.Key = Key->str();
  S.Seconds = O.getNumber("seconds").getValueOr(0);
  if (const llvm::json::Object *Outs = O.getObject("outputs"))
    for (const auto &[Path, Hash] : *Outs)
      if (auto H = Hash.getAsString())
        S.Outputs[Path.str()] = H->str();
  return S;
}

llvm::json::Object stampJson(const JobStamp &S) {
  llvm::json::Object Outs;
  for (const auto &[Path, Hash] : S.Outputs)
    Outs[Path] = Hash;
  return llvm::json::Object{{"key", S.Key},
                            {"seconds", S.Seconds},
                            {"outputs", std::move(Outs)}};
}

} // namespace

llvm::Expected<std::string> hashPath(const std::string &Path) {
  llvm::sys::fs::file_status St;
  if (llvm::sys::fs::status(Path, St) || !llvm::sys::fs::exists(St))
    return inputError("{0}: no such file or folder", Path);
  if (!llvm::sys::fs::is_directory(St))
    return hashFile(Path);
  std::vector<std::string> Files;
  std::error_code EC;
  for (llvm::sys::fs::recursive_directory_iterator It(Path, EC), End;
       It != End && !EC; It.increment(EC))
    if (It->type() == llvm::sys::fs::file_type::regular_file)
      Files.push_back(It->path());
  if (EC)
    return inputError("{0}: cannot list: {1}", Path, EC.message());
  std::sort(Files.begin(), Files.end());
  std::string All;
  for (const std::string &F : Files) {
    auto H = hashFile(F);
    if (!H)
      return H.takeError();
    All += llvm::StringRef(F).drop_front(Path.size()).str() + "\n" + *H + "\n";
  }
  return hashToHex(contentHash(All));
}

BuildState::BuildState(const BuildPlan &P, std::string KilnVersion)
    : P(P), Version(std::move(KilnVersion)) {
  // kiln.lock as the last build left it (a missing or unreadable one is
  // no record: everything builds).
  auto Buf = llvm::MemoryBuffer::getFile(P.OutDir + "/kiln.lock");
  if (!Buf)
    return;
  auto V = parseJsonFile((*Buf)->getBuffer(), "kiln.lock");
  if (!V) {
    llvm::consumeError(V.takeError());
    return;
  }
  const llvm::json::Object *Jobs =
      V->getAsObject() ? V->getAsObject()->getObject("jobs") : nullptr;
  if (!Jobs)
    return;
  for (const auto &[Id, J] : *Jobs)
    if (const llvm::json::Object *O = J.getAsObject())
      if (auto S = parseStamp(*O))
        Locked[Id.str()] = *S;
}

std::string BuildState::relative(const std::string &Path) const {
  llvm::StringRef R(Path);
  if (R.consume_front(P.OutDir) && R.consume_front("/"))
    return R.str();
  return Path;
}

std::string BuildState::symbolic(const std::string &Arg) const {
  // The output folder first: it is often inside the manifest's.
  for (const auto &[Prefix, Name] :
       {std::pair<std::string, const char *>{P.OutDir + "/", "$OUT/"},
        {P.ManifestDir + "/", "$MANIFEST/"}})
    if (llvm::StringRef(Arg).startswith(Prefix))
      return Name + Arg.substr(Prefix.size());
  return Arg;
}

std::string BuildState::stampPath(const std::string &Id) const {
  std::string Name = Id;
  for (char &C : Name)
    if (C == ':' || C == '/')
      C = '_';
  return P.StateDir + "/stamps/" + Name + ".json";
}

llvm::Expected<std::string> BuildState::key(const BuildJob &J) {
  std::string Text = "kiln " + Version + "\n" + jobKindName(J.Kind).str() + "\n";
  for (const JobCommand &C : J.Commands) {
    for (const std::string &A : C.Args)
      Text += symbolic(A) + " ";
    Text += "> " + symbolic(C.Stdout) + "\n";
  }
  for (const std::string &R : J.Reads) {
    bool Ours = llvm::StringRef(R).startswith(P.OutDir + "/");
    std::string Hash;
    {
      std::lock_guard<std::mutex> Lock(Mutex);
      auto It = InputHashes.find(R);
      if (!Ours && It != InputHashes.end())
        Hash = It->second;
    }
    if (Hash.empty()) {
      auto H = hashPath(R);
      if (!H)
        return H.takeError();
      Hash = *H;
      if (!Ours) {
        std::lock_guard<std::mutex> Lock(Mutex);
        InputHashes[R] = Hash;
      }
    }
    Text += "reads " + symbolic(R) + " " + Hash + "\n";
  }
  return hashToHex(contentHash(Text));
}

std::optional<JobStamp> BuildState::stampOf(const std::string &Id) const {
  auto Buf = llvm::MemoryBuffer::getFile(stampPath(Id));
  if (Buf) {
    auto V = parseJsonFile((*Buf)->getBuffer(), stampPath(Id));
    if (V && V->getAsObject())
      if (auto S = parseStamp(*V->getAsObject()))
        return S;
    if (!V)
      llvm::consumeError(V.takeError());
  }
  auto It = Locked.find(Id);
  if (It != Locked.end())
    return It->second;
  return std::nullopt;
}

bool BuildState::upToDate(const BuildJob &J, const std::string &Key) {
  std::optional<JobStamp> S = stampOf(J.Id);
  if (!S || S->Key != Key)
    return false;
  for (const std::string &Out : J.Outputs) {
    auto It = S->Outputs.find(relative(Out));
    if (It == S->Outputs.end())
      return false;
    auto H = hashPath(Out);
    if (!H) {
      llvm::consumeError(H.takeError());
      return false;
    }
    if (*H != It->second)
      return false;
  }
  return true;
}

llvm::Error BuildState::stamp(const BuildJob &J, const std::string &Key,
                              double Seconds) {
  JobStamp S;
  S.Key = Key;
  S.Seconds = Seconds;
  for (const std::string &Out : J.Outputs) {
    auto H = hashPath(Out);
    if (!H)
      return H.takeError();
    S.Outputs[relative(Out)] = *H;
  }
  std::string Path = stampPath(J.Id);
  if (std::error_code EC = llvm::sys::fs::create_directories(
          llvm::sys::path::parent_path(Path)))
    return inputError("{0}: {1}", Path, EC.message());
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  OS << formatJson(stampJson(S)) << "\n";
  return writeFileAtomically(Path, OS.str());
}

llvm::Error BuildState::writeLock() const {
  llvm::json::Object Jobs, Artifacts;
  for (const BuildJob &J : P.Jobs)
    if (std::optional<JobStamp> S = stampOf(J.Id))
      Jobs[J.Id] = stampJson(*S);
  for (const BuildArtifact &A : P.Artifacts) {
    std::optional<JobStamp> S = stampOf(A.ConvertJob);
    if (!S)
      continue;
    auto It = S->Outputs.find(relative(A.File));
    Artifacts[A.Name] = llvm::json::Object{
        {"file", relative(A.File)},
        {"hash", It == S->Outputs.end() ? "" : It->second},
        {"lock", S->Key}};
  }
  llvm::json::Object Lock{{"kiln", Version},
                          {"manifest", P.ManifestPath},
                          {"artifacts", std::move(Artifacts)},
                          {"jobs", std::move(Jobs)}};
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  OS << formatJson(std::move(Lock)) << "\n";
  return writeFileAtomically(P.OutDir + "/kiln.lock", OS.str());
}

} // namespace kiln

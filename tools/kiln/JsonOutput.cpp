#include "Command.h"
#include "Support/Json.h"
#include "Support/TerminalText.h"

#include "llvm/ADT/Optional.h"

#include "llvm/Support/raw_ostream.h"

namespace kiln {

namespace {
thread_local llvm::raw_ostream *RedirectedOut = nullptr;
} // namespace

llvm::raw_ostream &commandOut() {
  // Names and strings from the files kiln reads reach the terminal escaped
  // (TerminalText.h). JSON escapes them itself; a redirected stream (the
  // Python package's) gets the bytes as they are.
  static EscapingOStream Escaped(llvm::outs());
  return RedirectedOut ? *RedirectedOut : Escaped;
}

RedirectCommandOutput::RedirectCommandOutput(llvm::raw_ostream &OS)
    : Previous(RedirectedOut) {
  RedirectedOut = &OS;
}

RedirectCommandOutput::~RedirectCommandOutput() { RedirectedOut = Previous; }

void printJson(const llvm::json::Value &V) {
  commandOut() << formatJson(V) << '\n';
  commandOut().flush();
}

namespace {

const char *kindName(ExitCode C) {
  switch (C) {
  case ExitCode::Success:
    return "success";
  case ExitCode::BadInput:
    return "bad_input";
  case ExitCode::Usage:
    return "usage";
  case ExitCode::GateFailed:
    return "gate_failed";
  case ExitCode::Internal:
    return "internal";
  }
  return "internal";
}

/// The text between Open and the next Close after it, from From on.
llvm::Optional<std::string> between(llvm::StringRef S, llvm::StringRef Open,
                                    char Close, size_t &From) {
  size_t At = S.find(Open, From);
  if (At == llvm::StringRef::npos)
    return llvm::None;
  size_t Start = At + Open.size(), End = S.find(Close, Start);
  if (End == llvm::StringRef::npos)
    return llvm::None;
  From = End + 1;
  return S.slice(Start, End).str();
}

} // namespace

llvm::json::Value errorJson(const Diagnosis &D) {
  llvm::StringRef First = llvm::StringRef(D.Message).split('\n').first;
  llvm::json::Object Error{{"exit_code", int64_t(D.Code)},
                           {"kind", kindName(D.Code)},
                           {"message", D.Message}};
  // Messages start "FILE: ..." when they are about a file, and name a
  // node as "node 'NAME' (OP)".
  llvm::StringRef File = First.split(": ").first;
  bool Named = File.size() < First.size() && !File.startswith("node ") &&
               !File.startswith("--") && !File.contains(' ') &&
               (File.contains('.') || File.contains('/'));
  Error["file"] = Named ? llvm::json::Value(File.str()) : llvm::json::Value(nullptr);
  size_t From = 0;
  auto Node = between(First, "node '", '\'', From);
  Error["node"] = Node ? llvm::json::Value(*Node) : llvm::json::Value(nullptr);
  llvm::Optional<std::string> Op;
  if (Node && First.substr(From).startswith(" ("))
    Op = between(First, " (", ')', From);
  Error["op"] = Op ? llvm::json::Value(*Op) : llvm::json::Value(nullptr);
  return llvm::json::Object{{"error", std::move(Error)}};
}

} // namespace kiln

// Error values used by every kiln library.
//
// Library code returns llvm::Error / llvm::Expected. A KilnError carries the
// exit code the CLI maps it to (DESIGN.md, "CLI"), so the code that detects a
// problem decides whether it is bad input, a usage error, a gate failure or an
// internal bug, and main() only has to print and exit.
#pragma once

#include "llvm/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"

#include <string>

namespace kiln {

enum class ExitCode : int {
  Success = 0,
  BadInput = 1,    // malformed or unsupported model/input
  Usage = 2,       // wrong command line
  GateFailed = 3,  // a diff or accuracy gate failed
  Internal = 70,   // a bug in kiln (EX_SOFTWARE)
};

class KilnError : public llvm::ErrorInfo<KilnError> {
public:
  static char ID;
  KilnError(ExitCode Code, std::string Message, bool Unsupported = false)
      : Code(Code), Message(std::move(Message)), Unsupported(Unsupported) {}
  void log(llvm::raw_ostream &OS) const override { OS << Message; }
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }
  ExitCode code() const { return Code; }
  const std::string &text() const { return Message; }
  /// Bad input of one kind: a well-formed model that kiln or the target
  /// cannot compile or run (an op it has no conversion or kernel for).
  bool unsupported() const { return Unsupported; }

private:
  ExitCode Code;
  std::string Message;
  bool Unsupported;
};

/// Bad input: the message should name the file, node and op, and the problem.
template <typename... Ts>
llvm::Error inputError(const char *Fmt, Ts &&...Vals) {
  return llvm::make_error<KilnError>(
      ExitCode::BadInput, llvm::formatv(Fmt, std::forward<Ts>(Vals)...).str());
}

/// Bad input that is a well-formed model kiln or the target cannot handle
/// (an unsupported op): the same exit code, told apart by the Python
/// package (UnsupportedModelError).
template <typename... Ts>
llvm::Error unsupportedError(const char *Fmt, Ts &&...Vals) {
  return llvm::make_error<KilnError>(
      ExitCode::BadInput, llvm::formatv(Fmt, std::forward<Ts>(Vals)...).str(),
      /*Unsupported=*/true);
}

template <typename... Ts>
llvm::Error usageError(const char *Fmt, Ts &&...Vals) {
  return llvm::make_error<KilnError>(
      ExitCode::Usage, llvm::formatv(Fmt, std::forward<Ts>(Vals)...).str());
}

template <typename... Ts>
llvm::Error internalError(const char *Fmt, Ts &&...Vals) {
  return llvm::make_error<KilnError>(
      ExitCode::Internal, llvm::formatv(Fmt, std::forward<Ts>(Vals)...).str());
}

/// One error of Code whose message is each of Lines after Prefix, one a
/// line ("gate failed: ..."); Lines must not be empty.
llvm::Error linesError(ExitCode Code, llvm::StringRef Prefix,
                       llvm::ArrayRef<std::string> Lines);

/// Prefixes every message in E with Context (e.g. a file name), keeping codes.
llvm::Error addContext(llvm::Error E, llvm::StringRef Context);

/// What the CLI prints and returns for an error.
struct Diagnosis {
  ExitCode Code = ExitCode::Success;
  std::string Message; // one line per joined error
  /// Bad input, every part of it an unsupportedError.
  bool Unsupported = false;
};

/// Consumes E. The code is the KilnError's own; anything else (an LLVM file
/// error, say) is about the user's input, so BadInput. When several errors are
/// joined, the most severe code wins (Internal > Usage > GateFailed > BadInput).
Diagnosis diagnose(llvm::Error E);

} // namespace kiln

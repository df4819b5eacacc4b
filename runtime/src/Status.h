// Errors inside the runtime: a kiln_status code and a message. The runtime
// cannot use llvm::Error (it ships without the compiler), so functions
// return a Status, and the C API turns a failed one into kiln_last_error().
#pragma once

#include "kiln/kiln.h"

#include <sstream>
#include <string>
#include <utility>

namespace kiln::rt {

/// Concatenates anything streamable into a string.
template <typename... Ts> std::string concat(const Ts &...Parts) {
  std::ostringstream OS;
  (OS << ... << Parts);
  return OS.str();
}

class [[nodiscard]] Status {
public:
  Status() = default;
  Status(kiln_status Code, std::string Message)
      : Code(Code), Message(std::move(Message)) {}

  static Status ok() { return {}; }
  bool isOk() const { return Code == KILN_OK; }
  explicit operator bool() const { return !isOk(); } // true on failure
  kiln_status code() const { return Code; }
  const std::string &message() const { return Message; }

  /// The same code with "Prefix: " in front of the message; ok stays ok.
  Status withContextIfError(const std::string &Prefix) const {
    return isOk() ? Status() : withContext(Prefix);
  }
  /// The same code with "Prefix: " in front of the message.
  Status withContext(const std::string &Prefix) const {
    return {Code, Prefix + ": " + Message};
  }

private:
  kiln_status Code = KILN_OK;
  std::string Message;
};

template <typename... Ts> Status invalidModel(const Ts &...Parts) {
  return {KILN_ERROR_INVALID_MODEL, concat(Parts...)};
}
template <typename... Ts> Status invalidArgument(const Ts &...Parts) {
  return {KILN_ERROR_INVALID_ARGUMENT, concat(Parts...)};
}
template <typename... Ts> Status unsupported(const Ts &...Parts) {
  return {KILN_ERROR_UNSUPPORTED, concat(Parts...)};
}
template <typename... Ts> Status runtimeError(const Ts &...Parts) {
  return {KILN_ERROR_RUNTIME, concat(Parts...)};
}

} // namespace kiln::rt

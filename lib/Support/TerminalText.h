// Text from files reaches the terminal: a node named "\x1b]0;pwned\x07" or
// "\x1b[2J" in a model must print as those characters, not act on the
// terminal. Control characters are written as \xNN escapes (C1 controls, in
// UTF-8, as \u0080..\u009f); newlines and tabs stay where the caller says.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace kiln {

/// S with every C0 control (but \n and \t when KeepLayout), DEL (when
/// EscapeDel) and C1 control escaped. \r is always escaped: it would let a
/// name overwrite the line it is printed on.
std::string escapeControlChars(llvm::StringRef S, bool KeepLayout = true,
                               bool EscapeDel = true);

/// A stream that escapes C0 and C1 control characters on their way to Out
/// (escapeControlChars with layout kept), and leaves DEL: what it carries may
/// be JSON, which allows DEL raw (and escapes C0 itself; C1 comes out as
/// \u0080..\u009f, which JSON reads as the same characters), or .kir text,
/// which escapes every control itself. Unbuffered: every write reaches Out
/// at once, so Out's position and buffering are as without it.
class EscapingOStream : public llvm::raw_ostream {
public:
  explicit EscapingOStream(llvm::raw_ostream &Out);
  ~EscapingOStream() override;

private:
  void write_impl(const char *Ptr, size_t Size) override;
  uint64_t current_pos() const override { return Written; }

  llvm::raw_ostream &Out;
  uint64_t Written = 0;
  bool PendingC2 = false; // a UTF-8 lead byte 0xC2 split from its follower
};

} // namespace kiln

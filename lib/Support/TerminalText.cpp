#include "Support/TerminalText.h"

#include "llvm/Support/Format.h"

namespace kiln {

namespace {

bool escapedByte(unsigned char C, bool KeepLayout, bool EscapeDel) {
  if (KeepLayout && (C == '\n' || C == '\t'))
    return false;
  return C < 0x20 || (EscapeDel && C == 0x7f);
}

void appendHex(std::string &Out, const char *Prefix, unsigned V, int Digits) {
  static const char Hex[] = "0123456789abcdef";
  Out += Prefix;
  for (int I = Digits - 1; I >= 0; --I)
    Out += Hex[(V >> (4 * I)) & 15];
}

} // namespace

std::string escapeControlChars(llvm::StringRef S, bool KeepLayout,
                               bool EscapeDel) {
  std::string Out;
  Out.reserve(S.size());
  for (size_t I = 0; I < S.size(); ++I) {
    auto C = static_cast<unsigned char>(S[I]);
    if (escapedByte(C, KeepLayout, EscapeDel)) {
      appendHex(Out, "\\x", C, 2);
    } else if (C == 0xC2 && I + 1 < S.size() &&
               static_cast<unsigned char>(S[I + 1]) >= 0x80 &&
               static_cast<unsigned char>(S[I + 1]) <= 0x9f) {
      appendHex(Out, "\\u00", static_cast<unsigned char>(S[++I]), 2);
    } else {
      Out += S[I];
    }
  }
  return Out;
}

EscapingOStream::EscapingOStream(llvm::raw_ostream &Out) : Out(Out) {
  SetUnbuffered();
}

EscapingOStream::~EscapingOStream() {
  if (PendingC2)
    Out << '\xc2';
}

void EscapingOStream::write_impl(const char *Ptr, size_t Size) {
  Written += Size;
  std::string Text;
  if (PendingC2) {
    Text += '\xc2';
    PendingC2 = false;
  }
  Text.append(Ptr, Size);
  // A 0xC2 at the end may lead a C1 control in the next write.
  if (!Text.empty() && static_cast<unsigned char>(Text.back()) == 0xC2) {
    Text.pop_back();
    PendingC2 = true;
  }
  Out << escapeControlChars(Text, /*KeepLayout=*/true, /*EscapeDel=*/false);
}

} // namespace kiln

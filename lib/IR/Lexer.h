// Tokens of the .kir text form, with line:column positions for diagnostics.
#pragma once

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace kiln {

struct SourceLoc {
  unsigned Line = 1, Col = 1;
};

enum class Tok {
  Eof,
  Error,      // Text holds the message
  Ident,      // graph, conv, f32, N, true, nan ...
  ValueRef,   // %name or %"quoted"; Text holds the name
  GraphRef,   // @name or @"quoted"
  Integer,    // -12
  Float,      // 1.5, -2e-3, inf, -nan
  String,     // "text" (unescaped in Text)
  LParen, RParen, LBrace, RBrace, LBracket, RBracket,
  Comma, Colon, Equal, Arrow, Question,
};

struct Token {
  Tok Kind = Tok::Eof;
  std::string Text;
  SourceLoc Loc;
};

class Lexer {
public:
  explicit Lexer(llvm::StringRef Source) : Src(Source) {}
  Token next();

private:
  char peek(size_t Ahead = 0) const {
    return Pos + Ahead < Src.size() ? Src[Pos + Ahead] : '\0';
  }
  void advance();
  void skipSpaceAndComments();
  Token lexNumber(SourceLoc Start);
  bool lexQuoted(std::string &Out, std::string &Error);

  llvm::StringRef Src;
  size_t Pos = 0;
  SourceLoc Here;
};

const char *tokName(Tok K);

} // namespace kiln

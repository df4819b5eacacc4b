#include "IR/Lexer.h"

#include "llvm/ADT/StringExtras.h"

namespace kiln {

const char *tokName(Tok K) {
  switch (K) {
  case Tok::Eof: return "end of file";
  case Tok::Error: return "invalid token";
  case Tok::Ident: return "identifier";
  case Tok::ValueRef: return "value (%name)";
  case Tok::GraphRef: return "graph name (@name)";
  case Tok::Integer: return "integer";
  case Tok::Float: return "number";
  case Tok::String: return "string";
  case Tok::LParen: return "'('";
  case Tok::RParen: return "')'";
  case Tok::LBrace: return "'{'";
  case Tok::RBrace: return "'}'";
  case Tok::LBracket: return "'['";
  case Tok::RBracket: return "']'";
  case Tok::Comma: return "','";
  case Tok::Colon: return "':'";
  case Tok::Equal: return "'='";
  case Tok::Arrow: return "'->'";
  case Tok::Question: return "'?'";
  }
  return "token";
}

void Lexer::advance() {
  if (Pos >= Src.size())
    return;
  if (Src[Pos] == '\n') {
    ++Here.Line;
    Here.Col = 1;
  } else {
    ++Here.Col;
  }
  ++Pos;
}

void Lexer::skipSpaceAndComments() {
  while (Pos < Src.size()) {
    char C = peek();
    if (C == ' ' || C == '\t' || C == '\n' || C == '\r') {
      advance();
    } else if (C == '/' && peek(1) == '/') {
      while (Pos < Src.size() && peek() != '\n')
        advance();
    } else {
      break;
    }
  }
}

static bool isIdentChar(char C) {
  return llvm::isAlnum(C) || C == '_' || C == '.';
}

bool Lexer::lexQuoted(std::string &Out, std::string &Error) {
  advance(); // opening quote
  while (true) {
    char C = peek();
    if (Pos >= Src.size() || C == '\n') {
      Error = "unterminated string";
      return false;
    }
    advance();
    if (C == '"')
      return true;
    if (C == '\\') {
      char E = peek();
      if (E == '"' || E == '\\') {
        Out += E;
        advance();
      } else if (llvm::isHexDigit(E) && llvm::isHexDigit(peek(1))) {
        Out += char(llvm::hexFromNibbles(E, peek(1)));
        advance();
        advance();
      } else {
        Error = "invalid escape in string";
        return false;
      }
      continue;
    }
    Out += C;
  }
}

Token Lexer::lexNumber(SourceLoc Start) {
  size_t Begin = Pos;
  if (peek() == '-' || peek() == '+')
    advance();
  if (llvm::isAlpha(peek())) { // -inf, -nan
    size_t WordBegin = Pos;
    while (isIdentChar(peek()))
      advance();
    llvm::StringRef Word = Src.slice(WordBegin, Pos);
    if (Word == "inf" || Word == "nan")
      return {Tok::Float, Src.slice(Begin, Pos).str(), Start};
    return {Tok::Error, "invalid number '" + Src.slice(Begin, Pos).str() + "'",
            Start};
  }
  bool IsFloat = false;
  while (llvm::isDigit(peek()))
    advance();
  if (peek() == '.' && llvm::isDigit(peek(1))) {
    IsFloat = true;
    advance();
    while (llvm::isDigit(peek()))
      advance();
  }
  if (peek() == 'e' || peek() == 'E') {
    size_t Save = Pos;
    SourceLoc SaveLoc = Here;
    advance();
    if (peek() == '-' || peek() == '+')
      advance();
    if (llvm::isDigit(peek())) {
      IsFloat = true;
      while (llvm::isDigit(peek()))
        advance();
    } else {
      Pos = Save;
      Here = SaveLoc;
    }
  }
  llvm::StringRef Text = Src.slice(Begin, Pos);
  if (Text == "-" || Text == "+")
    return {Tok::Error, "expected a number after '" + Text.str() + "'", Start};
  if (isIdentChar(peek()))
    return {Tok::Error, "invalid number '" + Text.str() + peek() + "...'",
            Start};
  return {IsFloat ? Tok::Float : Tok::Integer, Text.str(), Start};
}

Token Lexer::next() {
  skipSpaceAndComments();
  SourceLoc Start = Here;
  if (Pos >= Src.size())
    return {Tok::Eof, "", Start};
  char C = peek();
  auto Single = [&](Tok K) {
    advance();
    return Token{K, std::string(1, C), Start};
  };
  switch (C) {
  case '(': return Single(Tok::LParen);
  case ')': return Single(Tok::RParen);
  case '{': return Single(Tok::LBrace);
  case '}': return Single(Tok::RBrace);
  case '[': return Single(Tok::LBracket);
  case ']': return Single(Tok::RBracket);
  case ',': return Single(Tok::Comma);
  case ':': return Single(Tok::Colon);
  case '=': return Single(Tok::Equal);
  case '?': return Single(Tok::Question);
  default: break;
  }
  if (C == '-' && peek(1) == '>') {
    advance();
    advance();
    return {Tok::Arrow, "->", Start};
  }
  if (C == '-' || C == '+' || llvm::isDigit(C))
    return lexNumber(Start);
  if (C == '"') {
    std::string Text, Error;
    if (!lexQuoted(Text, Error))
      return {Tok::Error, Error, Start};
    return {Tok::String, Text, Start};
  }
  if (C == '%' || C == '@') {
    Tok K = C == '%' ? Tok::ValueRef : Tok::GraphRef;
    advance();
    if (peek() == '"') {
      std::string Text, Error;
      if (!lexQuoted(Text, Error))
        return {Tok::Error, Error, Start};
      if (Text.empty())
        return {Tok::Error, "empty name", Start};
      return {K, Text, Start};
    }
    size_t Begin = Pos;
    while (isIdentChar(peek()))
      advance();
    if (Begin == Pos)
      return {Tok::Error, std::string("expected a name after '") + C + "'",
              Start};
    return {K, Src.slice(Begin, Pos).str(), Start};
  }
  if (llvm::isAlpha(C) || C == '_') {
    size_t Begin = Pos;
    while (isIdentChar(peek()))
      advance();
    llvm::StringRef Word = Src.slice(Begin, Pos);
    if (Word == "inf" || Word == "nan")
      return {Tok::Float, Word.str(), Start};
    return {Tok::Ident, Word.str(), Start};
  }
  advance();
  std::string Shown = llvm::isPrint(C) ? std::string(1, C)
                                       : "\\x" + llvm::utohexstr(uint8_t(C));
  return {Tok::Error, "unexpected character '" + Shown + "'", Start};
}

} // namespace kiln

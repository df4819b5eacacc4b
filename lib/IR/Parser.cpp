#include "IR/Parser.h"

#include "IR/Lexer.h"
#include "IR/OpRegistry.h"
#include "IR/Verifier.h"
#include "Support/Error.h"
#include "Support/FileSystem.h"
#include "Support/Hash.h"
#include "Support/Limits.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <cstdlib>
#include <limits>

namespace kiln {

namespace {

struct OperandRef {
  std::string Name;
  SourceLoc Loc;
  bool Absent = false;
};

struct AttrDecl {
  std::string Name;
  AttrValue Value;
  SourceLoc Loc;
};

/// One node as written, before names are resolved.
struct NodeDecl {
  SourceLoc Loc;
  std::vector<std::pair<std::string, SourceLoc>> Results;
  const OpDef *Def = nullptr;
  std::vector<OperandRef> Operands;
  std::vector<AttrDecl> Attrs;
  std::vector<TensorType> Types;
  std::vector<std::string> Sources;
};

/// A marker thrown to unwind the recursive descent on the first error. It
/// never leaves this file: parseGraph turns it into an llvm::Error.
struct ParseFailure {};

class Parser {
public:
  Parser(llvm::StringRef Src, llvm::StringRef File, llvm::StringRef Sidecar,
         bool SidecarFixed)
      : Lex(Src), File(File), SidecarPath(Sidecar), SidecarFixed(SidecarFixed) {
    Cur = Lex.next();
  }

  llvm::Expected<std::unique_ptr<Graph>> run() {
    try {
      parseTopLevel();
      return build();
    } catch (const ParseFailure &) {
      return inputError("{0}", ErrMsg);
    }
  }

private:
  //===-- Diagnostics and tokens -------------------------------------------===//

  [[noreturn]] void fail(SourceLoc L, const std::string &Msg) {
    ErrMsg = File + ":" + std::to_string(L.Line) + ":" + std::to_string(L.Col) +
             ": " + Msg;
    throw ParseFailure();
  }
  [[noreturn]] void failHere(const std::string &Msg) {
    if (Cur.Kind == Tok::Error)
      fail(Cur.Loc, Cur.Text);
    fail(Cur.Loc, Msg);
  }

  void consume() { Cur = Lex.next(); }
  bool consumeIf(Tok K) {
    if (Cur.Kind != K)
      return false;
    consume();
    return true;
  }
  Token expect(Tok K, const char *Context) {
    if (Cur.Kind != K)
      failHere(std::string("expected ") + tokName(K) + " " + Context +
               ", found " + describe(Cur));
    Token T = Cur;
    consume();
    return T;
  }
  bool atKeyword(llvm::StringRef W) const {
    return Cur.Kind == Tok::Ident && Cur.Text == W;
  }
  static std::string describe(const Token &T) {
    if (T.Kind == Tok::Eof)
      return "end of file";
    return "'" + T.Text + "'";
  }

  void enter() {
    if (++Depth > limits::MaxNesting)
      failHere("nesting is deeper than the limit of " +
               std::to_string(limits::MaxNesting));
  }
  void leave() { --Depth; }

  //===-- Top level ---------------------------------------------------------===//

  void parseTopLevel() {
    // `weights "NAME"`: the sidecar this file was written with, in the
    // .kir's own folder. Its name carries a content hash, so a new pair is
    // committed by the rename of the .kir alone (docs/format.md).
    if (atKeyword("weights")) {
      consume();
      Token Name = expect(Tok::String, "for the weights sidecar's file name");
      llvm::StringRef N = Name.Text;
      if (N.empty() || N == "." || N == ".." || N.contains('/') ||
          N.contains('\\'))
        fail(Name.Loc, "the weights sidecar must be named by a file name in "
                       "the .kir's folder, not '" + Name.Text + "'");
      if (!SidecarFixed) {
        llvm::SmallString<256> P(llvm::sys::path::parent_path(File));
        llvm::sys::path::append(P, N);
        SidecarPath = P.str().str();
      }
    }
    if (!atKeyword("graph"))
      failHere("expected 'graph' at the start of the file, found " +
               describe(Cur));
    consume();
    Token Name = expect(Tok::GraphRef, "after 'graph'");
    GraphName = Name.Text;
    expect(Tok::LParen, "to open the input list");
    if (Cur.Kind != Tok::RParen) {
      do {
        Token V = expect(Tok::ValueRef, "for a graph input");
        expect(Tok::Colon, "after the input name");
        Inputs.push_back({V.Text, V.Loc, parseType()});
      } while (consumeIf(Tok::Comma));
    }
    expect(Tok::RParen, "to close the input list");
    expect(Tok::Arrow, "before the output list");
    expect(Tok::LParen, "to open the output list");
    if (Cur.Kind != Tok::RParen) {
      do {
        Token V = expect(Tok::ValueRef, "for a graph output");
        expect(Tok::Colon, "after the output name");
        HeaderOutputs.push_back({V.Text, V.Loc, parseType()});
      } while (consumeIf(Tok::Comma));
    }
    expect(Tok::RParen, "to close the output list");
    expect(Tok::LBrace, "to open the graph body");
    while (!atKeyword("return")) {
      if (Cur.Kind == Tok::Eof || Cur.Kind == Tok::RBrace)
        failHere("expected a node or 'return', found " + describe(Cur));
      parseNode();
    }
    ReturnLoc = Cur.Loc;
    consume();
    if (Cur.Kind == Tok::ValueRef) {
      do {
        Token V = expect(Tok::ValueRef, "in 'return'");
        Returns.push_back({V.Text, V.Loc, false});
      } while (consumeIf(Tok::Comma));
    }
    expect(Tok::RBrace, "to close the graph body");
    if (Cur.Kind != Tok::Eof)
      failHere("unexpected " + describe(Cur) + " after the end of the graph");
  }

  void parseNode() {
    NodeDecl D;
    D.Loc = Cur.Loc;
    do {
      Token R = expect(Tok::ValueRef, "for a node result");
      D.Results.push_back({R.Text, R.Loc});
    } while (consumeIf(Tok::Comma));
    expect(Tok::Equal, "after the node results");
    if (Cur.Kind != Tok::Ident)
      failHere("expected an op name, found " + describe(Cur));
    D.Def = OpRegistry::instance().lookup(Cur.Text);
    if (!D.Def)
      fail(Cur.Loc, "unknown op '" + Cur.Text +
                        "' (run 'kiln ops' to list the ops kiln knows)");
    consume();
    if (D.Def->Name == "const") {
      SourceLoc L = Cur.Loc;
      D.Attrs.push_back({"value", parseTensorLiteral(), L});
    } else {
      expect(Tok::LParen, "to open the operand list");
      if (Cur.Kind != Tok::RParen) {
        do {
          if (atKeyword("none")) {
            D.Operands.push_back({"", Cur.Loc, true});
            consume();
          } else {
            Token V = expect(Tok::ValueRef, "for an operand");
            D.Operands.push_back({V.Text, V.Loc, false});
          }
        } while (consumeIf(Tok::Comma));
      }
      expect(Tok::RParen, "to close the operand list");
      if (consumeIf(Tok::LBrace)) {
        if (Cur.Kind != Tok::RBrace) {
          do {
            Token Name = expect(Tok::Ident, "for an attribute name");
            expect(Tok::Equal, "after the attribute name");
            D.Attrs.push_back({Name.Text, parseAttrValue(), Name.Loc});
          } while (consumeIf(Tok::Comma));
        }
        expect(Tok::RBrace, "to close the attributes");
      }
      expect(Tok::Colon, "before the result types");
      do
        D.Types.push_back(parseType());
      while (consumeIf(Tok::Comma));
    }
    if (atKeyword("loc")) {
      consume();
      expect(Tok::LParen, "after 'loc'");
      do
        D.Sources.push_back(expect(Tok::String, "in loc(...)").Text);
      while (consumeIf(Tok::Comma));
      expect(Tok::RParen, "to close loc(...)");
    }
    Decls.push_back(std::move(D));
  }

  //===-- Types --------------------------------------------------------------===//

  ElementType parseElementTypeTok() {
    if (Cur.Kind != Tok::Ident)
      failHere("expected an element type (f32, i64, ...), found " +
               describe(Cur));
    auto E = parseElementType(Cur.Text);
    if (!E)
      failHere("unknown element type '" + Cur.Text + "'");
    consume();
    return *E;
  }

  TensorType parseType() {
    SourceLoc Start = Cur.Loc;
    TensorType T;
    T.Elem = parseElementTypeTok();
    expect(Tok::LBracket, "to open the shape");
    if (Cur.Kind != Tok::RBracket) {
      do {
        if (T.Dims.size() >= size_t(limits::MaxRank))
          failHere("rank is above the limit of " +
                   std::to_string(limits::MaxRank));
        if (Cur.Kind == Tok::Integer) {
          int64_t V = parseInt(Cur);
          if (V < 0 || V > limits::MaxDim)
            failHere("dimension " + Cur.Text + " is out of range [0, 2^40]");
          T.Dims.push_back(Dim(V));
          consume();
        } else if (Cur.Kind == Tok::Ident) {
          T.Dims.push_back(Dim::symbol(Cur.Text));
          consume();
        } else if (consumeIf(Tok::Question)) {
          T.Dims.push_back(Dim());
        } else {
          failHere("expected a dimension (a size, a symbol or '?'), found " +
                   describe(Cur));
        }
      } while (consumeIf(Tok::Comma));
    }
    expect(Tok::RBracket, "to close the shape");
    if (exceedsElementLimit(T.Dims))
      fail(Start, "shape " + toString(T.Dims) +
                      " has more elements than the limit of 2^34");
    if (atKeyword("q"))
      T.Quant = parseQuant();
    return T;
  }

  QuantParams parseQuant() {
    consume();
    expect(Tok::LParen, "after 'q'");
    QuantParams Q;
    bool HasScale = false, HasZp = false;
    do {
      Token Key = expect(Tok::Ident, "in q(...)");
      expect(Tok::Equal, "after the quantization key");
      if (Key.Text == "axis") {
        Q.Axis = parseInt(expect(Tok::Integer, "for the axis"));
      } else if (Key.Text == "scale") {
        HasScale = true;
        for (double V : parseNumberList())
          Q.Scales.push_back(float(V));
      } else if (Key.Text == "zp") {
        HasZp = true;
        for (double V : parseNumberList())
          Q.ZeroPoints.push_back(int64_t(V));
      } else {
        fail(Key.Loc, "unknown quantization key '" + Key.Text +
                          "' (expected axis, scale or zp)");
      }
    } while (consumeIf(Tok::Comma));
    expect(Tok::RParen, "to close q(...)");
    if (!HasScale || !HasZp || Q.Scales.size() != Q.ZeroPoints.size() ||
        Q.Scales.empty())
      failHere("q(...) needs scale and zp of the same, non-zero length");
    if (!Q.isPerAxis() && Q.Scales.size() != 1)
      failHere("per-tensor q(...) needs one scale; give axis= for per-axis");
    return Q;
  }

  /// A single number, or a bracketed list of numbers.
  std::vector<double> parseNumberList() {
    std::vector<double> Out;
    if (!consumeIf(Tok::LBracket)) {
      Out.push_back(parseNumber());
      return Out;
    }
    if (Cur.Kind != Tok::RBracket) {
      do
        Out.push_back(parseNumber());
      while (consumeIf(Tok::Comma));
    }
    expect(Tok::RBracket, "to close the list");
    return Out;
  }

  int64_t parseInt(const Token &T) {
    errno = 0;
    char *End = nullptr;
    long long V = std::strtoll(T.Text.c_str(), &End, 10);
    if (errno == ERANGE || *End != '\0')
      fail(T.Loc, "integer '" + T.Text + "' is out of range");
    return V;
  }

  double parseNumber() {
    if (Cur.Kind != Tok::Integer && Cur.Kind != Tok::Float)
      failHere("expected a number, found " + describe(Cur));
    double V = tokenToDouble(Cur);
    consume();
    return V;
  }

  static double tokenToDouble(const Token &T) {
    llvm::StringRef S = T.Text;
    bool Neg = S.consume_front("-");
    S.consume_front("+");
    double V;
    if (S == "inf")
      V = std::numeric_limits<double>::infinity();
    else if (S == "nan")
      V = std::numeric_limits<double>::quiet_NaN();
    else
      V = std::strtod(S.str().c_str(), nullptr);
    return Neg ? -V : V;
  }

  //===-- Attributes and tensor literals ------------------------------------===//

  AttrValue parseAttrValue() {
    switch (Cur.Kind) {
    case Tok::Integer: {
      int64_t V = parseInt(Cur);
      consume();
      return V;
    }
    case Tok::Float: {
      double V = tokenToDouble(Cur);
      consume();
      return V;
    }
    case Tok::String: {
      std::string V = Cur.Text;
      consume();
      return V;
    }
    case Tok::LBracket:
      return parseAttrList();
    case Tok::Ident:
      if (parseElementType(Cur.Text))
        return parseTensorLiteral();
      [[fallthrough]];
    default:
      failHere("expected an attribute value, found " + describe(Cur));
    }
  }

  AttrValue parseAttrList() {
    enter();
    SourceLoc Start = Cur.Loc;
    consume();
    std::vector<Token> Items;
    if (Cur.Kind != Tok::RBracket) {
      do {
        if (Cur.Kind != Tok::Integer && Cur.Kind != Tok::Float &&
            Cur.Kind != Tok::String)
          failHere("expected a number or string in the list, found " +
                   describe(Cur));
        Items.push_back(Cur);
        consume();
      } while (consumeIf(Tok::Comma));
    }
    expect(Tok::RBracket, "to close the list");
    leave();
    bool AnyString = false, AnyFloat = false, AllString = true;
    for (const Token &T : Items) {
      AnyString |= T.Kind == Tok::String;
      AllString &= T.Kind == Tok::String;
      AnyFloat |= T.Kind == Tok::Float;
    }
    if (AnyString && !AllString)
      fail(Start, "list mixes strings and numbers");
    if (AnyString && !Items.empty()) {
      std::vector<std::string> V;
      for (const Token &T : Items)
        V.push_back(T.Text);
      return V;
    }
    if (AnyFloat) {
      std::vector<double> V;
      for (const Token &T : Items)
        V.push_back(tokenToDouble(T));
      return V;
    }
    std::vector<int64_t> V;
    for (const Token &T : Items)
      V.push_back(parseInt(T));
    return V;
  }

  Tensor parseTensorLiteral() {
    SourceLoc Start = Cur.Loc;
    TensorType T = parseType();
    if (!T.isStatic())
      fail(Start, "a constant needs a static shape, got " + toString(T.Dims));
    int64_t Count = *numElements(T.Dims);
    uint64_t Bytes = uint64_t(Count) * elementSize(T.Elem);
    if (atKeyword("dense")) {
      consume();
      return parseDense(T, Count);
    }
    if (atKeyword("blob")) {
      consume();
      return parseBlob(T, Bytes);
    }
    if (atKeyword("elided")) {
      consume();
      fail(Start, "the weights of this constant were elided when it was "
                  "printed; write the graph with 'kiln opt -o FILE.kir' (which "
                  "writes a .weights sidecar) or print with --print-weights");
    }
    failHere("expected dense[...], blob(...) or elided(...) after the constant "
             "type, found " + describe(Cur));
  }

  Tensor parseDense(const TensorType &T, int64_t Count) {
    SourceLoc Start = Cur.Loc;
    expect(Tok::LBracket, "after 'dense'");
    std::vector<uint8_t> Bytes;
    Bytes.reserve(size_t(Count) * elementSize(T.Elem));
    int64_t Seen = 0;
    if (Cur.Kind != Tok::RBracket) {
      do {
        if (Seen == Count)
          fail(Cur.Loc, "dense[...] has more than the " + std::to_string(Count) +
                            " values its type " + toString(T) + " holds");
        appendElement(T.Elem, Bytes);
        ++Seen;
      } while (consumeIf(Tok::Comma));
    }
    expect(Tok::RBracket, "to close dense[...]");
    if (Seen != Count)
      fail(Start, "dense[...] has " + std::to_string(Seen) + " values, type " +
                      toString(T) + " needs " + std::to_string(Count));
    return Tensor(T, Buffer::own(std::move(Bytes)));
  }

  template <typename V> static void put(std::vector<uint8_t> &Out, V Val) {
    const uint8_t *P = reinterpret_cast<const uint8_t *>(&Val);
    Out.insert(Out.end(), P, P + sizeof(V));
  }

  void appendElement(ElementType E, std::vector<uint8_t> &Out) {
    if (E == ElementType::Bool) {
      if (atKeyword("true") || atKeyword("false")) {
        Out.push_back(Cur.Text == "true");
        consume();
        return;
      }
      failHere("expected true or false, found " + describe(Cur));
    }
    if (isFloatType(E)) {
      double V = parseNumber();
      switch (E) {
      case ElementType::F32: put(Out, float(V)); break;
      case ElementType::F64: put(Out, V); break;
      case ElementType::F16: put(Out, floatToHalf(float(V))); break;
      default: put(Out, floatToBf16(float(V))); break;
      }
      return;
    }
    if (Cur.Kind != Tok::Integer)
      failHere("expected an integer for " + elementTypeName(E).str() +
               ", found " + describe(Cur));
    if (E == ElementType::U64) {
      errno = 0;
      char *End = nullptr;
      unsigned long long V = std::strtoull(Cur.Text.c_str(), &End, 10);
      if (errno == ERANGE || *End || Cur.Text[0] == '-')
        failHere("value " + Cur.Text + " does not fit in u64");
      put(Out, uint64_t(V));
      consume();
      return;
    }
    int64_t V = parseInt(Cur);
    auto Check = [&](int64_t Lo, int64_t Hi) {
      if (V < Lo || V > Hi)
        failHere("value " + Cur.Text + " does not fit in " +
                 elementTypeName(E).str());
    };
    switch (E) {
    case ElementType::I64: put(Out, V); break;
    case ElementType::I32: Check(INT32_MIN, INT32_MAX); put(Out, int32_t(V)); break;
    case ElementType::I16: Check(INT16_MIN, INT16_MAX); put(Out, int16_t(V)); break;
    case ElementType::I8: Check(INT8_MIN, INT8_MAX); put(Out, int8_t(V)); break;
    case ElementType::U32: Check(0, UINT32_MAX); put(Out, uint32_t(V)); break;
    case ElementType::U16: Check(0, UINT16_MAX); put(Out, uint16_t(V)); break;
    default: Check(0, UINT8_MAX); put(Out, uint8_t(V)); break;
    }
    consume();
  }

  Tensor parseBlob(const TensorType &T, uint64_t Expected) {
    SourceLoc Start = Cur.Loc;
    expect(Tok::LParen, "after 'blob'");
    Token OffTok = expect(Tok::Integer, "for the blob offset");
    expect(Tok::Comma, "after the blob offset");
    Token SizeTok = expect(Tok::Integer, "for the blob size");
    expect(Tok::Comma, "after the blob size");
    Token HashTok = expect(Tok::String, "for the blob hash");
    expect(Tok::RParen, "to close blob(...)");
    int64_t Off = parseInt(OffTok), Size = parseInt(SizeTok);
    if (Off < 0 || Size < 0)
      fail(Start, "blob offset and size must be non-negative");
    if (uint64_t(Size) != Expected)
      fail(Start, "blob holds " + std::to_string(Size) + " bytes but " +
                      toString(T) + " needs " + std::to_string(Expected));
    if (!Sidecar) {
      auto Map = mapFile(SidecarPath);
      if (!Map) {
        std::string Msg = toString(Map.takeError());
        fail(Start, "cannot read the weights sidecar: " + Msg);
      }
      Sidecar = *Map;
    }
    uint64_t End;
    if (__builtin_add_overflow(uint64_t(Off), uint64_t(Size), &End) ||
        End > Sidecar->getBufferSize())
      fail(Start, "blob [" + std::to_string(Off) + ", +" + std::to_string(Size) +
                      ") lies outside the sidecar '" + SidecarPath + "' (" +
                      std::to_string(Sidecar->getBufferSize()) + " bytes)");
    const uint8_t *P =
        reinterpret_cast<const uint8_t *>(Sidecar->getBufferStart()) + Off;
    llvm::StringRef Bytes(reinterpret_cast<const char *>(P), size_t(Size));
    if (hashToHex(contentHash(Bytes)) != HashTok.Text)
      fail(HashTok.Loc, "blob content hash does not match (sidecar '" +
                            SidecarPath + "' changed or is corrupt)");
    // The hash read every page; they leave resident memory until a pass
    // reads the weight again (the sidecar may be as large as the model).
    dropMappedPages(*Sidecar, P, size_t(Size));
    return Tensor(T, Buffer::aliasMapped(Sidecar, P, size_t(Size)));
  }

  //===-- Building the graph ------------------------------------------------===//

  struct Definition {
    int Decl = -1; // -1: a graph input
    unsigned Result = 0;
    SourceLoc Loc;
  };

  struct NamedType {
    std::string Name;
    SourceLoc Loc;
    TensorType Type;
  };

  llvm::Expected<std::unique_ptr<Graph>> build() {
    auto G = std::make_unique<Graph>(GraphName);
    llvm::StringMap<Definition> Defs;
    llvm::StringMap<Value *> Values;
    for (const NamedType &In : Inputs) {
      if (Defs.count(In.Name))
        fail(In.Loc, "redefinition of %" + In.Name);
      Defs[In.Name] = {-1, 0, In.Loc};
      Values[In.Name] = G->addInput(In.Type, In.Name);
    }
    for (size_t I = 0; I < Decls.size(); ++I)
      for (unsigned R = 0; R < Decls[I].Results.size(); ++R) {
        const auto &[Name, Loc] = Decls[I].Results[R];
        auto It = Defs.find(Name);
        if (It != Defs.end())
          fail(Loc, "redefinition of %" + Name + " (first defined at " +
                        std::to_string(It->second.Loc.Line) + ":" +
                        std::to_string(It->second.Loc.Col) + ")");
        Defs[Name] = {int(I), R, Loc};
      }

    for (size_t I = 0; I < Decls.size(); ++I) {
      NodeDecl &D = Decls[I];
      std::vector<Value *> Operands;
      for (const OperandRef &Op : D.Operands) {
        if (Op.Absent) {
          Operands.push_back(nullptr);
          continue;
        }
        auto It = Defs.find(Op.Name);
        if (It == Defs.end())
          fail(Op.Loc, "use of undefined value %" + Op.Name);
        if (It->second.Decl >= int(I)) {
          std::vector<std::string> Path;
          if (dependsOn(size_t(It->second.Decl), I, Defs, Path))
            fail(Op.Loc, "cycle: %" + Op.Name + " is computed from this "
                         "node's own result (" + joinPath(Path) + ")");
          fail(Op.Loc, "use of %" + Op.Name + " before its definition at " +
                           std::to_string(It->second.Loc.Line) + ":" +
                           std::to_string(It->second.Loc.Col) +
                           " (nodes must be in topological order)");
        }
        Operands.push_back(Values[Op.Name]);
      }
      AttrMap Attrs;
      for (AttrDecl &A : D.Attrs) {
        const AttrSpec *Spec = D.Def->findAttr(A.Name);
        if (!Spec)
          fail(A.Loc, "op '" + D.Def->Name + "' has no attribute '" + A.Name +
                          "'");
        if (Attrs.count(A.Name))
          fail(A.Loc, "attribute '" + A.Name + "' given twice");
        Attrs[A.Name] = coerce(std::move(A.Value), *Spec, A.Loc);
      }
      std::vector<TensorType> Types = D.Types;
      if (D.Def->Name == "const")
        Types = {std::get<Tensor>(Attrs["value"]).type()};
      if (Types.size() != D.Results.size())
        fail(D.Loc, std::to_string(D.Results.size()) + " result(s) but " +
                        std::to_string(Types.size()) + " result type(s)");
      Node *N = G->createNode(*D.Def, Operands, Types, std::move(Attrs));
      N->setSources(D.Sources);
      for (unsigned R = 0; R < D.Results.size(); ++R) {
        N->result(R)->setName(D.Results[R].first);
        Values[D.Results[R].first] = N->result(R);
      }
      if (llvm::Error E = verifyNode(*N)) {
        std::string Msg = toString(std::move(E));
        fail(D.Loc, Msg);
      }
    }

    if (Returns.size() != HeaderOutputs.size())
      fail(ReturnLoc, "'return' lists " + std::to_string(Returns.size()) +
                          " value(s) but the graph declares " +
                          std::to_string(HeaderOutputs.size()) + " output(s)");
    for (size_t I = 0; I < Returns.size(); ++I) {
      const OperandRef &R = Returns[I];
      auto It = Values.find(R.Name);
      if (It == Values.end())
        fail(R.Loc, "use of undefined value %" + R.Name);
      if (HeaderOutputs[I].Name != R.Name)
        fail(R.Loc, "'return' value %" + R.Name + " differs from output %" +
                        HeaderOutputs[I].Name + " declared in the header");
      if (HeaderOutputs[I].Type != It->second->type())
        fail(HeaderOutputs[I].Loc,
             "output %" + R.Name + " is declared " +
                 toString(HeaderOutputs[I].Type) + " but its value is " +
                 toString(It->second->type()));
      G->addOutput(It->second);
    }
    return G;
  }

  AttrValue coerce(AttrValue V, const AttrSpec &Spec, SourceLoc L) {
    AttrKind Got = kindOf(V);
    if (Got == Spec.Kind)
      return V;
    if (Spec.Kind == AttrKind::Float && Got == AttrKind::Int)
      return double(std::get<int64_t>(V));
    if (Spec.Kind == AttrKind::Floats && Got == AttrKind::Ints) {
      std::vector<double> Out;
      for (int64_t X : std::get<std::vector<int64_t>>(V))
        Out.push_back(double(X));
      return Out;
    }
    if (Spec.Kind == AttrKind::Strings && Got == AttrKind::Ints &&
        std::get<std::vector<int64_t>>(V).empty())
      return std::vector<std::string>();
    fail(L, "attribute '" + Spec.Name + "' must be " +
                attrKindName(Spec.Kind).str() + ", got " +
                attrKindName(Got).str());
  }

  /// True if decl From (transitively) uses a result of decl Target; Path gets
  /// the chain of value names.
  bool dependsOn(size_t From, size_t Target,
                 const llvm::StringMap<Definition> &Defs,
                 std::vector<std::string> &Path) {
    std::vector<char> Visited(Decls.size(), 0);
    return dfs(From, Target, Defs, Path, Visited);
  }
  bool dfs(size_t At, size_t Target, const llvm::StringMap<Definition> &Defs,
           std::vector<std::string> &Path, std::vector<char> &Visited) {
    if (Visited[At])
      return false;
    Visited[At] = 1;
    Path.push_back(Decls[At].Results[0].first);
    if (At == Target)
      return true;
    for (const OperandRef &Op : Decls[At].Operands) {
      auto It = Defs.find(Op.Name);
      if (Op.Absent || It == Defs.end() || It->second.Decl < 0)
        continue;
      if (dfs(size_t(It->second.Decl), Target, Defs, Path, Visited))
        return true;
    }
    Path.pop_back();
    return false;
  }
  static std::string joinPath(const std::vector<std::string> &Path) {
    std::string S;
    for (auto It = Path.rbegin(); It != Path.rend(); ++It)
      S += (S.empty() ? "%" : " -> %") + *It;
    return S;
  }

  Lexer Lex;
  Token Cur;
  std::string File, SidecarPath;
  bool SidecarFixed; // given by the caller: a `weights` line does not move it
  std::string ErrMsg;
  int Depth = 0;
  std::shared_ptr<llvm::MemoryBuffer> Sidecar;

  std::string GraphName;
  std::vector<NamedType> Inputs, HeaderOutputs;
  std::vector<NodeDecl> Decls;
  std::vector<OperandRef> Returns;
  SourceLoc ReturnLoc;
};

} // namespace

llvm::Expected<std::unique_ptr<Graph>> parseGraph(llvm::StringRef Source,
                                                  llvm::StringRef FileName,
                                                  llvm::StringRef SidecarPath) {
  std::string Sidecar =
      SidecarPath.empty() ? (FileName + ".weights").str() : SidecarPath.str();
  if (Source.find('\0') != llvm::StringRef::npos) {
    // Report the first NUL with its position; binary data is not .kir.
    size_t Pos = Source.find('\0');
    llvm::StringRef Before = Source.take_front(Pos);
    size_t Line = Before.count('\n') + 1;
    size_t Col = Pos - (Before.rfind('\n') == llvm::StringRef::npos
                            ? size_t(-1)
                            : Before.rfind('\n'));
    return inputError("{0}:{1}:{2}: unexpected NUL byte (is this a binary "
                      "file?)",
                      FileName, Line, Col);
  }
  Parser P(Source, FileName, Sidecar, /*SidecarFixed=*/!SidecarPath.empty());
  return P.run();
}

llvm::Expected<std::unique_ptr<Graph>> parseGraphFile(llvm::StringRef Path) {
  auto Buf = mapFile(Path);
  if (!Buf)
    return Buf.takeError();
  return parseGraph((*Buf)->getBuffer(), Path);
}

} // namespace kiln

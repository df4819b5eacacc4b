#include "Support/Npy.h"

#include "Support/Error.h"
#include "Support/FileSystem.h"
#include "Support/Limits.h"

#include "llvm/ADT/StringExtras.h"

namespace kiln {

namespace {
struct DTypeInfo {
  NpyDType Type;
  const char *Descr; // canonical spelling we write
  size_t Size;
};
constexpr DTypeInfo DTypes[] = {
    {NpyDType::F16, "<f2", 2}, {NpyDType::F32, "<f4", 4},
    {NpyDType::F64, "<f8", 8}, {NpyDType::I8, "|i1", 1},
    {NpyDType::I16, "<i2", 2}, {NpyDType::I32, "<i4", 4},
    {NpyDType::I64, "<i8", 8}, {NpyDType::U8, "|u1", 1},
    {NpyDType::U16, "<u2", 2}, {NpyDType::U32, "<u4", 4},
    {NpyDType::U64, "<u8", 8}, {NpyDType::Bool, "|b1", 1},
};

/// Largest header we accept; numpy writes headers well under 1 KiB.
constexpr size_t MaxHeaderBytes = 64 * 1024;
} // namespace

size_t npyItemSize(NpyDType T) { return DTypes[size_t(T)].Size; }

std::optional<NpyDType> npyDTypeOfDescr(llvm::StringRef Descr) {
  for (const DTypeInfo &D : DTypes) {
    llvm::StringRef Want = D.Descr;
    // One-byte types may be written with '|', '<' or '='.
    if (Descr == Want ||
        (D.Size == 1 && Descr.size() == 3 &&
         Descr.drop_front() == Want.drop_front() &&
         (Descr[0] == '<' || Descr[0] == '=' || Descr[0] == '|')))
      return D.Type;
  }
  return std::nullopt;
}
size_t npyMaxHeaderPrefix() { return 12 + MaxHeaderBytes; }
const char *npyDescr(NpyDType T) { return DTypes[size_t(T)].Descr; }

namespace {
/// A tiny parser for the header's Python dict literal:
/// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class HeaderParser {
public:
  HeaderParser(llvm::StringRef Text, llvm::StringRef Name)
      : S(Text), Name(Name) {}

  llvm::Error parse(std::string &Descr, bool &Fortran,
                    std::vector<int64_t> &Shape) {
    bool HaveDescr = false, HaveOrder = false, HaveShape = false;
    skip();
    if (!S.consume_front("{"))
      return bad("header is not a dict");
    while (true) {
      skip();
      if (S.consume_front("}"))
        break;
      std::string Key;
      if (llvm::Error E = quoted(Key))
        return E;
      skip();
      if (!S.consume_front(":"))
        return bad("expected ':' after '" + Key + "'");
      skip();
      if (Key == "descr") {
        if (llvm::Error E = quoted(Descr))
          return E;
        HaveDescr = true;
      } else if (Key == "fortran_order") {
        if (S.consume_front("False"))
          Fortran = false;
        else if (S.consume_front("True"))
          Fortran = true;
        else
          return bad("fortran_order must be True or False");
        HaveOrder = true;
      } else if (Key == "shape") {
        if (llvm::Error E = shape(Shape))
          return E;
        HaveShape = true;
      } else {
        return bad("unexpected key '" + Key + "'");
      }
      skip();
      if (!S.consume_front(",")) {
        skip();
        if (!S.consume_front("}"))
          return bad("expected ',' or '}'");
        break;
      }
    }
    if (!HaveDescr || !HaveOrder || !HaveShape)
      return bad("header lacks descr, fortran_order or shape");
    return llvm::Error::success();
  }

private:
  void skip() { S = S.ltrim(" \t\n"); }
  llvm::Error bad(const std::string &Why) {
    return inputError("{0}: invalid .npy header: {1}", Name, Why);
  }
  llvm::Error quoted(std::string &Out) {
    char Q = S.empty() ? 0 : S.front();
    if (Q != '\'' && Q != '"')
      return bad("expected a quoted string");
    S = S.drop_front();
    size_t End = S.find(Q);
    if (End == llvm::StringRef::npos)
      return bad("unterminated string");
    Out = S.take_front(End).str();
    S = S.drop_front(End + 1);
    return llvm::Error::success();
  }
  llvm::Error shape(std::vector<int64_t> &Out) {
    if (!S.consume_front("("))
      return bad("shape must be a tuple");
    while (true) {
      skip();
      if (S.consume_front(")"))
        return llvm::Error::success();
      size_t Digits = 0;
      while (Digits < S.size() && llvm::isDigit(S[Digits]))
        ++Digits;
      if (Digits == 0)
        return bad("shape entries must be non-negative integers");
      if (Digits > 13) // > 2^40 needs at least 13 digits
        return bad("dimension " + S.take_front(Digits).str() + " is too large");
      int64_t V = 0;
      S.take_front(Digits).getAsInteger(10, V);
      if (V > limits::MaxDim)
        return bad("dimension " + std::to_string(V) + " is too large");
      Out.push_back(V);
      if (int64_t(Out.size()) > limits::MaxRank)
        return bad("rank is above the limit of " +
                   std::to_string(limits::MaxRank));
      S = S.drop_front(Digits);
      skip();
      if (!S.consume_front(",")) {
        skip();
        if (!S.consume_front(")"))
          return bad("expected ',' or ')' in shape");
        return llvm::Error::success();
      }
    }
  }

  llvm::StringRef S;
  llvm::StringRef Name;
};
} // namespace

llvm::Expected<NpyHeader> parseNpyHeader(llvm::StringRef Bytes,
                                         llvm::StringRef Name) {
  if (!Bytes.startswith("\x93NUMPY"))
    return inputError("{0}: not a .npy file (bad magic)", Name);
  if (Bytes.size() < 10)
    return inputError("{0}: truncated .npy header", Name);
  uint8_t Major = uint8_t(Bytes[6]);
  size_t HeaderLen, Prefix;
  if (Major == 1) {
    HeaderLen = uint8_t(Bytes[8]) | size_t(uint8_t(Bytes[9])) << 8;
    Prefix = 10;
  } else if (Major == 2 || Major == 3) {
    if (Bytes.size() < 12)
      return inputError("{0}: truncated .npy header", Name);
    HeaderLen = uint8_t(Bytes[8]) | size_t(uint8_t(Bytes[9])) << 8 |
                size_t(uint8_t(Bytes[10])) << 16 |
                size_t(uint8_t(Bytes[11])) << 24;
    Prefix = 12;
  } else {
    return inputError("{0}: unsupported .npy version {1}", Name, Major);
  }
  if (HeaderLen > MaxHeaderBytes)
    return inputError("{0}: .npy header of {1} bytes is above the {2}-byte "
                      "limit",
                      Name, HeaderLen, MaxHeaderBytes);
  if (Prefix + HeaderLen > Bytes.size())
    return inputError("{0}: .npy header says {1} bytes but the file ends "
                      "first",
                      Name, HeaderLen);
  std::string Descr;
  bool Fortran = false;
  std::vector<int64_t> Shape;
  HeaderParser HP(Bytes.substr(Prefix, HeaderLen), Name);
  if (llvm::Error E = HP.parse(Descr, Fortran, Shape))
    return E;

  NpyHeader A;
  std::optional<NpyDType> Type = npyDTypeOfDescr(Descr);
  bool Known = Type.has_value();
  if (Known)
    A.DType = *Type;
  if (!Known) {
    if (llvm::StringRef(Descr).contains('O'))
      return inputError("{0}: dtype '{1}' holds Python objects (pickle); only "
                        "numeric arrays are accepted",
                        Name, Descr);
    if (!Descr.empty() && Descr[0] == '>')
      return inputError("{0}: dtype '{1}' is big-endian; save it as "
                        "little-endian (arr.astype('<{2}'))",
                        Name, Descr, llvm::StringRef(Descr).drop_front());
    return inputError("{0}: unsupported dtype '{1}' (numeric types only: "
                      "float16/32/64, int8-64, uint8-64, bool)",
                      Name, Descr);
  }
  if (Fortran) {
    bool Trivial = true; // a Fortran-ordered 0-d/1-d array is also C order
    int NonOne = 0;
    for (int64_t D : Shape)
      NonOne += D != 1;
    Trivial = NonOne <= 1;
    if (!Trivial)
      return inputError("{0}: Fortran-ordered arrays are not supported; save "
                        "with np.ascontiguousarray",
                        Name);
  }
  uint64_t Count = 1;
  for (int64_t D : Shape)
    if (__builtin_mul_overflow(Count, uint64_t(D), &Count) ||
        Count > uint64_t(limits::MaxElements))
      return inputError("{0}: shape has more elements than the limit of 2^34",
                        Name);
  uint64_t Expected = Count * npyItemSize(A.DType);
  A.Shape = std::move(Shape);
  A.DataOffset = Prefix + HeaderLen;
  A.DataBytes = Expected;
  return A;
}

llvm::Expected<NpyArray> parseNpy(llvm::StringRef Bytes, llvm::StringRef Name,
                                  std::shared_ptr<const void> Owner) {
  auto H = parseNpyHeader(Bytes, Name);
  if (!H)
    return H.takeError();
  uint64_t Actual = Bytes.size() - H->DataOffset;
  if (Actual != H->DataBytes)
    return inputError("{0}: header declares {1} elements of {2} ({3} bytes) "
                      "but the file holds {4} data bytes",
                      Name, H->DataBytes / npyItemSize(H->DType),
                      npyDescr(H->DType), H->DataBytes, Actual);
  NpyArray A;
  A.DType = H->DType;
  A.Shape = std::move(H->Shape);
  A.Owner = std::move(Owner);
  A.Data = reinterpret_cast<const uint8_t *>(Bytes.data()) + H->DataOffset;
  A.Size = size_t(H->DataBytes);
  return A;
}

llvm::Expected<NpyArray> readNpyFile(llvm::StringRef Path) {
  auto Buf = mapFile(Path);
  if (!Buf)
    return Buf.takeError();
  llvm::StringRef Bytes = (*Buf)->getBuffer();
  return parseNpy(Bytes, Path, *Buf);
}

std::string serializeNpy(NpyDType DType, llvm::ArrayRef<int64_t> Shape,
                         llvm::StringRef Data) {
  std::string Dict = std::string("{'descr': '") + npyDescr(DType) +
                     "', 'fortran_order': False, 'shape': (";
  for (size_t I = 0; I < Shape.size(); ++I)
    Dict += std::to_string(Shape[I]) + (Shape.size() == 1 || I + 1 < Shape.size() ? "," : "") +
            (I + 1 < Shape.size() ? " " : "");
  Dict += "), }";
  // Pad with spaces so the data starts 64-byte aligned, ending in '\n'.
  size_t Total = 10 + Dict.size() + 1;
  size_t Padded = (Total + 63) / 64 * 64;
  Dict.append(Padded - Total, ' ');
  Dict += '\n';
  std::string Out = "\x93NUMPY";
  Out += char(1);
  Out += char(0);
  Out += char(Dict.size() & 0xff);
  Out += char((Dict.size() >> 8) & 0xff);
  Out += Dict;
  Out.append(Data.data(), Data.size());
  return Out;
}

llvm::Error writeNpyFile(llvm::StringRef Path, NpyDType DType,
                         llvm::ArrayRef<int64_t> Shape, llvm::StringRef Data) {
  return writeFileAtomically(Path, serializeNpy(DType, Shape, Data));
}

} // namespace kiln

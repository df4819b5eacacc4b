#include "frontends/onnx/OnnxRawData.h"

namespace kiln::onnx_import {

namespace {

// Field numbers in onnx.proto.
constexpr uint32_t ModelGraph = 7;
constexpr uint32_t GraphInitializer = 5;
constexpr uint32_t TensorDataType = 2;
constexpr uint32_t TensorRawData = 9;
constexpr uint64_t TensorFloat = 1; // TensorProto.DataType.FLOAT

enum WireType : uint32_t { Varint = 0, Fixed64 = 1, Length = 2, Fixed32 = 5 };

/// One field of a message: its tag and extent, and its value (a varint) or
/// payload (a length-delimited field).
struct Field {
  uint32_t Number = 0, Type = 0;
  uint64_t Value = 0; // a varint's value
  llvm::StringRef Payload; // a length-delimited field's bytes
  llvm::StringRef Whole;   // tag included
};

class Reader {
public:
  explicit Reader(llvm::StringRef Bytes) : Rest(Bytes) {}
  bool done() const { return Rest.empty(); }

  /// The next field, or false when the bytes are malformed (groups, an
  /// overlong varint, a length past the end).
  bool next(Field &F) {
    const char *Start = Rest.data();
    uint64_t Tag;
    if (!varint(Tag) || (Tag >> 3) == 0 || (Tag >> 3) > UINT32_MAX)
      return false;
    F.Number = uint32_t(Tag >> 3);
    F.Type = uint32_t(Tag & 7);
    switch (F.Type) {
    case Varint:
      if (!varint(F.Value))
        return false;
      break;
    case Fixed64:
    case Fixed32: {
      size_t N = F.Type == Fixed64 ? 8 : 4;
      if (Rest.size() < N)
        return false;
      Rest = Rest.drop_front(N);
      break;
    }
    case Length: {
      uint64_t N;
      if (!varint(N) || N > Rest.size())
        return false;
      F.Payload = Rest.take_front(size_t(N));
      Rest = Rest.drop_front(size_t(N));
      break;
    }
    default:
      return false;
    }
    F.Whole = llvm::StringRef(Start, size_t(Rest.data() - Start));
    return true;
  }

private:
  bool varint(uint64_t &V) {
    V = 0;
    for (unsigned Shift = 0; Shift < 64 && !Rest.empty(); Shift += 7) {
      uint8_t B = uint8_t(Rest.front());
      Rest = Rest.drop_front();
      V |= uint64_t(B & 0x7f) << Shift;
      if (!(B & 0x80))
        return true;
    }
    return false;
  }

  llvm::StringRef Rest;
};

void putVarint(std::string &Out, uint64_t V) {
  for (; V >= 0x80; V >>= 7)
    Out.push_back(char(V | 0x80));
  Out.push_back(char(V));
}

void putLengthField(std::string &Out, uint32_t Number, llvm::StringRef Bytes) {
  putVarint(Out, uint64_t(Number) << 3 | Length);
  putVarint(Out, Bytes.size());
  Out.append(Bytes.data(), Bytes.size());
}

class Stripper {
public:
  Stripper(uint64_t MinBytes) : MinBytes(MinBytes) {}

  bool model(llvm::StringRef Bytes, std::string &Out) {
    return rewriteField(Bytes, ModelGraph, &Stripper::graph, Out);
  }

  std::vector<llvm::Optional<llvm::ArrayRef<uint8_t>>> RawData;
  bool Stripped = false;

private:
  using Rewrite = bool (Stripper::*)(llvm::StringRef, std::string &);

  /// Copies a message, passing every length-delimited field Number through
  /// Fn and the other fields through unchanged.
  bool rewriteField(llvm::StringRef Bytes, uint32_t Number, Rewrite Fn,
                    std::string &Out) {
    Reader R(Bytes);
    Field F;
    while (!R.done()) {
      if (!R.next(F))
        return false;
      if (F.Number != Number || F.Type != Length) {
        Out.append(F.Whole.data(), F.Whole.size());
        continue;
      }
      std::string Rewritten;
      if (!(this->*Fn)(F.Payload, Rewritten))
        return false;
      putLengthField(Out, Number, Rewritten);
    }
    return true;
  }

  bool graph(llvm::StringRef Bytes, std::string &Out) {
    return rewriteField(Bytes, GraphInitializer, &Stripper::tensor, Out);
  }

  /// Copies the tensor, emptying its raw_data when it is large FLOAT data
  /// given once (a repeated field would merge, so such tensors are copied
  /// whole).
  bool tensor(llvm::StringRef Bytes, std::string &Out) {
    Reader R(Bytes);
    Field F;
    unsigned DataTypes = 0, Raws = 0;
    uint64_t DataType = 0;
    llvm::StringRef Raw;
    while (!R.done()) {
      if (!R.next(F))
        return false;
      if (F.Number == TensorDataType && F.Type == Varint) {
        ++DataTypes;
        DataType = F.Value;
      } else if (F.Number == TensorRawData && F.Type == Length) {
        ++Raws;
        Raw = F.Payload;
      }
    }
    bool Strip = DataTypes == 1 && Raws == 1 && DataType == TensorFloat &&
                 Raw.size() >= MinBytes;
    RawData.push_back(llvm::None);
    if (!Strip) {
      Out.append(Bytes.data(), Bytes.size());
      return true;
    }
    Reader Again(Bytes);
    while (!Again.done()) {
      Again.next(F); // read once already
      if (F.Number == TensorRawData && F.Type == Length)
        putLengthField(Out, TensorRawData, llvm::StringRef("\0", 1));
      else
        Out.append(F.Whole.data(), F.Whole.size());
    }
    RawData.back() = llvm::ArrayRef<uint8_t>(
        reinterpret_cast<const uint8_t *>(Raw.data()), Raw.size());
    Stripped = true;
    return true;
  }

  uint64_t MinBytes;
};

} // namespace

llvm::Optional<StrippedModel> stripLargeRawData(llvm::StringRef Model,
                                                uint64_t MinBytes) {
  Stripper S(MinBytes);
  StrippedModel Out;
  if (!S.model(Model, Out.Bytes) || !S.Stripped)
    return llvm::None;
  Out.RawData = std::move(S.RawData);
  return Out;
}

} // namespace kiln::onnx_import

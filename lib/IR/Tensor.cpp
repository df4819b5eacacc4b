#include "IR/Tensor.h"

#include "Support/FileSystem.h"
#include "Support/Scratch.h"

#include <cmath>

namespace kiln {

const uint8_t *Buffer::emptyData() {
  alignas(64) static uint8_t Empty[64] = {};
  return Empty;
}

Buffer Buffer::own(std::vector<uint8_t> Bytes) {
  auto Storage = std::make_shared<std::vector<uint8_t>>(std::move(Bytes));
  Buffer B;
  if (!Storage->empty())
    B.Data = Storage->data();
  B.Size = Storage->size();
  B.Owner = std::move(Storage);
  return B;
}

Buffer Buffer::copy(llvm::ArrayRef<uint8_t> Bytes) {
  return own(std::vector<uint8_t>(Bytes.begin(), Bytes.end()));
}

Buffer Buffer::alias(std::shared_ptr<const void> Owner, const uint8_t *Data,
                     size_t Size) {
  Buffer B;
  B.Owner = std::move(Owner);
  if (Data)
    B.Data = Data;
  B.Size = Size;
  B.Aliased = true;
  return B;
}

namespace {
/// Keeps a file mapping alive for one aliased range, and drops the range's
/// pages when the last Buffer of it is gone.
struct MappedRange {
  std::shared_ptr<const llvm::MemoryBuffer> File;
  const uint8_t *Data;
  size_t Size;
  ~MappedRange() { dropMappedPages(*File, Data, Size); }
};
} // namespace

Buffer Buffer::aliasMapped(std::shared_ptr<const llvm::MemoryBuffer> File,
                           const uint8_t *Data, size_t Size) {
  const llvm::MemoryBuffer *Mapping = File.get();
  auto Range = std::make_shared<const MappedRange>(
      MappedRange{std::move(File), Data, Size});
  Buffer B = alias(std::move(Range), Data, Size);
  B.Mapping = Mapping;
  return B;
}

void Buffer::releaseResident() const {
  if (Mapping)
    dropMappedPages(*Mapping, Data, Size);
}

Buffer Buffer::spilledIfLarge(Buffer B) {
  if (B.isAlias())
    return B;
  auto Spilled = spillBytes(B.bytes());
  if (!Spilled)
    return B;
  const auto *Data = reinterpret_cast<const uint8_t *>(Spilled->getBufferStart());
  size_t Size = Spilled->getBufferSize();
  return aliasMapped(std::move(Spilled), Data, Size);
}

double Tensor::asDouble(int64_t I) const {
  switch (Type.Elem) {
  case ElementType::F32: return at<float>(I);
  case ElementType::F16: return halfToFloat(at<uint16_t>(I));
  case ElementType::BF16: return bf16ToFloat(at<uint16_t>(I));
  case ElementType::F64: return at<double>(I);
  case ElementType::I64: return double(at<int64_t>(I));
  case ElementType::I32: return at<int32_t>(I);
  case ElementType::I16: return at<int16_t>(I);
  case ElementType::I8: return at<int8_t>(I);
  case ElementType::U64: return double(at<uint64_t>(I));
  case ElementType::U32: return at<uint32_t>(I);
  case ElementType::U16: return at<uint16_t>(I);
  case ElementType::U8: return at<uint8_t>(I);
  case ElementType::Bool: return at<uint8_t>(I) ? 1.0 : 0.0;
  }
  return 0;
}

int64_t Tensor::asInt(int64_t I) const {
  switch (Type.Elem) {
  case ElementType::I64: return at<int64_t>(I);
  case ElementType::I32: return at<int32_t>(I);
  case ElementType::I16: return at<int16_t>(I);
  case ElementType::I8: return at<int8_t>(I);
  case ElementType::U64: return int64_t(at<uint64_t>(I));
  case ElementType::U32: return at<uint32_t>(I);
  case ElementType::U16: return at<uint16_t>(I);
  case ElementType::U8: return at<uint8_t>(I);
  case ElementType::Bool: return at<uint8_t>(I) ? 1 : 0;
  default: {
    double D = asDouble(I);
    if (!(D == D) || D >= 9.2e18 || D <= -9.2e18)
      return 0;
    return int64_t(D);
  }
  }
}


} // namespace kiln

namespace kiln {

Tensor Tensor::scalar(ElementType E, double V) {
  std::vector<uint8_t> Bytes(elementSize(E));
  auto Put = [&](auto X) { std::memcpy(Bytes.data(), &X, sizeof(X)); };
  switch (E) {
  case ElementType::F32: Put(float(V)); break;
  case ElementType::F64: Put(V); break;
  case ElementType::F16: Put(floatToHalf(float(V))); break;
  case ElementType::BF16: Put(floatToBf16(float(V))); break;
  case ElementType::I64: Put(int64_t(V)); break;
  case ElementType::I32: Put(int32_t(V)); break;
  case ElementType::I16: Put(int16_t(V)); break;
  case ElementType::I8: Put(int8_t(V)); break;
  case ElementType::U64: Put(uint64_t(V)); break;
  case ElementType::U32: Put(uint32_t(V)); break;
  case ElementType::U16: Put(uint16_t(V)); break;
  case ElementType::U8: Put(uint8_t(V)); break;
  case ElementType::Bool: Put(uint8_t(V != 0)); break;
  }
  return Tensor(TensorType(E, {}), Buffer::own(std::move(Bytes)));
}

} // namespace kiln

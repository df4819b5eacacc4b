// Tensor types: element type, shape (static, named-symbolic or unknown dims)
// and optional quantization parameters, per tensor or per axis.
#pragma once

#include "IR/ElementType.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Optional.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln {

/// One dimension: a static size, a named symbol ("N"), or unknown ("?").
class Dim {
public:
  Dim() = default; // unknown
  Dim(int64_t Size) : Size(Size) {}
  static Dim symbol(std::string Name) {
    Dim D;
    D.Symbol = std::move(Name);
    return D;
  }

  bool isStatic() const { return Size >= 0; }
  bool isSymbolic() const { return !Symbol.empty(); }
  bool isUnknown() const { return Size < 0 && Symbol.empty(); }
  int64_t size() const { return Size; } // -1 unless static
  const std::string &symbol() const { return Symbol; }

  bool operator==(const Dim &O) const {
    return Size == O.Size && Symbol == O.Symbol;
  }
  bool operator!=(const Dim &O) const { return !(*this == O); }

private:
  int64_t Size = -1;
  std::string Symbol;
};

using Shape = std::vector<Dim>;

bool isStaticShape(const Shape &S);
/// Product of the dims, or None if a dim is not static or it overflows.
llvm::Optional<int64_t> numElements(const Shape &S);
/// True if the static dims alone already pass limits::MaxDim or multiply to
/// more than limits::MaxElements (symbolic dims count as 1). The one rule
/// for "too large": the .kir parser, the frontends and the verifier all use
/// it, so kiln never writes a model it then refuses to read. With at most
/// 8-byte elements it keeps a tensor under 2^37 bytes, below the runtime's
/// 2^40-byte cap.
bool exceedsElementLimit(const Shape &S);
/// Static sizes of a static shape (asserts isStaticShape).
std::vector<int64_t> staticSizes(const Shape &S);
Shape makeShape(llvm::ArrayRef<int64_t> Sizes);

/// Quantization: real = (q - zero_point) * scale. Axis < 0 means per tensor
/// (one scale and zero point); otherwise one pair per slice along Axis.
struct QuantParams {
  std::vector<float> Scales;
  std::vector<int64_t> ZeroPoints;
  int64_t Axis = -1;

  bool isPerAxis() const { return Axis >= 0; }
  bool operator==(const QuantParams &O) const {
    return Scales == O.Scales && ZeroPoints == O.ZeroPoints && Axis == O.Axis;
  }
};

struct TensorType {
  ElementType Elem = ElementType::F32;
  Shape Dims;
  llvm::Optional<QuantParams> Quant;

  TensorType() = default;
  TensorType(ElementType Elem, Shape Dims) : Elem(Elem), Dims(std::move(Dims)) {}

  int64_t rank() const { return int64_t(Dims.size()); }
  bool isStatic() const { return isStaticShape(Dims); }

  bool operator==(const TensorType &O) const {
    return Elem == O.Elem && Dims == O.Dims && Quant == O.Quant;
  }
  bool operator!=(const TensorType &O) const { return !(*this == O); }
};

/// Text form, e.g. "f32[N,3,224,224]" or "i8[1,8] q(scale=0.5, zp=3)".
std::string toString(const Shape &S);
std::string toString(const TensorType &T);

/// True when a value declared as Declared can hold what inference computed
/// (Inferred): same element type and rank, and every pair of dims agrees where
/// both are known. Unknown dims agree with anything; a symbol agrees with the
/// same symbol or with an unknown dim.
bool isCompatible(const TensorType &Declared, const TensorType &Inferred);

} // namespace kiln

#include "IR/Attribute.h"

#include <type_traits>

namespace kiln {

llvm::StringRef attrKindName(AttrKind K) {
  switch (K) {
  case AttrKind::Int: return "int";
  case AttrKind::Float: return "float";
  case AttrKind::String: return "string";
  case AttrKind::Ints: return "ints";
  case AttrKind::Floats: return "floats";
  case AttrKind::Strings: return "strings";
  case AttrKind::Tensor: return "tensor";
  }
  return "?";
}

AttrKind kindOf(const AttrValue &V) { return static_cast<AttrKind>(V.index()); }

bool attrEquals(const AttrValue &A, const AttrValue &B) {
  if (A.index() != B.index())
    return false;
  return std::visit(
      [&](const auto &X) -> bool {
        using T = std::decay_t<decltype(X)>;
        const T &Y = std::get<T>(B);
        if constexpr (std::is_same_v<T, Tensor>) {
          return X.sameContents(Y);
        } else if constexpr (std::is_same_v<T, double>) {
          return std::memcmp(&X, &Y, sizeof(double)) == 0; // nan == nan
        } else if constexpr (std::is_same_v<T, std::vector<double>>) {
          return X.size() == Y.size() &&
                 (X.empty() ||
                  std::memcmp(X.data(), Y.data(), X.size() * sizeof(double)) == 0);
        } else {
          return X == Y;
        }
      },
      A);
}

} // namespace kiln

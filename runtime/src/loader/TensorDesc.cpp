#include "loader/TensorDesc.h"

#include "Status.h"

namespace kiln::rt {

std::string dtypeName(fb::DType T) {
  static const char *const Names[] = {"unknown", "f32", "f16", "bf16", "f64",
                                      "i64",     "i32", "i16", "i8",   "u64",
                                      "u32",     "u16", "u8",  "bool"};
  auto V = static_cast<int>(T);
  if (V >= 0 && V < int(sizeof(Names) / sizeof(Names[0])))
    return Names[V];
  return concat("dtype(", V, ")");
}

std::string shapeString(const std::vector<int64_t> &Shape) {
  std::string S = "[";
  for (size_t I = 0; I < Shape.size(); ++I)
    S += (I ? "," : "") + std::to_string(Shape[I]);
  return S + "]";
}

} // namespace kiln::rt

#include "IR/ElementType.h"

#include "llvm/ADT/ArrayRef.h"

namespace kiln {

namespace {
struct ElementTypeInfo {
  ElementType Type;
  const char *Name;
  size_t Size;
  bool Float, Signed;
};
constexpr ElementTypeInfo Infos[] = {
    {ElementType::F32, "f32", 4, true, true},
    {ElementType::F16, "f16", 2, true, true},
    {ElementType::BF16, "bf16", 2, true, true},
    {ElementType::F64, "f64", 8, true, true},
    {ElementType::I64, "i64", 8, false, true},
    {ElementType::I32, "i32", 4, false, true},
    {ElementType::I16, "i16", 2, false, true},
    {ElementType::I8, "i8", 1, false, true},
    {ElementType::U64, "u64", 8, false, false},
    {ElementType::U32, "u32", 4, false, false},
    {ElementType::U16, "u16", 2, false, false},
    {ElementType::U8, "u8", 1, false, false},
    {ElementType::Bool, "bool", 1, false, false},
};
const ElementTypeInfo &info(ElementType T) {
  return Infos[static_cast<unsigned>(T) - 1];
}
} // namespace

llvm::StringRef elementTypeName(ElementType T) { return info(T).Name; }

llvm::Optional<ElementType> parseElementType(llvm::StringRef Name) {
  for (const auto &I : Infos)
    if (Name == I.Name)
      return I.Type;
  return llvm::None;
}

size_t elementSize(ElementType T) { return info(T).Size; }
bool isFloatType(ElementType T) { return info(T).Float; }
bool isIntegerType(ElementType T) {
  return !info(T).Float && T != ElementType::Bool;
}
bool isSignedType(ElementType T) { return info(T).Signed; }

llvm::ArrayRef<ElementType> allElementTypes() {
  static const ElementType All[] = {
      ElementType::F32, ElementType::F16, ElementType::BF16, ElementType::F64,
      ElementType::I64, ElementType::I32, ElementType::I16,  ElementType::I8,
      ElementType::U64, ElementType::U32, ElementType::U16,  ElementType::U8,
      ElementType::Bool};
  return All;
}

} // namespace kiln

// Element types of IR tensors. The textual names (f32, i8, ...) are the ones
// used in .kir files and in every report.
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Optional.h"
#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <cstdint>

namespace kiln {

// Values are stable: they are written into files.
enum class ElementType : uint8_t {
  F32 = 1,
  F16 = 2,
  BF16 = 3,
  F64 = 4,
  I64 = 5,
  I32 = 6,
  I16 = 7,
  I8 = 8,
  U64 = 9,
  U32 = 10,
  U16 = 11,
  U8 = 12,
  Bool = 13,
};

llvm::StringRef elementTypeName(ElementType T);
llvm::Optional<ElementType> parseElementType(llvm::StringRef Name);
size_t elementSize(ElementType T);
bool isFloatType(ElementType T);
bool isIntegerType(ElementType T); // excludes Bool
bool isSignedType(ElementType T);

/// All element types, in enum order (for tables and tests).
llvm::ArrayRef<ElementType> allElementTypes();

} // namespace kiln

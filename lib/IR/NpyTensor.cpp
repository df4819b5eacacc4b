#include "IR/NpyTensor.h"

#include "Support/Error.h"

namespace kiln {

ElementType elementTypeOf(NpyDType T) {
  switch (T) {
  case NpyDType::F16: return ElementType::F16;
  case NpyDType::F32: return ElementType::F32;
  case NpyDType::F64: return ElementType::F64;
  case NpyDType::I8: return ElementType::I8;
  case NpyDType::I16: return ElementType::I16;
  case NpyDType::I32: return ElementType::I32;
  case NpyDType::I64: return ElementType::I64;
  case NpyDType::U8: return ElementType::U8;
  case NpyDType::U16: return ElementType::U16;
  case NpyDType::U32: return ElementType::U32;
  case NpyDType::U64: return ElementType::U64;
  case NpyDType::Bool: return ElementType::Bool;
  }
  return ElementType::F32;
}

llvm::Optional<NpyDType> npyDTypeOf(ElementType T) {
  for (int I = 0; I <= int(NpyDType::Bool); ++I)
    if (elementTypeOf(NpyDType(I)) == T)
      return NpyDType(I);
  return llvm::None;
}

Tensor tensorFromNpy(const NpyArray &A) {
  return Tensor(TensorType(elementTypeOf(A.DType), makeShape(A.Shape)),
                Buffer::alias(A.Owner, A.Data, A.Size));
}

llvm::Expected<std::string> npyBytesOf(const Tensor &T) {
  auto D = npyDTypeOf(T.type().Elem);
  if (!D)
    return inputError("a {0} tensor cannot be stored as .npy (NumPy has no "
                      "such type)",
                      elementTypeName(T.type().Elem));
  return serializeNpy(*D, staticSizes(T.type().Dims), T.buffer().str());
}

} // namespace kiln

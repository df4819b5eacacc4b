// Conversions between NumPy arrays (Support/Npy.h) and IR tensors.
#pragma once

#include "IR/Tensor.h"
#include "Support/Npy.h"

#include "llvm/Support/Error.h"

namespace kiln {

/// The IR element type of a numpy dtype (every NpyDType has one).
ElementType elementTypeOf(NpyDType T);
/// The numpy dtype of an IR element type; None for bf16 (numpy has none).
llvm::Optional<NpyDType> npyDTypeOf(ElementType T);

/// A tensor viewing the array's bytes (no copy; the array's owner is kept).
Tensor tensorFromNpy(const NpyArray &A);
/// The .npy file bytes for T; error for bf16 (NumPy has no bfloat16).
llvm::Expected<std::string> npyBytesOf(const Tensor &T);

} // namespace kiln

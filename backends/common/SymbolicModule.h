// Batch-polymorphic files (schema 1.9): a backend lowers two copies of a
// graph whose symbolic dims are bound to different sizes, and
// generalizeModule turns the first module into one for any size. Every
// operator, option, constant and segment must be the same in both; a dim
// that differs must be the symbol's size times one factor in both, and
// becomes -1 with a Tensor.symbolic_dims entry. Anything else depends on
// the symbol's value in a way the file cannot keep, and is an error that
// names the operator.
#pragma once

#include "backends/common/KilnModule.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace kiln {

/// The sizes the two lowerings bind the symbols to: distinct primes, so that
/// a dim's factor and symbol are found without ambiguity. Usage error for
/// more symbols than the table has.
llvm::Error probeSizes(size_t NumSymbols, std::vector<int64_t> &First,
                       std::vector<int64_t> &Second);

/// Turns A (lowered at sizes SizesA) into the polymorphic module, checking it
/// against B (lowered at SizesB); sets A.Model.symbols.
llvm::Error generalizeModule(KilnModule &A, const KilnModule &B,
                             const std::vector<std::string> &Symbols,
                             llvm::ArrayRef<int64_t> SizesA,
                             llvm::ArrayRef<int64_t> SizesB);

} // namespace kiln

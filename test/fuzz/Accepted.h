// The fuzz targets' verdict on a parser's result: accepted, or refused
// with a clean error (consumed: the message is the product, and each
// parser's own tests check it; here only its being clean matters).
#pragma once

#include "llvm/Support/Error.h"

namespace kiln::fuzz {

inline bool accepted(llvm::Error E) {
  if (!E)
    return true;
  llvm::consumeError(std::move(E));
  return false;
}
template <typename T> bool accepted(llvm::Expected<T> &V) {
  return V ? true : accepted(V.takeError());
}

} // namespace kiln::fuzz

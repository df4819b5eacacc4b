// Catch2 checks for llvm::Error / llvm::Expected, which Catch cannot inspect
// directly (their bool conversion is non-const). On failure the error's
// message is shown.
#pragma once

#include "llvm/Support/Error.h"

#include <catch2/catch.hpp>

#define REQUIRE_NO_ERROR(EXPR)                                                 \
  do {                                                                         \
    llvm::Error KilnErr_ = (EXPR);                                             \
    if (KilnErr_)                                                              \
      FAIL(llvm::toString(std::move(KilnErr_)));                               \
  } while (false)

/// Unwraps an Expected, failing the test with the error message.
template <typename T> T requireValue(llvm::Expected<T> V) {
  if (!V)
    FAIL(llvm::toString(V.takeError()));
  return std::move(*V);
}

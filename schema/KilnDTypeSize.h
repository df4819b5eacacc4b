// Bytes per element of each kiln.fbs DType. Shared by the writer side (the
// backends) and the runtime, which must agree on every tensor's size.
#pragma once

#include "schema/kiln_generated.h"

#include <cstddef>

namespace kiln::fb {

/// 0 for UNKNOWN or a value this build does not know.
inline size_t dtypeSize(DType T) {
  switch (T) {
  case DType::F64:
  case DType::I64:
  case DType::U64:
    return 8;
  case DType::F32:
  case DType::I32:
  case DType::U32:
    return 4;
  case DType::F16:
  case DType::BF16:
  case DType::I16:
  case DType::U16:
    return 2;
  case DType::I8:
  case DType::U8:
  case DType::BOOL:
    return 1;
  case DType::UNKNOWN:
    break;
  }
  return 0;
}

} // namespace kiln::fb

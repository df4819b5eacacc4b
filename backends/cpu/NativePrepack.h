// `kiln convert --prepack native`: the f32 convolution weights that the
// runtime's oneDNN kernels run are stored in the blocked layout those
// kernels choose on this CPU (schema 1.3, Layout BLOCKED), so
// that a session on this CPU uses them in place instead of reordering them
// when it is created. The file still runs anywhere: another CPU, another
// thread count or a runtime without oneDNN converts them back, once.
#pragma once

#include "backends/common/KilnModule.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace kiln {

struct PackingState;

struct PrepackReport {
  unsigned Tensors = 0;  // weights stored blocked
  std::string Isa;       // the CPU they were chosen for, empty if none
  uint64_t PaddingBytes = 0; // bytes the blocked layouts add
  /// Once M is written: an error naming the first weight whose conversion
  /// failed, if one did (writeKilnFile's check, before the rename).
  llvm::Error conversionError() const;

  std::shared_ptr<PackingState> State;
};

/// Asks the runtime which layouts its oneDNN kernels read M's weights in on
/// this CPU (by creating a single-threaded, layout-only session on M, which
/// converts nothing) and makes M's segments of those weights convert them
/// when they are produced, as M is written or serialized. Builds without
/// oneDNN, and CPUs where oneDNN runs no convolution, leave M unchanged.
llvm::Expected<PrepackReport> prepackForThisCpu(KilnModule &M);

} // namespace kiln

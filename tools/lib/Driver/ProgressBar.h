// A progress bar for long work (calibration): drawn on stderr only when
// stderr is a terminal, so logs and CI output stay clean.
#pragma once

#include "passes/quant/SampleRunner.h"

#include "llvm/ADT/StringRef.h"

namespace kiln {

/// A callback drawing "What [=====>    ] done/total" on stderr, finishing the
/// line when done == total; an empty function when stderr is not a terminal.
ProgressFn makeProgressBar(llvm::StringRef What);

} // namespace kiln

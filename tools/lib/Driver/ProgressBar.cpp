#include "Driver/ProgressBar.h"

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <unistd.h>

namespace kiln {

ProgressFn makeProgressBar(llvm::StringRef What) {
  if (!::isatty(STDERR_FILENO))
    return {};
  std::string Label = What.str();
  return [Label](uint64_t Done, uint64_t Total) {
    if (Total == ProgressTotalUnknown) { // a stream: a count, no bar
      llvm::errs() << '\r' << Label << ' ' << Done << " samples";
      llvm::errs().flush();
      return;
    }
    constexpr uint64_t Width = 30;
    uint64_t Filled = Total ? Done * Width / Total : Width;
    std::string Bar(size_t(Filled), '=');
    if (Filled < Width)
      Bar += '>' + std::string(size_t(Width - Filled - 1), ' ');
    llvm::errs() << '\r' << Label << " [" << Bar << "] " << Done << '/' << Total;
    if (Done >= Total)
      llvm::errs() << '\n';
    llvm::errs().flush();
  };
}

} // namespace kiln

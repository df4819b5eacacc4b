// Logging goes through spdlog to stderr. -v, --log-level and --debug-only set
// it up once in main(); libraries just call kiln::log() / KILN_DEBUG.
#pragma once

#include "llvm/ADT/StringRef.h"

#include <spdlog/spdlog.h>

#include <string>
#include <vector>

namespace kiln {

/// The logger every kiln library writes to (stderr, "kiln: <level>: msg").
spdlog::logger &log();

/// Configures the level (trace|debug|info|warn|error|off) and the set of
/// component names whose debug output is enabled (--debug-only=a,b).
void configureLogging(spdlog::level::level_enum Level,
                      std::vector<std::string> DebugOnly);

/// True when debug output for Component (a pass name, "parser", ...) is on.
bool debugEnabled(llvm::StringRef Component);

} // namespace kiln

#define KILN_DEBUG(COMPONENT, ...)                                             \
  do {                                                                         \
    if (::kiln::debugEnabled(COMPONENT))                                       \
      ::kiln::log().debug(__VA_ARGS__);                                        \
  } while (false)

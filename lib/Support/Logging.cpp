#include "Support/Logging.h"

#include <spdlog/sinks/stdout_sinks.h>

#include <algorithm>

namespace kiln {

namespace {
struct LogState {
  std::shared_ptr<spdlog::logger> Logger;
  std::vector<std::string> DebugOnly;
  LogState() {
    Logger = std::make_shared<spdlog::logger>(
        "kiln", std::make_shared<spdlog::sinks::stderr_sink_st>());
    Logger->set_pattern("kiln: %l: %v");
    Logger->set_level(spdlog::level::warn);
  }
};
LogState &state() {
  static LogState S;
  return S;
}
} // namespace

spdlog::logger &log() { return *state().Logger; }

void configureLogging(spdlog::level::level_enum Level,
                      std::vector<std::string> DebugOnly) {
  LogState &S = state();
  S.DebugOnly = std::move(DebugOnly);
  // --debug-only implies debug output for the named components.
  if (!S.DebugOnly.empty() && Level > spdlog::level::debug)
    Level = spdlog::level::debug;
  S.Logger->set_level(Level);
}

bool debugEnabled(llvm::StringRef Component) {
  LogState &S = state();
  if (!S.Logger->should_log(spdlog::level::debug))
    return false;
  if (S.DebugOnly.empty())
    return true;
  return std::find(S.DebugOnly.begin(), S.DebugOnly.end(), Component.str()) !=
         S.DebugOnly.end();
}

} // namespace kiln

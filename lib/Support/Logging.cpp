#include "Support/Logging.h"
#include "Support/TerminalText.h"

#include <spdlog/details/null_mutex.h>
#include <spdlog/sinks/base_sink.h>

#include <cstdio>

#include <algorithm>

namespace kiln {

namespace {
/// stderr, with control characters in messages escaped (TerminalText.h):
/// warnings quote names from the files kiln reads.
class EscapingStderrSink : public spdlog::sinks::base_sink<spdlog::details::null_mutex> {
protected:
  void sink_it_(const spdlog::details::log_msg &Msg) override {
    spdlog::memory_buf_t Formatted;
    formatter_->format(Msg, Formatted);
    std::string Text = escapeControlChars(
        llvm::StringRef(Formatted.data(), Formatted.size()));
    std::fwrite(Text.data(), 1, Text.size(), stderr);
  }
  void flush_() override { std::fflush(stderr); }
};

struct LogState {
  std::shared_ptr<spdlog::logger> Logger;
  std::vector<std::string> DebugOnly;
  LogState() {
    Logger = std::make_shared<spdlog::logger>(
        "kiln", std::make_shared<EscapingStderrSink>());
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

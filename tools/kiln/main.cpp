// kiln: the command-line driver. Parses global options, dispatches to one
// subcommand, and turns errors into the exit codes of DESIGN.md:
// 0 success, 1 bad input, 2 usage, 3 gate failed, 70 internal error.
#include "Command.h"
#include "Support/Error.h"
#include "Support/FileSystem.h"
#include "Support/Logging.h"
#include "Support/TerminalText.h"
#include "Version.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <string>
#include <vector>

using namespace kiln;

/// Whether the command line asks for --json output: a failure then prints
/// its error as JSON on stdout too, unless the command printed its own.
static bool JsonRequested = false;

static int report(Diagnosis D) {
  if (JsonRequested && llvm::outs().tell() == 0)
    printJson(errorJson(D));
  llvm::StringRef Msg = D.Message;
  while (!Msg.empty()) {
    auto [Line, Rest] = Msg.split('\n');
    llvm::errs() << "kiln: error: " << escapeControlChars(Line) << '\n';
    Msg = Rest;
  }
  return static_cast<int>(D.Code);
}

static std::vector<std::string> subcommandNames(CLI::App &App) {
  std::vector<std::string> Names;
  for (CLI::App *Sub : App.get_subcommands(std::function<bool(CLI::App *)>()))
    Names.push_back(Sub->get_name());
  return Names;
}

/// The subcommand named on the command line when it is not one of App's:
/// the first word that is neither an option nor a global option's value.
/// Empty when there is none, or when --help is asked for first.
static std::string unknownSubcommand(int Argc, char **Argv, CLI::App &App) {
  for (int I = 1; I < Argc; ++I) {
    llvm::StringRef Arg = Argv[I];
    if (Arg == "-h" || Arg == "--help" || Arg == "--version")
      return "";
    if (Arg == "--log-level" || Arg == "--debug-only") {
      ++I; // its value
      continue;
    }
    if (Arg.startswith("-"))
      continue;
    for (const std::string &Name : subcommandNames(App))
      if (Name == Arg)
        return "";
    return Arg.str();
  }
  return "";
}

/// "did you mean 'convert'?" for a subcommand within a few edits of Name,
/// else the list of subcommands.
static int reportUnknownSubcommand(llvm::StringRef Name, CLI::App &App) {
  std::string Best, All;
  // Ties go to the first registered command.
  unsigned BestDistance = ~0u;
  for (const std::string &Known : subcommandNames(App)) {
    llvm::StringRef Candidate = Known;
    All += (All.empty() ? "" : ", ") + Known;
    unsigned D = Name.edit_distance(Candidate, /*AllowReplacements=*/true);
    if (D < BestDistance) {
      BestDistance = D;
      Best = Candidate.str();
    }
  }
  // A third of the word may be wrong (covnert, conver; not frobnicate).
  unsigned Allowed = std::max<unsigned>(2, unsigned(Name.size()) / 3);
  llvm::errs() << "kiln: error: '" << Name << "' is not a kiln command";
  if (BestDistance <= Allowed)
    llvm::errs() << "; did you mean '" << Best << "'?\n";
  else
    llvm::errs() << " (commands: " << All << ")\n";
  llvm::errs() << "kiln: run 'kiln --help' for usage\n";
  return static_cast<int>(ExitCode::Usage);
}

static int runKiln(int Argc, char **Argv) {
  CLI::App App{"kiln: an offline compiler that turns trained neural-network "
               "models (ONNX .onnx, TorchScript .pt) into small, fast files "
               "for phones and other small devices",
               "kiln"};
  App.set_version_flag("--version", "kiln " KILN_VERSION_STRING);
  App.require_subcommand(1);
  App.fallthrough();

  int Verbosity = 0;
  std::string LogLevel;
  std::vector<std::string> DebugOnly;
  App.add_flag("-v,--verbose", Verbosity, "more log output (repeatable)");
  App.add_option("--log-level", LogLevel, "trace|debug|info|warn|error|off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));
  App.add_option("--debug-only", DebugOnly,
                 "debug output only from these components (pass names, ...)")
      ->allow_extra_args(false)
      ->delimiter(',');

  std::vector<Command> Commands = addAllCommands(App);
  for (int I = 1; I < Argc; ++I)
    JsonRequested |= llvm::StringRef(Argv[I]) == "--json";
  std::string Unknown = unknownSubcommand(Argc, Argv, App);
  if (!Unknown.empty())
    return reportUnknownSubcommand(Unknown, App);
  try {
    App.parse(Argc, Argv);
  } catch (const CLI::Success &E) { // --help, --version
    return App.exit(E);
  } catch (const CLI::ParseError &E) {
    // CLI11's own words, in kiln's form.
    std::string Sub;
    for (const std::string &Name : subcommandNames(App))
      for (int I = 1; I < Argc && Sub.empty(); ++I)
        if (Name == Argv[I])
          Sub = Name + " ";
    report({ExitCode::Usage, E.what()});
    llvm::errs() << "kiln: run 'kiln " << Sub << "--help' for usage\n";
    return static_cast<int>(ExitCode::Usage);
  }

  auto Level = spdlog::level::warn;
  if (Verbosity == 1)
    Level = spdlog::level::info;
  else if (Verbosity >= 2)
    Level = spdlog::level::debug;
  if (!LogLevel.empty())
    Level = spdlog::level::from_str(LogLevel);
  configureLogging(Level, DebugOnly);

  for (Command &C : Commands)
    if (C.Sub->parsed()) {
      if (llvm::Error E = C.Run())
        return report(diagnose(std::move(E)));
      return 0;
    }
  return static_cast<int>(ExitCode::Usage);
}

#if defined(__SANITIZE_ADDRESS__)
#define KILN_EXIT_NORMALLY 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KILN_EXIT_NORMALLY 1
#endif
#endif

/// Ends the process with Code once everything it printed is flushed, without
/// the static destructors: the command's outputs are complete (written
/// atomically) by now, and tearing down libonnx's ~1000 operator schemas and
/// the rest was measured to be a noticeable part of a short `kiln calibrate`
/// (docs/benchmarks.md has the figures). clang's -disable-free makes the
/// same trade. Sanitizer builds exit normally, so LeakSanitizer
/// still checks for leaks.
[[noreturn]] static void exitNow(int Code) {
  llvm::outs().flush();
  if (llvm::outs().has_error()) {
    llvm::outs().clear_error();
    llvm::errs() << "kiln: error: writing to standard output failed\n";
    if (Code == 0)
      Code = static_cast<int>(ExitCode::BadInput);
  }
  llvm::errs().flush();
  std::fflush(nullptr);
#ifdef KILN_EXIT_NORMALLY
  std::exit(Code);
#else
  std::_Exit(Code);
#endif
}

int main(int Argc, char **Argv) {
  // A command never writes over a file it read (kiln convert m.onnx -o m.onnx).
  protectInputFiles();
  try {
    exitNow(runKiln(Argc, Argv));
  } catch (const std::exception &E) {
    llvm::errs() << "kiln: internal error: " << E.what()
                 << "\nkiln: please report this with the command line and the "
                    "input file\n";
    exitNow(static_cast<int>(ExitCode::Internal));
  }
}

// Each `kiln` subcommand lives in its own file and registers itself here: it
// adds its options to a CLI11 subcommand and returns how to run it.
#pragma once

#include "Support/Error.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace kiln {

struct Command {
  CLI::App *Sub = nullptr;
  std::function<llvm::Error()> Run;
};

Command addOptCommand(CLI::App &App);
Command addPassesCommand(CLI::App &App);
Command addOpsCommand(CLI::App &App);
Command addRunCommand(CLI::App &App);
Command addInspectCommand(CLI::App &App);
Command addDiffCommand(CLI::App &App);
Command addConvertCommand(CLI::App &App);
Command addBenchCommand(CLI::App &App);
Command addCalibrateCommand(CLI::App &App);
Command addTargetsCommand(CLI::App &App);
Command addVerifyCommand(CLI::App &App);
Command addBuildCommand(CLI::App &App);

/// Where a command prints its result: standard output, or what a caller
/// that runs commands in its own process (the Python package) redirected
/// it to on this thread.
llvm::raw_ostream &commandOut();

/// While alive, commandOut() on this thread is OS.
class RedirectCommandOutput {
public:
  explicit RedirectCommandOutput(llvm::raw_ostream &OS);
  ~RedirectCommandOutput();
  RedirectCommandOutput(const RedirectCommandOutput &) = delete;
  RedirectCommandOutput &operator=(const RedirectCommandOutput &) = delete;

private:
  llvm::raw_ostream *Previous;
};

/// Every subcommand, added to App in the order `kiln --help` lists them.
std::vector<Command> addAllCommands(CLI::App &App);

/// Runs one kiln command line (Args without the program name) in this
/// process, as `kiln` does but without exiting or touching the logging
/// setup: what it prints goes to commandOut(), a parse error is a usage
/// error, --help is refused.
llvm::Error runCommandLine(const std::vector<std::string> &Args);

/// Writes V to commandOut() as pretty-printed JSON with a trailing newline.
void printJson(const llvm::json::Value &V);
/// A failed command's error as JSON, for --json: {"error": {exit_code, kind,
/// message, file, node, op}} (file, node and op null where the message
/// names none).
llvm::json::Value errorJson(const Diagnosis &D);

} // namespace kiln

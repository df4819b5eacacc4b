// Each `kiln` subcommand lives in its own file and registers itself here: it
// adds its options to a CLI11 subcommand and returns how to run it.
#pragma once

#include "Support/Error.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <CLI/CLI.hpp>

#include <functional>

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

/// Writes V to stdout as pretty-printed JSON with a trailing newline.
void printJson(const llvm::json::Value &V);
/// A failed command's error as JSON, for --json: {"error": {exit_code, kind,
/// message, file, node, op}} (file, node and op null where the message
/// names none).
llvm::json::Value errorJson(const Diagnosis &D);

} // namespace kiln

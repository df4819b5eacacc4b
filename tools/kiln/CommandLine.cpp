#include "Command.h"

namespace kiln {

std::vector<Command> addAllCommands(CLI::App &App) {
  return {addOptCommand(App),       addPassesCommand(App),
          addOpsCommand(App),       addRunCommand(App),
          addConvertCommand(App),   addBenchCommand(App),
          addInspectCommand(App),   addDiffCommand(App),
          addCalibrateCommand(App), addTargetsCommand(App),
          addVerifyCommand(App),    addBuildCommand(App)};
}

llvm::Error runCommandLine(const std::vector<std::string> &Args) {
  CLI::App App{"kiln", "kiln"};
  App.require_subcommand(1);
  std::vector<Command> Commands = addAllCommands(App);
  for (const std::string &A : Args)
    if (A == "-h" || A == "--help")
      return usageError("--help is for the command line (kiln {0} --help)",
                        Args.empty() ? "" : Args[0]);
  // CLI11 takes the arguments last first.
  std::vector<std::string> Reversed(Args.rbegin(), Args.rend());
  try {
    App.parse(Reversed);
  } catch (const CLI::ParseError &E) {
    return usageError("{0}", E.what());
  }
  for (Command &C : Commands)
    if (C.Sub->parsed())
      return C.Run();
  return usageError("no kiln command given");
}

} // namespace kiln

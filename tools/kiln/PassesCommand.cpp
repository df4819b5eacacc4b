// kiln passes: lists the registered passes (name and description) and the
// pass pipeline of each -O level.
#include "Command.h"
#include "passes/Pass.h"
#include "passes/Pipelines.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

namespace kiln {

Command addPassesCommand(CLI::App &App) {
  auto Json = std::make_shared<bool>(false);
  CLI::App *Sub = App.add_subcommand("passes", "list the optimization passes");
  Sub->add_flag("--json", *Json, "print JSON");
  return {Sub, [Json]() -> llvm::Error {
            if (*Json) {
              llvm::json::Array A;
              for (const PassInfo &P : allPasses())
                A.push_back(llvm::json::Object{{"name", P.Name},
                                               {"description", P.Description}});
              llvm::json::Object Levels;
              for (int L = 0; L <= 2; ++L) {
                llvm::json::Array Names;
                for (const std::string &N : pipelineForRuntimeTarget(L))
                  Names.push_back(N);
                Levels["O" + std::to_string(L)] = std::move(Names);
              }
              printJson(llvm::json::Object{{"passes", std::move(A)},
                                           {"pipelines", std::move(Levels)}});
              return llvm::Error::success();
            }
            for (const PassInfo &P : allPasses())
              commandOut() << llvm::left_justify(P.Name, 24) << P.Description
                           << '\n';
            commandOut() << "\npipelines (--target onnx runs them without "
                            "materialize-constants):\n";
            for (int L = 0; L <= 2; ++L) {
              std::vector<std::string> Names = pipelineForRuntimeTarget(L);
              commandOut() << "  -O" << L << (L == 2 ? " (default)" : "")
                           << ":";
              if (Names.empty())
                commandOut() << " (verification only)";
              for (size_t I = 0; I < Names.size(); ++I)
                commandOut() << (I ? ", " : " ") << Names[I];
              commandOut() << '\n';
            }
            commandOut()
                << "variants in unroll-recurrence's place: "
                   "unroll-recurrence-keep-lstm-gru for the cpu target's "
                   "float files, unroll-recurrence-keep-lstm for nnapi at "
                   "--nnapi-feature-level 29 and above\n";
            return llvm::Error::success();
          }};
}

} // namespace kiln

// kiln-loader-replay: runs files (or every file in folders) through the same
// code as the libFuzzer target, without libFuzzer: for compilers that cannot
// build it, and to replay a crash file or a corpus in the normal test suite.
//   kiln-loader-replay FILE_OR_DIR...
#include "LoaderFuzzTarget.h"
#include "ReplayFiles.h"

#include <iostream>
#include <string>
#include <vector>

int main(int Argc, char **Argv) {
  std::vector<std::string> Files;
  for (int I = 1; I < Argc; ++I)
    kiln::fuzz::collectFiles(Argv[I], Files);
  if (Files.empty()) {
    std::cerr << "usage: kiln-loader-replay FILE_OR_DIR...\n";
    return 2;
  }
  unsigned Counts[4] = {};
  for (const std::string &F : Files)
    ++Counts[static_cast<int>(kiln::fuzz::runOne(kiln::fuzz::readFileBytes(F)))];
  std::cout << Files.size() << " files: " << Counts[0]
            << " rejected when loaded, " << Counts[1]
            << " rejected when the session was created, " << Counts[2]
            << " failed cleanly while running, " << Counts[3]
            << " ran; 0 crashes\n";
  return 0;
}

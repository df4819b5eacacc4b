// kiln-loader-replay: runs files (or every file in folders) through the same
// code as the libFuzzer target, without libFuzzer: for compilers that cannot
// build it, and to replay a crash file or a corpus in the normal test suite.
//   kiln-loader-replay FILE_OR_DIR...
#include "LoaderFuzzTarget.h"

#include <dirent.h>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <sys/stat.h>
#include <vector>

namespace {

void collect(const std::string &Path, std::vector<std::string> &Files) {
  struct stat St;
  if (stat(Path.c_str(), &St) != 0)
    return;
  if (!S_ISDIR(St.st_mode)) {
    Files.push_back(Path);
    return;
  }
  if (DIR *D = opendir(Path.c_str())) {
    while (dirent *E = readdir(D))
      if (E->d_name[0] != '.')
        collect(Path + "/" + E->d_name, Files);
    closedir(D);
  }
}

} // namespace

int main(int Argc, char **Argv) {
  std::vector<std::string> Files;
  for (int I = 1; I < Argc; ++I)
    collect(Argv[I], Files);
  if (Files.empty()) {
    std::cerr << "usage: kiln-loader-replay FILE_OR_DIR...\n";
    return 2;
  }
  unsigned Counts[4] = {};
  for (const std::string &F : Files) {
    std::ifstream In(F, std::ios::binary);
    std::string Bytes((std::istreambuf_iterator<char>(In)),
                      std::istreambuf_iterator<char>());
    ++Counts[static_cast<int>(kiln::fuzz::runOne(Bytes))];
  }
  std::cout << Files.size() << " files: " << Counts[0]
            << " rejected when loaded, " << Counts[1]
            << " rejected when the session was created, " << Counts[2]
            << " failed cleanly while running, " << Counts[3]
            << " ran; 0 crashes\n";
  return 0;
}

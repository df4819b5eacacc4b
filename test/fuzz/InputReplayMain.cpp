// kiln-input-replay: runs files (or every file in folders) through one of
// the compiler's input parsers, the same code as that parser's libFuzzer
// target: to replay a crash or a corpus in the normal test suite and under
// ASan without libFuzzer.
//   kiln-input-replay KIND FILE_OR_DIR...   (KIND: onnx, npy, image,
//                                             torchscript-zip)
// Prints "N files: A accepted, R refused with an error; 0 crashes".
#include "InputFuzzTargets.h"

#include <dirent.h>
#include <fstream>
#include <iostream>
#include <iterator>
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
  auto Kind = Argc > 1 ? kiln::fuzz::inputKindNamed(Argv[1]) : std::nullopt;
  std::vector<std::string> Files;
  for (int I = 2; I < Argc; ++I)
    collect(Argv[I], Files);
  if (!Kind || Files.empty()) {
    std::cerr << "usage: kiln-input-replay onnx|npy|image|torchscript-zip "
                 "FILE_OR_DIR...\n";
    return 2;
  }
  unsigned Accepted = 0;
  for (const std::string &F : Files) {
    std::ifstream In(F, std::ios::binary);
    std::string Bytes((std::istreambuf_iterator<char>(In)),
                      std::istreambuf_iterator<char>());
    Accepted += kiln::fuzz::runInput(
        *Kind, reinterpret_cast<const uint8_t *>(Bytes.data()), Bytes.size());
  }
  std::cout << Files.size() << " files: " << Accepted << " accepted, "
            << Files.size() - Accepted << " refused with an error; 0 crashes\n";
  return 0;
}

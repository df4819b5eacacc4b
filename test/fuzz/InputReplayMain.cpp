// kiln-input-replay: runs files (or every file in folders) through one of
// the compiler's input parsers, the same code as that parser's libFuzzer
// target: to replay a crash or a corpus in the normal test suite and under
// ASan without libFuzzer.
//   kiln-input-replay KIND FILE_OR_DIR...   (KIND: onnx, npy, image,
//                                             torchscript-zip, manifest,
//                                             pass-record, kcal)
// Prints "N files: A accepted, R refused with an error; 0 crashes".
// Built twice: kiln-input-replay runs every kind; kiln-data-input-replay
// (KILN_REPLAY_DATA_ONLY) the data formats alone, without the ONNX frontend
// and the passes, for the sanitizer stage of CI.
#include "InputFuzzTargets.h"
#include "ReplayFiles.h"

#include <iostream>
#include <string>
#include <vector>

namespace {

#ifdef KILN_REPLAY_DATA_ONLY
const char *const Usage = "usage: kiln-data-input-replay npy|image|"
                          "torchscript-zip FILE_OR_DIR...\n";
bool kindBuiltIn(kiln::fuzz::InputKind Kind) {
  return kiln::fuzz::isDataKind(Kind);
}
bool run(kiln::fuzz::InputKind Kind, const std::string &Bytes) {
  return kiln::fuzz::runDataInput(
      Kind, reinterpret_cast<const uint8_t *>(Bytes.data()), Bytes.size());
}
#else
const char *const Usage = "usage: kiln-input-replay onnx|npy|image|"
                          "torchscript-zip|manifest|pass-record|kcal FILE_OR_DIR...\n";
bool kindBuiltIn(kiln::fuzz::InputKind) { return true; }
bool run(kiln::fuzz::InputKind Kind, const std::string &Bytes) {
  return kiln::fuzz::runInput(
      Kind, reinterpret_cast<const uint8_t *>(Bytes.data()), Bytes.size());
}
#endif

} // namespace

int main(int Argc, char **Argv) {
  auto Kind = Argc > 1 ? kiln::fuzz::inputKindNamed(Argv[1]) : std::nullopt;
  std::vector<std::string> Files;
  for (int I = 2; I < Argc; ++I)
    kiln::fuzz::collectFiles(Argv[I], Files);
  if (!Kind || !kindBuiltIn(*Kind) || Files.empty()) {
    std::cerr << Usage;
    return 2;
  }
  unsigned Accepted = 0;
  for (const std::string &F : Files)
    Accepted += run(*Kind, kiln::fuzz::readFileBytes(F));
  std::cout << Files.size() << " files: " << Accepted << " accepted, "
            << Files.size() - Accepted << " refused with an error; 0 crashes\n";
  return 0;
}

// libFuzzer entry point for one of the compiler's input parsers, chosen at
// build time (KILN_FUZZ_INPUT: onnx, npy, image, torchscript-zip); built only
// with clang (the `fuzz` preset). For example:
//   build/fuzz/test/fuzz/kiln-onnx-fuzzer -max_total_time=600 CORPUS_DIR SEEDS...
#include "InputFuzzTargets.h"

#include <cstdlib>

namespace {

kiln::fuzz::InputKind kind() {
  static const auto Kind = kiln::fuzz::inputKindNamed(KILN_FUZZ_INPUT);
  if (!Kind)
    std::abort();
  return *Kind;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  (void)kiln::fuzz::runInput(kind(), Data, Size);
  return 0;
}

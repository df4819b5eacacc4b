// libFuzzer entry point for one of the compiler's input parsers, chosen at
// build time (KILN_FUZZ_INPUT: onnx, npy, image, torchscript-zip); built only
// with clang (the `fuzz` preset). The data formats link only
// kiln_data_fuzz_target (KILN_FUZZ_DATA_ONLY). For example:
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
#ifdef KILN_FUZZ_DATA_ONLY
  (void)kiln::fuzz::runDataInput(kind(), Data, Size);
#else
  (void)kiln::fuzz::runInput(kind(), Data, Size);
#endif
  return 0;
}

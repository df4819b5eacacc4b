// libFuzzer entry point for the .kiln loader and executor (built only with a
// compiler that supports -fsanitize=fuzzer, e.g. clang-14):
//   ./kiln-loader-fuzzer -max_total_time=600 CORPUS_DIR
#include "LoaderFuzzTarget.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  (void)kiln::fuzz::runOne(Data, Size);
  return 0;
}

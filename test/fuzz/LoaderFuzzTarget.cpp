#include "LoaderFuzzTarget.h"

#include "kiln/kiln.h"

#include <vector>

namespace kiln::fuzz {

Outcome runOne(const uint8_t *Data, size_t Size) {
  kiln_model *M = nullptr;
  if (kiln_model_load_buffer(Data, Size, &M) != KILN_OK)
    return Outcome::RejectedAtLoad;
  kiln_session_options O;
  kiln_session_options_init(&O);
  O.num_threads = 1;
  O.max_arena_bytes = MaxArenaBytes;
  kiln_session *S = nullptr;
  if (kiln_session_create(M, &O, &S) != KILN_OK) {
    kiln_model_destroy(M);
    return Outcome::RejectedAtSession;
  }
  Outcome Result = Outcome::Ran;
  for (size_t I = 0; I < kiln_model_num_inputs(M); ++I) {
    kiln_tensor_info Info;
    if (kiln_model_input_info(M, I, &Info) != KILN_OK) {
      Result = Outcome::FailedRun;
      break;
    }
    // The input lives in the arena, so it is below the arena limit.
    std::vector<uint8_t> Zeros(Info.byte_size, 0);
    if (kiln_session_set_input(S, I, Zeros.data(), Zeros.size()) != KILN_OK)
      Result = Outcome::FailedRun;
  }
  if (Result == Outcome::Ran && kiln_session_run(S) != KILN_OK)
    Result = Outcome::FailedRun;
  for (size_t I = 0; Result == Outcome::Ran && I < kiln_model_num_outputs(M);
       ++I) {
    const void *Out = nullptr;
    size_t Bytes = 0;
    if (kiln_session_get_output(S, I, &Out, &Bytes) != KILN_OK)
      Result = Outcome::FailedRun;
    volatile uint8_t Sink = 0;
    for (size_t B = 0; B < Bytes; B += 4096) // touch every page
      Sink = Sink ^ static_cast<const uint8_t *>(Out)[B];
  }
  // A file's self-test (kiln convert --self-test) runs on the session too:
  // the loader's checks must make it safe, whatever its verdict.
  if (Result == Outcome::Ran && kiln_model_has_self_test(M)) {
    kiln_self_test_result T;
    T.struct_size = sizeof T;
    if (kiln_session_self_test(S, &T) != KILN_OK)
      Result = Outcome::FailedRun;
  }
  kiln_session_destroy(S);
  kiln_model_destroy(M);
  return Result;
}

} // namespace kiln::fuzz

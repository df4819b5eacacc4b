// kiln-weight-release MODEL.kiln INPUT.npy REF.npy WEIGHT_BYTES
//                     [MAX_GROWTH [FIXED_MB]]: a session keeps one copy of
// a model's weights resident. The process's resident memory grows by at
// most MAX_GROWTH (default 1.15) times the weights, plus FIXED_MB (default
// 0: a device driver's own start-up memory), from before the model is
// loaded to after its session is created, the session says it released
// the file's pages of at least 99% of the weights, and the output still
// matches numpy's float64 reference within 1e-4 of its largest magnitude.
//
// A CPU file runs on the XNNPACK path: XNNPACK packs every layer, and the
// session drops the file's pages of each (SegmentRelease). A Vulkan file's
// weights are copied to the device's buffers, then their pages dropped
// (VulkanExecutor::uploadWeights); lavapipe's device memory is the host's,
// as a phone GPU's is, so its copy counts here. With no Vulkan device the
// test fails where the environment has CI set, and exits 77 (skipped)
// otherwise.
//
// The same model loaded from a buffer (kiln_model_load_buffer: the session
// must not drop a copy it cannot read again) releases nothing and gives
// the same output.
#include "Support/Npy.h"

#include "kiln/kiln.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

/// Resident bytes of this process (/proc/self/statm).
double residentBytes() {
  long Pages = 0, Resident = 0;
  if (FILE *F = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(F, "%ld %ld", &Pages, &Resident) != 2)
      Resident = 0;
    std::fclose(F);
  }
  return double(Resident) * double(sysconf(_SC_PAGESIZE));
}

[[noreturn]] void fail(const std::string &Why) {
  std::fprintf(stderr, "kiln-weight-release: %s\n", Why.c_str());
  std::exit(1);
}

void check(kiln_status S, const char *What) {
  if (S != KILN_OK)
    fail(std::string(What) + ": " + kiln_last_error());
}

/// Runs Model on X; returns the largest |y - Ref| over the largest |Ref|,
/// and fills the session's engine info.
double runOnce(kiln_model *Model, const kiln::NpyArray &X,
               const kiln::NpyArray &Ref, kiln_engine_info &Info,
               double *ResidentAfterSession) {
  kiln_session_options O;
  kiln_session_options_init(&O);
  O.num_threads = 2;
  kiln_cpu_options Cpu;
  kiln_cpu_options_init(&Cpu);
  Cpu.disable_onednn = 1; // the XNNPACK path, as on a phone
  O.cpu = &Cpu;
  kiln_session *S = nullptr;
  kiln_status Created = kiln_session_create(Model, &O, &S);
  std::string Error = Created == KILN_OK ? "" : kiln_last_error();
  bool NoDevice = Error.find("no Vulkan driver") != std::string::npos ||
                  Error.find("no device with a compute queue") !=
                      std::string::npos;
  if (NoDevice && !std::getenv("CI")) {
    std::fprintf(stderr, "kiln-weight-release: %s; skipped\n",
                 Error.c_str());
    std::exit(77);
  }
  check(Created, "kiln_session_create");
  if (ResidentAfterSession)
    *ResidentAfterSession = residentBytes();
  Info.struct_size = sizeof Info;
  check(kiln_session_engine_info(S, &Info), "kiln_session_engine_info");
  check(kiln_session_set_input(S, 0, X.Data, X.Size), "set_input");
  check(kiln_session_run(S), "run");
  const void *Out = nullptr;
  size_t Bytes = 0;
  check(kiln_session_get_output(S, 0, &Out, &Bytes), "get_output");
  const float *Y = static_cast<const float *>(Out);
  const double *R = reinterpret_cast<const double *>(Ref.Data);
  size_t N = Ref.Size / sizeof(double);
  if (Bytes != N * sizeof(float))
    fail("the output has " + std::to_string(Bytes) + " bytes");
  double Err = 0, Peak = 0;
  for (size_t I = 0; I < N; ++I) {
    Err = std::max(Err, std::fabs(double(Y[I]) - R[I]));
    Peak = std::max(Peak, std::fabs(R[I]));
  }
  kiln_session_destroy(S);
  return Err / Peak;
}

} // namespace

int main(int Argc, char **Argv) {
  if (Argc < 5 || Argc > 7)
    fail("usage: kiln-weight-release MODEL.kiln INPUT.npy REF.npy "
         "WEIGHT_BYTES [MAX_GROWTH [FIXED_MB]]");
  auto X = kiln::readNpyFile(Argv[2]);
  auto Ref = kiln::readNpyFile(Argv[3]);
  if (!X || !Ref)
    fail("cannot read the input or the reference");
  double Weights = std::atof(Argv[4]);
  double MaxGrowth = Argc > 5 ? std::atof(Argv[5]) : 1.15;
  double FixedBytes = Argc > 6 ? std::atof(Argv[6]) * 1e6 : 0;

  double Before = residentBytes(), AfterSession = 0;
  kiln_model *Mapped = nullptr;
  check(kiln_model_load(Argv[1], &Mapped), "kiln_model_load");
  kiln_engine_info Info;
  double Rel = runOnce(Mapped, *X, *Ref, Info, &AfterSession);
  double Growth = (AfterSession - Before - FixedBytes) / Weights;
  std::printf("%s, mapped file: resident memory grew by %.3fx the weights "
              "(%.1f MB, less %.0f MB allowed the driver, for %.1f MB; at "
              "most %.2fx) by the session's creation; %.1f MB of the file's "
              "pages released, %.1f MB read in place; output within %.1e of "
              "float64\n",
              kiln_model_target(Mapped), Growth,
              (AfterSession - Before) / 1e6, FixedBytes / 1e6, Weights / 1e6,
              MaxGrowth,
              double(Info.weights_released_bytes) / 1e6,
              double(Info.weights_mapped_bytes) / 1e6, Rel);
  kiln_model_destroy(Mapped);
  bool Ok = Growth <= MaxGrowth && Rel <= 1e-4 &&
            double(Info.weights_released_bytes) >= 0.99 * Weights;

  auto Bytes = llvm::MemoryBuffer::getFile(Argv[1]);
  if (!Bytes)
    fail("cannot read the model");
  kiln_model *Copied = nullptr;
  check(kiln_model_load_buffer((*Bytes)->getBufferStart(),
                               (*Bytes)->getBufferSize(), &Copied),
        "kiln_model_load_buffer");
  Bytes->reset();
  double RelCopied = runOnce(Copied, *X, *Ref, Info, nullptr);
  kiln_model_destroy(Copied);
  std::printf("buffer: %.1f MB released (a copy is never dropped); output "
              "within %.1e of float64\n",
              double(Info.weights_released_bytes) / 1e6, RelCopied);
  Ok = Ok && Info.weights_released_bytes == 0 && RelCopied <= 1e-4;
  std::printf("%s\n", Ok ? "weights resident once: ok" : "FAILED");
  return Ok ? 0 : 1;
}

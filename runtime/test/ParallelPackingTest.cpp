// A session at two or more threads has XNNPACK pack its f32 layers on the
// session's threads, several at once (CpuExecutor::createPackingKernels),
// and drops the mapped file's pages of each packed weight as its kernel is
// made (SegmentRelease). This is the path a large model's session takes on
// a phone; it runs here, and again under ThreadSanitizer (scripts/test.sh),
// with more layers than threads so that workers take turns. The outputs are
// the chain of dense layers computed here in double.
#include "RuntimeTestModels.h"

#include "kiln/kiln.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

using namespace kiln;
using namespace kiln::testmodels;

namespace {

constexpr int64_t Rows = 3, Width = 64, Layers = 6;

float weightAt(int64_t Layer, int64_t Index) {
  return float(int((Index * 7 + Layer * 13) % 23) - 11) / 64.0f;
}
float biasAt(int64_t Layer, int64_t O) {
  return float(int((O * 5 + Layer) % 9) - 4) / 16.0f;
}
float inputAt(int64_t Index) { return float(int(Index % 17) - 8) / 8.0f; }

/// Layers dense layers of Width x Width with ReLU, chained: x f32[Rows,
/// Width] -> y f32[Rows, Width].
KilnModule denseChain() {
  KilnModule M;
  int32_t X = addTensor(M, "x", fb::DType::F32, {Rows, Width});
  M.Model.inputs = {X};
  for (int64_t L = 0; L < Layers; ++L) {
    std::vector<float> W(static_cast<size_t>(Width * Width)),
        B(static_cast<size_t>(Width));
    for (int64_t I = 0; I < Width * Width; ++I)
      W[size_t(I)] = weightAt(L, I);
    for (int64_t O = 0; O < Width; ++O)
      B[size_t(O)] = biasAt(L, O);
    std::string N = std::to_string(L);
    int32_t Wt = addFloats(M, "w" + N, {Width, Width}, W, fb::Layout::OI);
    int32_t Bt = addFloats(M, "b" + N, {Width}, B);
    int32_t Y = addTensor(M, "y" + N, fb::DType::F32, {Rows, Width});
    fb::FullyConnectedOptionsT O;
    O.output_min = 0;
    addOp(M, fb::OpKind::FULLY_CONNECTED, {X, Wt, Bt}, {Y}, O);
    X = Y;
  }
  M.Model.outputs = {X};
  return M;
}

std::vector<double> referenceOutput() {
  std::vector<double> X(size_t(Rows * Width));
  for (int64_t I = 0; I < Rows * Width; ++I)
    X[size_t(I)] = inputAt(I);
  for (int64_t L = 0; L < Layers; ++L) {
    std::vector<double> Y(X.size());
    for (int64_t R = 0; R < Rows; ++R)
      for (int64_t O = 0; O < Width; ++O) {
        double Sum = biasAt(L, O);
        for (int64_t I = 0; I < Width; ++I)
          Sum += X[size_t(R * Width + I)] * weightAt(L, O * Width + I);
        Y[size_t(R * Width + O)] = std::max(Sum, 0.0);
      }
    X = std::move(Y);
  }
  return X;
}

struct ParallelRun {
  std::vector<float> Output;
  std::vector<std::string> Engines;
  uint64_t ReleasedBytes = 0;
};

ParallelRun runAt(kiln_model *Model, uint32_t Threads) {
  kiln_session_options O;
  kiln_session_options_init(&O);
  O.num_threads = Threads;
  O.disable_onednn = 1; // XNNPACK packs every layer, as on a phone
  kiln_session *S = nullptr;
  REQUIRE(kiln_session_create(Model, &O, &S) == KILN_OK);
  ParallelRun Out;
  for (size_t I = 0; I < kiln_session_num_operators(S); ++I)
    Out.Engines.push_back(kiln_session_operator_engine(S, I));
  kiln_engine_info Info;
  Info.struct_size = sizeof Info;
  REQUIRE(kiln_session_engine_info(S, &Info) == KILN_OK);
  Out.ReleasedBytes = Info.weights_released_bytes;
  std::vector<float> X(size_t(Rows * Width));
  for (int64_t I = 0; I < Rows * Width; ++I)
    X[size_t(I)] = inputAt(I);
  REQUIRE(kiln_session_set_input(S, 0, X.data(), X.size() * 4) == KILN_OK);
  REQUIRE(kiln_session_run(S) == KILN_OK);
  const void *Data = nullptr;
  size_t Bytes = 0;
  REQUIRE(kiln_session_get_output(S, 0, &Data, &Bytes) == KILN_OK);
  REQUIRE(Bytes == X.size() * 4);
  const float *Y = static_cast<const float *>(Data);
  Out.Output.assign(Y, Y + X.size());
  kiln_session_destroy(S);
  return Out;
}

double relativeError(const std::vector<float> &Y,
                     const std::vector<double> &Ref) {
  double Err = 0, Peak = 0;
  for (size_t I = 0; I < Ref.size(); ++I) {
    Err = std::max(Err, std::fabs(double(Y[I]) - Ref[I]));
    Peak = std::max(Peak, std::fabs(Ref[I]));
  }
  return Peak > 0 ? Err / Peak : INFINITY;
}

} // namespace

TEST_CASE("XNNPACK packs a model's layers on the session's threads, and the "
          "chain still computes the dense layers",
          "[session][threads]") {
  std::string Bytes = bytesOf(denseChain());
  std::vector<double> Ref = referenceOutput();
  kiln_model *Model = nullptr;
  REQUIRE(kiln_model_load_buffer(Bytes.data(), Bytes.size(), &Model) ==
          KILN_OK);
  for (uint32_t Threads : {2u, 4u}) {
    INFO(Threads << " threads");
    ParallelRun R = runAt(Model, Threads);
    CHECK(R.Engines == std::vector<std::string>(size_t(Layers), "xnnpack"));
    CHECK(relativeError(R.Output, Ref) < 1e-5);
    CHECK(R.ReleasedBytes == 0); // a buffer's copy is never dropped
  }
  kiln_model_destroy(Model);
}

TEST_CASE("Packing on several threads drops the mapped file's pages of "
          "every packed layer",
          "[session][threads]") {
  // A layer's 64 x 64 f32 weights (16 KiB) hold at least 16 KiB / page - 1
  // whole pages, wherever the segment starts: 3 of 4 KiB.
  std::string Bytes = bytesOf(denseChain());
  llvm::SmallString<128> Path;
  REQUIRE(!llvm::sys::fs::createTemporaryFile("kiln-parallel-packing", "kiln",
                                              Path));
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC);
    REQUIRE(!EC);
    OS << Bytes;
  }
  kiln_model *Model = nullptr;
  REQUIRE(kiln_model_load(Path.c_str(), &Model) == KILN_OK);
  ParallelRun R = runAt(Model, 2);
  CHECK(R.Engines == std::vector<std::string>(size_t(Layers), "xnnpack"));
  CHECK(relativeError(R.Output, referenceOutput()) < 1e-5);
  const uint64_t Page = uint64_t(sysconf(_SC_PAGESIZE)),
                 LayerBytes = uint64_t(Width * Width) * 4;
  uint64_t WholePages = LayerBytes / Page ? LayerBytes / Page - 1 : 0;
  CHECK(R.ReleasedBytes >= uint64_t(Layers) * WholePages * Page);
  CHECK(R.ReleasedBytes <= uint64_t(Layers) * LayerBytes);
  if (!WholePages)
    WARN("pages of " << Page << " bytes: no layer spans a whole page");
  kiln_model_destroy(Model);
  llvm::sys::fs::remove(Path);
}

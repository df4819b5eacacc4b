// Calibration data: which samples a folder, list, .npy or .npz gives, in
// which order, how --calib-limit and --shard cut them, what a sample holds,
// and the errors for data that does not fit the model. Then the calibrator:
// statistics do not depend on the thread count, and shards merged equal one
// run over everything, for every method; and samples streamed from a
// source on several threads give the statistics of the file.
#include "passes/quant/Calibrator.h"
#include "passes/quant/CalibrationMethod.h"

#include "IR/Parser.h"
#include "Support/Npy.h"

#include "LlvmErrorChecks.h"

#include "llvm/Support/FileSystem.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>

using namespace kiln;

namespace {
struct TempDir {
  llvm::SmallString<128> Path;
  TempDir() { REQUIRE(!llvm::sys::fs::createUniqueDirectory("kiln-calib", Path)); }
  ~TempDir() { llvm::sys::fs::remove_directories(Path); }
  std::string operator/(const std::string &Name) const {
    return (Path + "/" + Name).str();
  }
};

/// Values I*100 + J for sample I, element J.
std::string samplesBytes(int64_t Count, int64_t Each, int64_t First = 0) {
  std::vector<float> V;
  for (int64_t I = First; I < First + Count; ++I)
    for (int64_t J = 0; J < Each; ++J)
      V.push_back(float(I * 100 + J));
  return std::string(reinterpret_cast<const char *>(V.data()), V.size() * 4);
}

std::unique_ptr<Graph> graph(const std::string &Kir) {
  return requireValue(parseGraph(Kir, "t.kir"));
}

const char *TwoByThree = R"(graph @g(%x: f32[N,2,3]) -> (%y: f32[N,2,3]) {
  %y = relu(%x) : f32[N,2,3]
  return %y
})";

std::string errorOf(const Graph &G, const CalibrationDataOptions &O) {
  auto D = CalibrationDataset::open(G, O);
  if (D)
    FAIL("the dataset opened");
  return llvm::toString(D.takeError());
}
} // namespace

TEST_CASE("npy files, lists, limits and shards", "[quant][data]") {
  TempDir T;
  REQUIRE_NO_ERROR(writeNpyFile(T / "a.npy", NpyDType::F32, {5, 1, 2, 3},
                                samplesBytes(5, 6)));
  REQUIRE_NO_ERROR(writeNpyFile(T / "b.npy", NpyDType::F32, {2, 2, 3},
                                samplesBytes(2, 6, 5)));
  std::ofstream(T / "list.txt") << "# two files\nb.npy\n\na.npy\n";
  auto G = graph(TwoByThree);
  CalibrationDataOptions O;
  O.Path = T.Path.str().str(); // the folder: a.npy then b.npy
  auto D = requireValue(CalibrationDataset::open(*G, O));
  REQUIRE(D->size() == 7);
  std::vector<Tensor> S = requireValue(D->load(6));
  REQUIRE(S.size() == 1);
  CHECK(toString(S[0].type()) == "f32[1,2,3]"); // b.npy split along the batch
  CHECK(S[0].at<float>(0) == 600.0f);
  CHECK(D->describe(6) == T / "b.npy" + "[1]");
  O.Path = T / "list.txt"; // b.npy first
  O.Limit = 4;
  O.ShardIndex = 1;
  O.ShardCount = 2;
  D = requireValue(CalibrationDataset::open(*G, O));
  CHECK(D->totalSamples() == 4);
  REQUIRE(D->size() == 2); // global samples 1 and 3
  CHECK(requireValue(D->load(0))[0].at<float>(5) == 605.0f);
  CHECK(requireValue(D->load(1))[0].at<float>(0) == 100.0f);
  CHECK(D->describe(1) == T / "a.npy" + "[1]");
}

TEST_CASE("npz members map to inputs by name", "[quant][data]") {
  TempDir T;
  auto G = graph(R"(graph @two(%a: f32[1,2], %b: f32[1,3]) -> (%y: f32[1,2]) {
  %y = relu(%a) : f32[1,2]
  return %y
})");
  REQUIRE_NO_ERROR(writeNpzFile(
      T / "d.npz", {{"b", serializeNpy(NpyDType::F32, {4, 3}, samplesBytes(4, 3))},
                    {"a", serializeNpy(NpyDType::F32, {4, 1, 2}, samplesBytes(4, 2))}}));
  CalibrationDataOptions O;
  O.Path = T / "d.npz";
  auto D = requireValue(CalibrationDataset::open(*G, O));
  REQUIRE(D->size() == 4);
  std::vector<Tensor> S = requireValue(D->load(2));
  CHECK(toString(S[0].type()) == "f32[1,2]");
  CHECK(S[0].at<float>(1) == 201.0f);
  CHECK(toString(S[1].type()) == "f32[1,3]");
  CHECK(S[1].at<float>(2) == 202.0f);

  REQUIRE_NO_ERROR(writeNpzFile(
      T / "short.npz", {{"a", serializeNpy(NpyDType::F32, {4, 1, 2}, samplesBytes(4, 2))},
                        {"b", serializeNpy(NpyDType::F32, {3, 3}, samplesBytes(3, 3))}}));
  O.Path = T / "short.npz";
  CHECK(errorOf(*G, O) == T / "short.npz" + ": 'b' has 3 samples, other members 4");
  REQUIRE_NO_ERROR(writeNpzFile(
      T / "c.npz", {{"a", serializeNpy(NpyDType::F32, {4, 1, 2}, samplesBytes(4, 2))},
                    {"c", serializeNpy(NpyDType::F32, {4, 3}, samplesBytes(4, 3))}}));
  O.Path = T / "c.npz";
  CHECK(errorOf(*G, O) == T / "c.npz" +
                              ": member 'c' is not a model input (inputs: a "
                              "f32[1,2], b f32[1,3])");
  REQUIRE_NO_ERROR(writeNpyFile(T / "a.npy", NpyDType::F32, {4, 1, 2},
                                samplesBytes(4, 2)));
  O.Path = T / "a.npy";
  CHECK(errorOf(*G, O) == T / "a.npy" +
                              ": the model has 2 inputs (a f32[1,2], b "
                              "f32[1,3]); give an .npz with one member per "
                              "input");
}

TEST_CASE("data that does not fit", "[quant][data]") {
  TempDir T;
  auto G = graph(TwoByThree);
  CalibrationDataOptions O;
  O.Path = T / "missing";
  CHECK(errorOf(*G, O).rfind(T / "missing" + ": cannot open the calibration data: ", 0) == 0);
  O.Path = T.Path.str().str();
  CHECK(errorOf(*G, O) == O.Path + ": no calibration data found (expected .jpg, "
                                   ".jpeg, .png, .npy or .npz files)");
  std::ofstream(T / "list.txt") << "x.npy\n";
  O.Path = T / "list.txt";
  CHECK(errorOf(*G, O) == T / "list.txt" + ":1: '" + T / "x.npy" +
                              "' does not exist or is not a file");
  std::ofstream(T / "list2.txt") << "\nnotes.doc\n";
  O.Path = T / "list2.txt";
  CHECK(errorOf(*G, O) == T / "list2.txt" +
                              ":2: 'notes.doc' is not a .jpg, .jpeg, .png, "
                              ".npy or .npz file");
  REQUIRE_NO_ERROR(writeNpyFile(T / "rank.npy", NpyDType::F32, {6},
                                samplesBytes(1, 6)));
  O.Path = T / "rank.npy";
  CHECK(errorOf(*G, O) == T / "rank.npy" +
                              ": 'x' has shape [6], which does not match the "
                              "model input f32[N,2,3]: give [count, ...input "
                              "dims] or the input's shape with samples along "
                              "the batch axis");
  REQUIRE_NO_ERROR(writeNpyFile(T / "i.npy", NpyDType::I32, {1, 2, 3},
                                samplesBytes(1, 6)));
  O.Path = T / "i.npy";
  CHECK(errorOf(*G, O) == T / "i.npy" +
                              ": 'x' is <i4 but the model input is f32 "
                              "(convert it, e.g. arr.astype(np.float32))");
  REQUIRE_NO_ERROR(writeNpyFile(T / "ok.npy", NpyDType::F32, {1, 2, 3},
                                samplesBytes(1, 6)));
  O.Path = T / "ok.npy";
  O.ShardIndex = 3;
  O.ShardCount = 3;
  CHECK(errorOf(*G, O) == "--shard 3/3: the index must be below the count");
  std::ofstream(T / "pic.png") << "\x89PNG\r\n\x1a\n";
  O.Path = T / "pic.png";
  O.ShardIndex = 0;
  O.ShardCount = 1;
  CHECK(errorOf(*G, O) ==
        "calibration images need a model with one 4-D f32 image input, this "
        "one has: x f32[N,2,3]; give .npy/.npz data");
}

namespace {
const char *Net = R"(graph @net(%x: f32[1,4]) -> (%y: f32[1,3]) {
  %w = const f32[3,4] dense[0.5, -1.0, 0.25, 2.0, 1.5, 0.0, -0.5, 1.0, -2.0, 0.5, 1.0, -1.0]
  %h = linear(%x, %w) {activation="relu"} : f32[1,3]
  %y = mul(%h, %h) : f32[1,3]
  return %y
})";

CalibrationStats calibrate(const Graph &G, const std::string &Path,
                           uint32_t Shard, uint32_t Count, unsigned Threads) {
  CalibrationDataOptions DO;
  DO.Path = Path;
  DO.ShardIndex = Shard;
  DO.ShardCount = Count;
  auto D = requireValue(CalibrationDataset::open(G, DO));
  CalibrationRunOptions RO;
  RO.Threads = Threads;
  RO.Bins = 256;
  return requireValue(calibrateGraph(G, *D, DO, RO));
}
} // namespace

TEST_CASE("calibration: thread-count independent, shards merge exactly",
          "[quant][calibrate]") {
  TempDir T;
  std::mt19937 Rng(5);
  std::normal_distribution<float> N(0.0f, 3.0f);
  std::vector<float> V(97 * 4);
  for (float &F : V)
    F = N(Rng);
  REQUIRE_NO_ERROR(writeNpyFile(T / "d.npy", NpyDType::F32, {97, 1, 4},
                                std::string(reinterpret_cast<char *>(V.data()),
                                            V.size() * 4)));
  auto G = graph(Net);
  CalibrationStats One = calibrate(*G, T / "d.npy", 0, 1, 1);
  CHECK(serializeStats(calibrate(*G, T / "d.npy", 0, 1, 4)) == serializeStats(One));
  // Observed: x, h and y (not the constant), with exact min/max of x.
  REQUIRE(One.Values.size() == 3);
  CHECK(One.Values[0].Name == "x");
  CHECK(One.Values[0].Observer.min() == *std::min_element(V.begin(), V.end()));
  CHECK(One.Values[0].Observer.max() == *std::max_element(V.begin(), V.end()));
  CHECK(One.Values[1].Observer.min() == 0.0f); // relu
  CHECK(One.Values[0].Observer.count() == 97 * 4);
  CHECK(One.Samples == 97);

  CalibrationStats Merged = calibrate(*G, T / "d.npy", 2, 4, 2);
  for (uint32_t S : {0u, 3u, 1u})
    REQUIRE_NO_ERROR(mergeStats(Merged, calibrate(*G, T / "d.npy", S, 4, 3), "shard"));
  CHECK(Merged.complete());
  CHECK(Merged.Samples == 97);
  for (size_t I = 0; I < One.Values.size(); ++I) {
    CHECK(Merged.Values[I].Observer == One.Values[I].Observer);
    for (CalibrationMethod M :
         {CalibrationMethod::MinMax, CalibrationMethod::Percentile,
          CalibrationMethod::Entropy, CalibrationMethod::Mse}) {
      CalibrationMethodOptions MO;
      MO.Method = M;
      MO.Percentile = 99.0;
      ActivationRange A = chooseRange(One.Values[I].Observer, MO);
      ActivationRange B = chooseRange(Merged.Values[I].Observer, MO);
      CHECK(std::memcmp(&A, &B, sizeof(A)) == 0);
    }
  }
}

TEST_CASE("calibration from a source of samples read on one thread and run "
          "on several: the statistics of the file",
          "[quant][calibrate][threads]") {
  // runOverSource (SampleRunner.h): the reader fills a bounded queue that
  // the workers drain; this runs under ThreadSanitizer too.
  std::mt19937 Rng(11);
  std::normal_distribution<float> N(0.0f, 2.0f);
  std::vector<float> V(61 * 4);
  for (float &F : V)
    F = N(Rng);
  TempDir T;
  REQUIRE_NO_ERROR(writeNpyFile(T / "d.npy", NpyDType::F32, {61, 1, 4},
                                std::string(reinterpret_cast<char *>(V.data()),
                                            V.size() * 4)));
  auto G = graph(Net);
  CalibrationStats FromFile = calibrate(*G, T / "d.npy", 0, 1, 1);
  // V's samples one by one; at FailAt, an error instead.
  auto SourceOfV = [&V](size_t FailAt) -> CalibrationSampleSource {
    return [&V, FailAt, Read = size_t(0)](
               std::vector<Tensor> &Sample) mutable -> llvm::Expected<bool> {
      if (Read == FailAt)
        return llvm::createStringError(std::errc::invalid_argument,
                                       "batch %zu is not an array", Read);
      if (Read == V.size() / 4)
        return false;
      Sample.push_back(Tensor::fromValues<float>(
          ElementType::F32, {Dim(1), Dim(4)},
          llvm::ArrayRef<float>(V.data() + 4 * Read, 4)));
      ++Read;
      return true;
    };
  };
  for (unsigned Threads : {1u, 3u}) {
    INFO(Threads << " threads");
    CalibrationSampleSource Next = SourceOfV(SIZE_MAX);
    CalibrationRunOptions RO;
    RO.Threads = Threads;
    RO.Bins = 256;
    CalibrationStats S = requireValue(calibrateGraphFromSource(*G, Next, RO));
    CHECK(S.Samples == 61);
    REQUIRE(S.Values.size() == FromFile.Values.size());
    for (size_t I = 0; I < S.Values.size(); ++I) {
      CHECK(S.Values[I].Name == FromFile.Values[I].Name);
      CHECK(S.Values[I].Observer == FromFile.Values[I].Observer);
    }
  }

  // The source's error stops the run and is the one reported.
  CalibrationRunOptions RO;
  RO.Threads = 3;
  auto Failed = calibrateGraphFromSource(*G, SourceOfV(17), RO);
  REQUIRE(!Failed);
  CHECK(llvm::toString(Failed.takeError()) == "batch 17 is not an array");
}

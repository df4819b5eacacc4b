// kiln build's manifest, plan and content hashes (tools/lib/Build) on
// small hand-written cases.
#include "Build/BuildPlan.h"
#include "Build/BuildState.h"
#include "Build/Manifest.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <catch2/catch.hpp>

using namespace kiln;

namespace {

/// A fresh folder with the files given (name -> contents).
std::string folderWith(const std::vector<std::pair<std::string, std::string>> &Files) {
  llvm::SmallString<128> Dir;
  REQUIRE(!llvm::sys::fs::createUniqueDirectory("kiln-build-test", Dir));
  for (const auto &[Name, Text] : Files) {
    llvm::SmallString<128> P(Dir);
    llvm::sys::path::append(P, Name);
    REQUIRE(!llvm::sys::fs::create_directories(llvm::sys::path::parent_path(P)));
    std::error_code EC;
    llvm::raw_fd_ostream OS(P, EC);
    REQUIRE(!EC);
    OS << Text;
  }
  return std::string(Dir.str());
}

std::string message(llvm::Error E) { return llvm::toString(std::move(E)); }

/// The value, or the test fails with the error's message.
template <typename T> T take(llvm::Expected<T> E) {
  if (!E)
    FAIL(message(E.takeError()));
  return std::move(*E);
}

} // namespace

TEST_CASE("sizes in the units people write", "[build]") {
  CHECK(parseByteSize("4096") == uint64_t(4096));
  CHECK(parseByteSize("12MB") == uint64_t(12000000));
  CHECK(parseByteSize("300 kB") == uint64_t(300000));
  CHECK(parseByteSize("1.5MiB") == uint64_t(1572864));
  CHECK(parseByteSize("2 GiB") == uint64_t(2147483648));
  CHECK_FALSE(parseByteSize("12 parsecs"));
  CHECK_FALSE(parseByteSize("-1"));
  CHECK_FALSE(parseByteSize(""));
  CHECK_FALSE(parseByteSize("MB"));
  CHECK_FALSE(parseByteSize("1e30GB"));
}

TEST_CASE("a manifest's models and entries, with defaults and paths", "[build]") {
  std::string Dir = folderWith({{"m/a.onnx", "x"}, {"calib/0.npy", "y"}});
  auto M = take(parseManifest("[model.a]\nsource = \"m/a.onnx\"\n"
                         "calib = \"calib\"\ncalib_shards = 2\n"
                         "[[build]]\nmodel = \"a\"\ntarget = \"cpu\"\n"
                         "min_sqnr = 30\nmax_size = \"1kB\"\n"
                         "[[build]]\nmodel = \"a\"\ntarget = [\"nnapi\", \"vulkan\"]\n"
                         "precision = [\"fp16\", \"int8\"]\nskip_unsupported = true\n"
                         "[[build]]\nmodel = \"a\"\ntarget = \"metal\"\n"
                         "options = [\"-O\", \"1\"]\n"
                         "[[build]]\nmodel = \"a\"\ntarget = \"cpu\"\n"
                         "precision = \"int8\"\n",
                         "k.toml", Dir));
  const ManifestModel &A = M.Models.at("a");
  CHECK(A.SourcePath == Dir + "/m/a.onnx");
  CHECK(A.CalibPath == Dir + "/calib");
  CHECK(A.CalibShards == 2);
  CHECK(A.CheckSamples == 4);
  REQUIRE(M.Builds.size() == 4);
  CHECK(M.Builds[0].Precisions == std::vector<std::string>{"fp32"});
  CHECK(M.Builds[0].MinSqnr == 30.0);
  CHECK(M.Builds[0].MaxSize == uint64_t(1000));
  CHECK(M.Builds[1].Targets == std::vector<std::string>{"nnapi", "vulkan"});
  CHECK(M.Builds[1].Line == 10);

  // 1 cpu + nnapi fp16/int8 + vulkan fp16 (vulkan int8 skipped) + 1
  // metal + 1 cpu int8: 6 artifacts; one import, optimized once by the CPU
  // pipeline (Vulkan's, the calibration's, and the first part of NNAPI's);
  // the metal entry's -O 1 chooses its pipeline, so its conversion reads
  // the import; two calibration shards merged once, read by the CPU int8.
  // The NNAPI int8 conversion calibrates itself: its expansions make its
  // graph another than the one the shared statistics describe.
  auto P = take(planBuild(M, Dir + "/out"));
  CHECK(P.Artifacts.size() == 6);
  REQUIRE(P.Skipped.size() == 1);
  CHECK(P.Skipped[0].rfind("a.vulkan.int8: ", 0) == 0);
  std::vector<std::string> Ids;
  for (const BuildJob &J : P.Jobs)
    Ids.push_back(J.Id);
  CHECK(Ids == std::vector<std::string>{
                   "import:a", "optimize:a",
                   "calibrate:a:0/2", "calibrate:a:1/2", "merge:a",
                   "convert:a.cpu.fp32", "gate:a.cpu.fp32",
                   "convert:a.nnapi.fp16", "gate:a.nnapi.fp16",
                   "convert:a.nnapi.int8", "gate:a.nnapi.int8",
                   "convert:a.vulkan.fp16", "gate:a.vulkan.fp16",
                   "convert:a.metal.fp32", "gate:a.metal.fp32",
                   "convert:a.cpu.int8", "gate:a.cpu.int8"});
  const BuildJob *Int8 = P.job("convert:a.nnapi.int8");
  REQUIRE(Int8);
  CHECK(Int8->Deps == std::vector<std::string>{"optimize:a"});
  const BuildJob *CpuInt8 = P.job("convert:a.cpu.int8");
  REQUIRE(CpuInt8);
  CHECK(CpuInt8->Deps == std::vector<std::string>{"optimize:a", "merge:a"});
  // A conversion reads the optimized import with its pass record, and
  // records the original.
  std::string Ir = Dir + "/out/.kiln-build/ir/a/";
  const std::vector<std::string> &Args = Int8->Commands[0].Args;
  REQUIRE(Args.size() > 6);
  CHECK(std::vector<std::string>(Args.begin() + 1, Args.begin() + 6) ==
        std::vector<std::string>{Ir + "optimized/model.kir", "--pass-record",
                                 Ir + "optimized/passes.json", "--source-of",
                                 Dir + "/m/a.onnx"});
  CHECK(P.job("optimize:a")->Commands[0].Args ==
        std::vector<std::string>{"opt", Ir + "import/model.kir", "--target",
                                 "cpu", "-o", Ir + "optimized/model.kir",
                                 "--pass-record", Ir + "optimized/passes.json"});
  CHECK(P.job("convert:a.vulkan.fp16")->Commands[0].Args[1] ==
        Ir + "optimized/model.kir");
  CHECK(P.job("convert:a.metal.fp32")->Commands[0].Args[1] ==
        Ir + "import/model.kir");
  CHECK(P.job("convert:a.metal.fp32")->Deps ==
        std::vector<std::string>{"import:a"});
  CHECK(std::find(Args.begin(), Args.end(), "--calib-stats") == Args.end());
  auto Calib = std::find(Args.begin(), Args.end(), "--calib");
  REQUIRE(Calib != Args.end());
  CHECK(*(Calib + 1) == Dir + "/calib");
  const std::vector<std::string> &CpuArgs = CpuInt8->Commands[0].Args;
  auto Stats = std::find(CpuArgs.begin(), CpuArgs.end(), "--calib-stats");
  REQUIRE(Stats != CpuArgs.end());
  CHECK(*(Stats + 1) == Dir + "/out/.kiln-build/calib/a.kcal");
  CHECK(P.job("merge:a")->Deps ==
        std::vector<std::string>{"calibrate:a:0/2", "calibrate:a:1/2"});
  // The CPU's float files keep LSTMs and GRUs whole (a pass variant the
  // optimized import, which every precision continues from, did not run):
  // its fp32 conversion runs its own pipeline from the import.
  CHECK(P.job("convert:a.cpu.fp32")->Deps ==
        std::vector<std::string>{"import:a"});
  CHECK(P.job("convert:a.cpu.fp32")->Commands[0].Args[1] ==
        Ir + "import/model.kir");
  CHECK(P.job("calibrate:a:1/2")->Deps ==
        std::vector<std::string>{"optimize:a"});
  CHECK(P.job("calibrate:a:1/2")->Commands[0].Args[3] ==
        Ir + "optimized/passes.json");
}

TEST_CASE("manifest errors name the line, the column and the key", "[build]") {
  std::string Dir = folderWith({{"a.onnx", "x"}});
  auto Err = [&](const char *Text) {
    auto M = parseManifest(Text, "k.toml", Dir);
    REQUIRE(!M);
    return message(M.takeError());
  };
  CHECK(Err("[model.a]\nsource = \"a.onnx\"\n[[build]]\nmodel = \"a\"\n"
            "targets = \"cpu\"\n") ==
        "k.toml:5:1: [[build]] #1 key 'targets': is not a manifest key "
        "(expected max_size, min_sqnr, model, options, precision, "
        "skip_unsupported, target)");
  CHECK(Err("[model.a]\nsource = \"a.onnx\"\n[[build]]\nmodel = \"b\"\n"
            "target = \"cpu\"\n") ==
        "k.toml:4:9: [[build]] #1 key 'model': no [model.b] in the manifest "
        "(models: a)");
  CHECK(Err("[model.a]\nsource = \"b.onnx\"\n[[build]]\nmodel = \"a\"\n"
            "target = [\"cpu\", 3]\n") ==
        "k.toml:5:18: [[build]] #1 key 'target': must be a string or an array "
        "of strings");
  CHECK(Err("[model.a]\nsource = \"b.onnx\"\n[[build]]\nmodel = \"a\"\n"
            "target = \"cpu\"\n") ==
        "k.toml:2:10: [model.a] key 'source': 'b.onnx' does not exist (" +
            Dir + "/b.onnx)");
}

TEST_CASE("folder hashes follow every file's path and bytes", "[build]") {
  std::string A = folderWith({{"x.npy", "1"}, {"sub/y.npy", "2"}});
  std::string B = folderWith({{"x.npy", "1"}, {"sub/y.npy", "2"}});
  std::string C = folderWith({{"x.npy", "1"}, {"sub/y.npy", "3"}});
  std::string D = folderWith({{"x.npy", "1"}, {"sub/z.npy", "2"}});
  auto H = [](const std::string &P) {
    return take(hashPath(P));
  };
  CHECK(H(A) == H(B));
  CHECK(H(A) != H(C));
  CHECK(H(A) != H(D));
  CHECK(H(A + "/x.npy") == H(B + "/x.npy"));
  auto Missing = hashPath(A + "/nope");
  REQUIRE(!Missing);
  CHECK(message(Missing.takeError()) == A + "/nope: no such file or folder");
}

// Image decoding and preprocessing: exact pixels of the committed pattern
// images (pixel (y, x) = (10x, 20y, 7)), resizing against PyTorch's bilinear
// interpolation (test/quant-images/generate.py), hand-computed crop and
// normalization, the JSON config, and mutated images that must fail cleanly.
#include "Support/Image.h"
#include "Support/ImagePreprocess.h"
#include "Support/Npy.h"
#include "Support/PngInflateBound.h"

#include "LlvmErrorChecks.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <random>

using namespace kiln;

namespace {
std::string corpus(const std::string &Name) {
  return std::string(KILN_SOURCE_DIR) + "/test/quant-images/" + Name;
}

std::string readBytes(const std::string &Path) {
  auto B = llvm::MemoryBuffer::getFile(Path);
  REQUIRE(B);
  return (*B)->getBuffer().str();
}
} // namespace

TEST_CASE("PNG pixels decode exactly, in any color type", "[quant][image]") {
  Image A = requireValue(readImageFile(corpus("good/a-8x6.png")));
  CHECK(A.Width == 8);
  CHECK(A.Height == 6);
  REQUIRE(A.Pixels.size() == 6 * 8 * 3);
  for (int64_t Y = 0; Y < 6; ++Y)
    for (int64_t X = 0; X < 8; ++X) {
      CHECK(A.at(Y, X, 0) == 10 * X);
      CHECK(A.at(Y, X, 1) == 20 * Y);
      CHECK(A.at(Y, X, 2) == 7);
    }
  Image Gray = requireValue(readImageFile(corpus("good/b-8x6-gray.png")));
  CHECK(Gray.at(5, 3, 0) == 100);
  CHECK(Gray.at(5, 3, 2) == 100); // gray is replicated into RGB
  Image Rgba = requireValue(readImageFile(corpus("good/c-8x6-rgba.png")));
  CHECK(Rgba.Pixels == A.Pixels); // alpha dropped
  Image One = requireValue(readImageFile(corpus("good/b-8x6-gray.png"), 1));
  CHECK(One.Channels == 1);
  CHECK(One.at(4, 0, 0) == 80);
  Image Jpeg = requireValue(readImageFile(corpus("good/d-8x6.jpg")));
  CHECK(Jpeg.Width == 8);
  CHECK(Jpeg.Height == 6);
  CHECK(std::abs(int(Jpeg.at(3, 4, 0)) - 40) <= 12); // lossy
  ImageSize S = requireValue(readImageSize(corpus("other-10x6.png")));
  CHECK(S.Width == 10);
  CHECK(S.Height == 6);
}

TEST_CASE("bilinear resize matches PyTorch (align_corners=False)",
          "[quant][image]") {
  Image A = requireValue(readImageFile(corpus("good/a-8x6.png")));
  for (auto [H, W] : {std::pair<int64_t, int64_t>{4, 5}, {9, 13}}) {
    std::string Ref = "a-8x6.resize-" + std::to_string(H) + "x" +
                      std::to_string(W) + ".npy";
    NpyArray R = requireValue(readNpyFile(corpus(Ref)));
    REQUIRE(R.Shape == std::vector<int64_t>{3, H, W});
    const float *Want = reinterpret_cast<const float *>(R.Data);
    std::vector<float> Got = resizeBilinear(A, H, W); // HWC
    double Worst = 0;
    for (int64_t C = 0; C < 3; ++C)
      for (int64_t Y = 0; Y < H; ++Y)
        for (int64_t X = 0; X < W; ++X)
          Worst = std::max(Worst, std::fabs(double(Got[size_t((Y * W + X) * 3 + C)]) -
                                            double(Want[(C * H + Y) * W + X])));
    CHECK(Worst < 1e-4);
  }
}

TEST_CASE("crop, channel order, normalization and layout", "[quant][image]") {
  Image A = requireValue(readImageFile(corpus("good/a-8x6.png")));
  ImagePreprocess P;
  P.CropHeight = P.CropWidth = 4; // top = round(2/2) = 1, left = round(4/2) = 2
  P.Mean = {0.5};
  P.Std = {0.25};
  int64_t H = 0, W = 0;
  std::vector<float> Out = requireValue(preprocessImage(A, P, "a.png", H, W));
  REQUIRE(H == 4);
  REQUIRE(W == 4);
  // NCHW, output (0, 0) is pixel (1, 2) = (20, 20, 7); (3, 3) is (4, 5).
  CHECK(Out[0] == float((20 / 255.0 - 0.5) / 0.25));
  CHECK(Out[size_t(1 * 16 + 3 * 4 + 3)] == float((80 / 255.0 - 0.5) / 0.25));
  CHECK(Out[size_t(2 * 16)] == float((7 / 255.0 - 0.5) / 0.25));
  P.Bgr = true;
  P.ChannelsLast = true;
  P.Mean = {0.0, 0.1, 0.2};
  P.Std = {1.0};
  Out = requireValue(preprocessImage(A, P, "a.png", H, W));
  // NHWC, BGR: element (0, 0, c) = pixel (1, 2) channels (7, 20, 20).
  CHECK(Out[0] == float(7 / 255.0 - 0.0));
  CHECK(Out[1] == float(20 / 255.0 - 0.1));
  CHECK(Out[2] == float(20 / 255.0 - 0.2));
  // A crop larger than the image is an error naming it.
  P.CropHeight = P.CropWidth = 7;
  auto Big = preprocessImage(A, P, "a.png", H, W);
  REQUIRE(!Big);
  CHECK(llvm::toString(Big.takeError()) ==
        "a.png: the image is 6x8 (HxW) after resizing, smaller than the 7x7 "
        "crop; resize it larger first (--calib-resize)");
  // Shorter side to 12: 6x8 -> 12x16 (torchvision truncates the long side).
  ImagePreprocess R;
  R.ResizeShorter = 12;
  preprocessedSize(R, 6, 8, H, W);
  CHECK(H == 12);
  CHECK(W == 16);
  preprocessedSize(R, 7, 5, H, W);
  CHECK(H == 16);
  CHECK(W == 12);
}

TEST_CASE("size and channel-value flags", "[quant][image]") {
  int64_t H = 0, W = 0;
  bool Pair = false;
  REQUIRE_NO_ERROR(parseImageSize("224", "--calib-crop", H, W, Pair));
  CHECK((H == 224 && W == 224 && !Pair));
  REQUIRE_NO_ERROR(parseImageSize("240X320", "--calib-resize", H, W, Pair));
  CHECK((H == 240 && W == 320 && Pair));
  llvm::Error E = parseImageSize("0x3", "--calib-crop", H, W, Pair);
  CHECK(llvm::toString(std::move(E)) ==
        "--calib-crop '0x3': expected N or HxW with sides in 1..16384");
  std::vector<double> V;
  REQUIRE_NO_ERROR(parseChannelValues("0.485, 0.456,0.406", "--calib-mean", V));
  CHECK(V == std::vector<double>{0.485, 0.456, 0.406});
  E = parseChannelValues("1,x", "--calib-std", V);
  CHECK(llvm::toString(std::move(E)) ==
        "--calib-std '1,x': expected one number or one per channel, separated "
        "by commas");
}

TEST_CASE("preprocessing config files", "[quant][image]") {
  llvm::SmallString<128> Dir;
  REQUIRE(!llvm::sys::fs::createUniqueDirectory("kiln-image-test", Dir));
  auto Write = [&](const std::string &Name, const std::string &Text) {
    std::string P = (Dir + "/" + Name).str();
    std::ofstream(P) << Text;
    return P;
  };
  ImagePreprocess P;
  REQUIRE_NO_ERROR(readPreprocessConfig(
      Write("ok.json", R"({"resize": [256, 320], "crop": 224, "scale": 1.0,
        "mean": [1, 2, 3], "std": 2, "channels": "bgr", "layout": "nhwc"})"),
      P));
  CHECK((P.ResizeHeight == 256 && P.ResizeWidth == 320 && P.ResizeShorter == 0));
  CHECK((P.CropHeight == 224 && P.CropWidth == 224));
  CHECK(P.Scale == 1.0);
  CHECK(P.Mean == std::vector<double>{1, 2, 3});
  CHECK(P.Std == std::vector<double>{2});
  CHECK((P.Bgr && P.ChannelsLast));
  auto ErrorOf = [&](const std::string &Name, const std::string &Text) {
    ImagePreprocess Q;
    std::string Path = Write(Name, Text);
    llvm::Error E = readPreprocessConfig(Path, Q);
    std::string Msg = llvm::toString(std::move(E));
    return Msg.substr(Msg.find(Name) + Name.size());
  };
  CHECK(ErrorOf("kind.json", R"({"crop": "big"})") ==
        ": \"crop\" must be a positive size N or [h, w]");
  CHECK(ErrorOf("deep.json", std::string(100, '[') + std::string(100, ']')) ==
        ": the preprocessing config nests deeper than 8");
  CHECK(ErrorOf("notjson.json", "{resize: 3}").rfind(": not valid JSON", 0) == 0);
  CHECK(ErrorOf("array.json", "[1]") ==
        ": the preprocessing config must be a JSON object");
  llvm::sys::fs::remove_directories(Dir);
}

TEST_CASE("a PNG's inflated size, counted by hand", "[quant][image]") {
  // 10x6 RGB, 8 bits: 6 rows of a filter byte and 30 bytes.
  REQUIRE(pngInflatedBytes(10, 6, 8, 2, false) == 186);
  // 10x1 gray, 1 bit: a filter byte and 10 bits in 2 bytes.
  REQUIRE(pngInflatedBytes(10, 1, 1, 0, false) == 3);
  // 3x2 RGBA, 16 bits: 2 rows of 1 + 24 bytes.
  REQUIRE(pngInflatedBytes(3, 2, 16, 6, false) == 50);
  // 8x8 gray, 8 bits, Adam7: the 64 pixels, and one filter byte for each
  // row of each pass (1 + 1 + 1 + 2 + 2 + 4 + 4 rows).
  REQUIRE(pngInflatedBytes(8, 8, 8, 0, true) == 79);
  // 1x1 interlaced: only the first pass has a pixel.
  REQUIRE(pngInflatedBytes(1, 1, 8, 2, true) == 4);
  // Unknown color type or bit depth.
  REQUIRE(pngInflatedBytes(4, 4, 8, 5, false) == 0);
  REQUIRE(pngInflatedBytes(4, 4, 3, 0, false) == 0);
}

TEST_CASE("mutated images fail cleanly or decode, never crash",
          "[quant][image]") {
  std::mt19937 Rng(1234);
  int Failed = 0, Decoded = 0;
  for (const char *Name : {"good/a-8x6.png", "good/d-8x6.jpg"}) {
    std::string Good = readBytes(corpus(Name));
    for (int I = 0; I < 400; ++I) {
      std::string M = Good;
      std::uniform_int_distribution<size_t> Pos(0, M.size() - 1);
      int Edits = 1 + int(Rng() % 8);
      for (int E = 0; E < Edits; ++E)
        M[Pos(Rng)] = char(Rng());
      if (Rng() % 4 == 0)
        M.resize(Pos(Rng));
      auto Img = decodeImage(M, "mutant");
      if (Img) {
        ++Decoded;
        CHECK(Img->Pixels.size() == size_t(Img->Width * Img->Height * 3));
      } else {
        ++Failed;
        CHECK(llvm::toString(Img.takeError()).rfind("mutant: ", 0) == 0);
      }
    }
  }
  CHECK(Failed > 0);
  CHECK(Decoded > 0);
}

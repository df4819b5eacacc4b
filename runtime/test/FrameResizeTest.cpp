// kiln_session_set_image's resizer against a naive reference written here
// in double precision the long way round: the frame is first turned upright
// into a new image by explicit rotation, then cropped into another, then
// resized with PyTorch's bilinear rule (half-pixel centers, source index
// clamped at 0, align_corners=False), then rounded. Bytes may differ by one
// where float and double round a tie differently.
#include "image/FrameResize.h"

#include <catch2/catch.hpp>
#include <pthreadpool.h>

#include <array>
#include <cmath>
#include <random>
#include <vector>

using namespace kiln::rt;
using kiln::numerics::PixelFormat;

namespace {

using Row = std::vector<std::array<double, 3>>;
using Plane = std::vector<Row>; // [y][x] rgb

Plane rotateUpright(const Plane &P, int Rotation) {
  Plane Out = P;
  for (int Turn = 0; Turn < Rotation / 90; ++Turn) {
    // One clockwise quarter turn: new[r][c] = old[H - 1 - c][r].
    size_t H = Out.size(), W = Out[0].size();
    Plane Next(W, Row(H));
    for (size_t R = 0; R < W; ++R)
      for (size_t C = 0; C < H; ++C)
        Next[R][C] = Out[H - 1 - C][R];
    Out = Next;
  }
  return Out;
}

Plane centerCrop(const Plane &P, int64_t OutH, int64_t OutW) {
  int64_t H = int64_t(P.size()), W = int64_t(P[0].size());
  int64_t CH = H, CW = W;
  // Python's round (half to even), as torchvision's CenterCrop.
  auto pyRound = [](double V) {
    double F = std::floor(V), Diff = V - F;
    if (Diff != 0.5)
      return int64_t(std::floor(V + 0.5));
    return int64_t(std::fmod(F, 2.0) == 0 ? F : F + 1);
  };
  if (W * OutH > H * OutW)
    CW = pyRound(double(H) * OutW / OutH);
  else
    CH = pyRound(double(W) * OutH / OutW);
  int64_t Top = pyRound((H - CH) / 2.0), Left = pyRound((W - CW) / 2.0);
  Plane Out(static_cast<size_t>(CH), Row(static_cast<size_t>(CW)));
  for (int64_t Y = 0; Y < CH; ++Y)
    for (int64_t X = 0; X < CW; ++X)
      Out[size_t(Y)][size_t(X)] = P[size_t(Top + Y)][size_t(Left + X)];
  return Out;
}

std::vector<uint8_t> bilinearRgb(const Plane &P, int64_t OutH, int64_t OutW) {
  int64_t H = int64_t(P.size()), W = int64_t(P[0].size());
  auto source = [](int64_t I, int64_t In, int64_t Out, int64_t &I0,
                   int64_t &I1, double &L) {
    double S = std::max(0.0, (I + 0.5) * double(In) / double(Out) - 0.5);
    I0 = std::min(int64_t(S), In - 1);
    I1 = std::min(I0 + 1, In - 1);
    L = S - double(I0);
  };
  std::vector<uint8_t> Out;
  for (int64_t Y = 0; Y < OutH; ++Y)
    for (int64_t X = 0; X < OutW; ++X) {
      int64_t Y0, Y1, X0, X1;
      double LY, LX;
      source(Y, H, OutH, Y0, Y1, LY);
      source(X, W, OutW, X0, X1, LX);
      for (int K = 0; K < 3; ++K) {
        double V = (1 - LY) * ((1 - LX) * P[Y0][X0][K] + LX * P[Y0][X1][K]) +
                   LY * ((1 - LX) * P[Y1][X0][K] + LX * P[Y1][X1][K]);
        Out.push_back(uint8_t(std::floor(std::min(255.0, std::max(0.0, V)) + 0.5)));
      }
    }
  return Out;
}

void requireWithinOne(const std::vector<uint8_t> &Got,
                      const std::vector<uint8_t> &Want) {
  REQUIRE(Got.size() == Want.size());
  int Worst = 0;
  for (size_t I = 0; I < Got.size(); ++I)
    Worst = std::max(Worst, std::abs(int(Got[I]) - int(Want[I])));
  REQUIRE(Worst <= 1);
}

} // namespace

TEST_CASE("frames are rotated, cropped and resized as torchvision would",
          "[image]") {
  // A 37x23 bgra8 frame with 8 bytes of row padding.
  const int64_t W = 37, H = 23;
  const size_t Stride = size_t(W) * 4 + 8;
  std::mt19937 Rng(3);
  std::vector<uint8_t> Frame(Stride * size_t(H));
  for (uint8_t &B : Frame)
    B = uint8_t(Rng());
  Plane Rgb(static_cast<size_t>(H), Row(static_cast<size_t>(W)));
  for (int64_t Y = 0; Y < H; ++Y)
    for (int64_t X = 0; X < W; ++X) {
      const uint8_t *P = &Frame[size_t(Y) * Stride + size_t(X) * 4];
      Rgb[size_t(Y)][size_t(X)] = {double(P[2]), double(P[1]), double(P[0])};
    }
  FrameView F{Frame.data(), W, H, Stride, PixelFormat::Bgra8};
  for (int Rotation : {0, 90, 180, 270})
    for (bool Crop : {false, true})
      for (auto [OutH, OutW] : {std::pair<int64_t, int64_t>{16, 16}, {10, 29},
                                {50, 41}}) {
        CAPTURE(Rotation, Crop, OutH, OutW);
        FrameOptions O{Rotation, Crop};
        REQUIRE(checkFrame(F, O, PixelFormat::Rgb8).isOk());
        std::vector<uint8_t> Got(size_t(OutH * OutW * 3));
        resizeFrame(F, O, PixelFormat::Rgb8, OutH, OutW, Got.data());
        Plane Up = rotateUpright(Rgb, Rotation);
        if (Crop)
          Up = centerCrop(Up, OutH, OutW);
        requireWithinOne(Got, bilinearRgb(Up, OutH, OutW));
      }
}

TEST_CASE("an nv21 frame fills an nv21 input plane by plane", "[image]") {
  const int64_t W = 8, H = 6;
  std::vector<uint8_t> Frame(size_t(W * (H + H / 2)));
  for (size_t I = 0; I < Frame.size(); ++I)
    Frame[I] = uint8_t(I * 7);
  FrameView F{Frame.data(), W, H, size_t(W), PixelFormat::Nv21};
  FrameOptions O;
  REQUIRE(checkFrame(F, O, PixelFormat::Nv21).isOk());
  // The same size: a copy of both planes.
  std::vector<uint8_t> Same(Frame.size());
  resizeFrame(F, O, PixelFormat::Nv21, H, W, Same.data());
  REQUIRE(Same == Frame);
  // Half the size: Y(0,0) of the result is the mean of the 2x2 block at
  // (0..1, 0..1) (half-pixel centers at 0.5 in the source), and V(0,0) the
  // mean of the first two V samples of the first two chroma rows.
  std::vector<uint8_t> Half(size_t((W / 2) * (H / 2 + H / 4)));
  resizeFrame(F, O, PixelFormat::Nv21, H / 2, W / 2, Half.data());
  double Y00 = (Frame[0] + Frame[1] + Frame[W] + Frame[W + 1]) / 4.0;
  REQUIRE(Half[0] == uint8_t(std::floor(Y00 + 0.5)));
}

TEST_CASE("frames that cannot fill the input are refused", "[image]") {
  std::vector<uint8_t> Pixels(64 * 64 * 4, 0);
  FrameView Good{Pixels.data(), 8, 8, 32, PixelFormat::Rgba8};
  FrameOptions O;
  REQUIRE(checkFrame(Good, O, PixelFormat::Rgb8).isOk());
  FrameView Short = Good;
  Short.RowStride = 31;
  REQUIRE(checkFrame(Short, O, PixelFormat::Rgb8).message().find("row stride") !=
          std::string::npos);
  FrameView Null = Good;
  Null.Pixels = nullptr;
  REQUIRE(!checkFrame(Null, O, PixelFormat::Rgb8).isOk());
  FrameView Empty = Good;
  Empty.Width = 0;
  REQUIRE(!checkFrame(Empty, O, PixelFormat::Rgb8).isOk());
  FrameOptions Tilted{45, false};
  REQUIRE(checkFrame(Good, Tilted, PixelFormat::Rgb8).message().find("rotation") !=
          std::string::npos);
  REQUIRE(!checkFrame(Good, O, PixelFormat::Nv21).isOk()); // rgba -> nv21
  FrameView Odd{Pixels.data(), 7, 8, 7, PixelFormat::Nv21};
  REQUIRE(!checkFrame(Odd, O, PixelFormat::Nv21).isOk());
  FrameView Unknown = Good;
  Unknown.Format = PixelFormat::Unknown;
  REQUIRE(!checkFrame(Unknown, O, PixelFormat::Rgb8).isOk());
}

TEST_CASE("a session's threads split the rows and give the same bytes",
          "[image]") {
  const int64_t W = 640, H = 480;
  std::mt19937 Rng(5);
  std::vector<uint8_t> Frame(size_t(W * H * 3));
  for (uint8_t &B : Frame)
    B = uint8_t(Rng());
  FrameView F{Frame.data(), W, H, size_t(W * 3), PixelFormat::Rgb8};
  FrameOptions O{90, true};
  const int64_t OutH = 200, OutW = 150; // above the threading threshold
  std::vector<uint8_t> Serial(size_t(OutH * OutW * 4)), Threaded(Serial.size());
  resizeFrame(F, O, PixelFormat::Bgra8, OutH, OutW, Serial.data());
  pthreadpool_t Pool = pthreadpool_create(2);
  REQUIRE(Pool);
  resizeFrame(F, O, PixelFormat::Bgra8, OutH, OutW, Threaded.data(), Pool);
  pthreadpool_destroy(Pool);
  REQUIRE(Serial == Threaded);
}

TEST_CASE("an nv21 frame fills an rgb input through the BT.601 matrix",
          "[image]") {
  const int64_t W = 12, H = 10;
  std::mt19937 Rng(9);
  std::vector<uint8_t> Frame(size_t(W * (H + H / 2)));
  for (uint8_t &B : Frame)
    B = uint8_t(Rng());
  // The reference decodes every pixel with the documented matrix first.
  Plane Rgb(static_cast<size_t>(H), Row(static_cast<size_t>(W)));
  for (int64_t Y = 0; Y < H; ++Y)
    for (int64_t X = 0; X < W; ++X) {
      double L = Frame[size_t(Y * W + X)];
      size_t VU = size_t((H + Y / 2) * W + (X / 2) * 2);
      double Cr = Frame[VU] - 128.0, Cb = Frame[VU + 1] - 128.0;
      auto Clamp = [](double V) { return std::min(255.0, std::max(0.0, V)); };
      Rgb[size_t(Y)][size_t(X)] = {Clamp(L + 1.402 * Cr),
                                   Clamp(L - 0.344136 * Cb - 0.714136 * Cr),
                                   Clamp(L + 1.772 * Cb)};
    }
  FrameView F{Frame.data(), W, H, size_t(W), PixelFormat::Nv21};
  for (int Rotation : {0, 270}) {
    FrameOptions O{Rotation, false};
    REQUIRE(checkFrame(F, O, PixelFormat::Rgb8).isOk());
    std::vector<uint8_t> Got(7 * 5 * 3);
    resizeFrame(F, O, PixelFormat::Rgb8, 7, 5, Got.data());
    requireWithinOne(Got, bilinearRgb(rotateUpright(Rgb, Rotation), 7, 5));
  }
}

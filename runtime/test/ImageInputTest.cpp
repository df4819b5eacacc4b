// Image inputs in the runtime (schema 1.10): PIXELS_TO_TENSOR against
// hand-computed values, kiln_session_set_image on a frame of another size,
// and the loader's refusal of operators and image descriptions that lie.
#include "RuntimeTestModels.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

using namespace kiln;
using namespace kiln::testmodels;

namespace {

struct ImageModelSpec {
  fb::PixelFormat Format = fb::PixelFormat::RGB8;
  int64_t H = 2, W = 4, FrameBytes = 3, Channels = 3;
  bool Bgr = false;
  std::vector<float> Mean = {10, 20, 30}, Scale = {0.5f, 0.25f, 2};
  /// What the metadata says (the operator's own by default).
  int InfoFormat = -1, InfoChannels = -1;
};

/// frame u8[1, rows, W, bytes] -> PIXELS_TO_TENSOR -> image f32[1, H, W, C].
KilnModule imageModule(const ImageModelSpec &S) {
  KilnModule M;
  int64_t Rows = S.Format == fb::PixelFormat::NV21 ? S.H + S.H / 2 : S.H;
  int32_t X = addTensor(M, "frame", fb::DType::U8, {1, Rows, S.W, S.FrameBytes},
                        fb::Layout::NHWC);
  int32_t Y = addTensor(M, "image", fb::DType::F32, {1, S.H, S.W, S.Channels},
                        fb::Layout::NHWC);
  fb::PixelsToTensorOptionsT O;
  O.format = S.Format;
  O.channel_bgr = S.Bgr;
  O.mean = S.Mean;
  O.scale = S.Scale;
  addOp(M, fb::OpKind::PIXELS_TO_TENSOR, {X}, {Y}, O, fb::Engine::REFERENCE);
  M.Model.inputs = {X};
  M.Model.outputs = {Y};
  auto MD = std::make_unique<fb::MetadataT>();
  MD->target = "cpu";
  auto In = tensorInfoOf(*M.Model.tensors[size_t(X)]);
  In->image = std::make_unique<fb::ImageInputInfoT>();
  In->image->format = S.InfoFormat < 0 ? S.Format : fb::PixelFormat(S.InfoFormat);
  In->image->channels = int32_t(S.InfoChannels < 0 ? S.Channels : S.InfoChannels);
  In->image->channel_bgr = S.Bgr;
  In->image->mean = S.Mean;
  In->image->std = S.Channels == 1 ? std::vector<float>{2}
                                   : std::vector<float>{2, 4, 0.5f};
  MD->inputs.push_back(std::move(In));
  MD->outputs.push_back(tensorInfoOf(*M.Model.tensors[size_t(Y)]));
  M.Model.metadata = std::move(MD);
  return M;
}

struct Loaded {
  kiln_model *Model = nullptr;
  kiln_session *Session = nullptr;
  explicit Loaded(const std::string &Bytes) {
    std::string Error;
    kiln_status S = tryLoad(Bytes, Error, &Model);
    INFO("load: " << Error);
    REQUIRE(S == KILN_OK);
    kiln_session_options O;
    kiln_session_options_init(&O);
    O.num_threads = 1;
    REQUIRE(kiln_session_create(Model, &O, &Session) == KILN_OK);
  }
  ~Loaded() {
    kiln_session_destroy(Session);
    kiln_model_destroy(Model);
  }
  std::vector<float> run() {
    REQUIRE(kiln_session_run(Session) == KILN_OK);
    const void *Data;
    size_t Bytes;
    REQUIRE(kiln_session_get_output(Session, 0, &Data, &Bytes) == KILN_OK);
    std::vector<float> Out(Bytes / 4);
    std::memcpy(Out.data(), Data, Bytes);
    return Out;
  }
};

} // namespace

TEST_CASE("PIXELS_TO_TENSOR converts, reorders and normalizes", "[image]") {
  ImageModelSpec S;
  S.Format = fb::PixelFormat::BGRA8;
  S.FrameBytes = 4;
  S.Bgr = true; // a BGR model fed a BGRA frame reads the bytes in order
  Loaded L(bytesOf(imageModule(S)));
  std::vector<uint8_t> Frame(2 * 4 * 4);
  for (size_t I = 0; I < Frame.size(); ++I)
    Frame[I] = uint8_t(I * 5);
  REQUIRE(kiln_session_set_input(L.Session, 0, Frame.data(), Frame.size()) == KILN_OK);
  std::vector<float> Y = L.run();
  REQUIRE(Y.size() == 2 * 4 * 3);
  for (size_t P = 0; P < 8; ++P)
    for (size_t C = 0; C < 3; ++C) {
      // Channel c of a BGR model is byte c of a BGRA pixel.
      float Want = (float(Frame[P * 4 + C]) - S.Mean[C]) * S.Scale[C];
      REQUIRE(Y[P * 3 + C] == Want);
    }
  kiln_image_info Info;
  REQUIRE(kiln_model_input_image(L.Model, 0, &Info) == KILN_OK);
  REQUIRE(Info.format == KILN_PIXEL_BGRA8);
  REQUIRE(Info.channel_bgr == 1);
  REQUIRE(Info.num_std == 3);
  REQUIRE(Info.std[2] == 0.5f);
}

TEST_CASE("a single-channel model reads the luma whatever the order",
          "[image]") {
  ImageModelSpec S;
  S.Format = fb::PixelFormat::GRAY8;
  S.FrameBytes = 1;
  S.Channels = 1;
  S.Bgr = true;
  S.Mean = {100};
  S.Scale = {0.5f};
  Loaded L(bytesOf(imageModule(S)));
  std::vector<uint8_t> Frame = {0, 50, 100, 150, 200, 250, 255, 1};
  REQUIRE(kiln_session_set_input(L.Session, 0, Frame.data(), Frame.size()) == KILN_OK);
  std::vector<float> Y = L.run();
  for (size_t I = 0; I < Frame.size(); ++I)
    REQUIRE(Y[I] == (float(Frame[I]) - 100) * 0.5f);
}

TEST_CASE("kiln_session_set_image fits a larger frame", "[image]") {
  ImageModelSpec S;
  S.Mean = {0};
  S.Scale = {1};
  Loaded L(bytesOf(imageModule(S)));
  // A 4x8 RGBA frame halved to 2x4: with half-pixel centers each output
  // pixel is the mean of a 2x2 block (weights 1/2, 1/2 on both axes).
  std::vector<uint8_t> Frame(4 * 8 * 4);
  for (size_t I = 0; I < Frame.size(); ++I)
    Frame[I] = uint8_t((I * 37) % 251);
  REQUIRE(kiln_session_set_image(L.Session, 0, Frame.data(), 8, 4, 32,
                                 KILN_PIXEL_RGBA8, nullptr) == KILN_OK);
  std::vector<float> Y = L.run();
  for (int R = 0; R < 2; ++R)
    for (int C = 0; C < 4; ++C)
      for (int K = 0; K < 3; ++K) {
        auto At = [&](int Y0, int X0) {
          return double(Frame[size_t((Y0 * 8 + X0) * 4 + K)]);
        };
        double Mean = (At(2 * R, 2 * C) + At(2 * R, 2 * C + 1) +
                       At(2 * R + 1, 2 * C) + At(2 * R + 1, 2 * C + 1)) / 4;
        REQUIRE(Y[size_t((R * 4 + C) * 3 + K)] == float(std::floor(Mean + 0.5)));
      }
  // Bad calls leave the input as it was and say why.
  kiln_image_options O;
  kiln_image_options_init(&O);
  O.rotation = 45;
  REQUIRE(kiln_session_set_image(L.Session, 0, Frame.data(), 8, 4, 32,
                                 KILN_PIXEL_RGBA8, &O) == KILN_ERROR_INVALID_ARGUMENT);
  REQUIRE(std::string(kiln_last_error()).find("rotation") != std::string::npos);
  REQUIRE(kiln_session_set_image(L.Session, 0, Frame.data(), 8, 4, 16,
                                 KILN_PIXEL_RGBA8, nullptr) == KILN_ERROR_INVALID_ARGUMENT);
  REQUIRE(kiln_session_set_image(L.Session, 0, nullptr, 8, 4, 32,
                                 KILN_PIXEL_RGBA8, nullptr) == KILN_ERROR_INVALID_ARGUMENT);
  REQUIRE(kiln_session_set_image(nullptr, 0, Frame.data(), 8, 4, 32,
                                 KILN_PIXEL_RGBA8, nullptr) == KILN_ERROR_INVALID_ARGUMENT);
}

TEST_CASE("the loader refuses image operators and descriptions that lie",
          "[image]") {
  ImageModelSpec Unknown;
  Unknown.Format = fb::PixelFormat(9);
  requireRejected(bytesOf(imageModule(Unknown)), KILN_ERROR_INVALID_MODEL,
                  "unknown pixel format 9");
  ImageModelSpec Short; // rgba8 needs 4 bytes a pixel
  Short.Format = fb::PixelFormat::RGBA8;
  requireRejected(bytesOf(imageModule(Short)), KILN_ERROR_INVALID_MODEL,
                  "frame");
  ImageModelSpec GrayColor; // one channel from an rgb8 frame
  GrayColor.Channels = 1;
  GrayColor.Mean = {0};
  GrayColor.Scale = {1};
  requireRejected(bytesOf(imageModule(GrayColor)), KILN_ERROR_INVALID_MODEL,
                  "gives 3 channels");
  ImageModelSpec Means;
  Means.Mean = {1, 2};
  requireRejected(bytesOf(imageModule(Means)), KILN_ERROR_INVALID_MODEL,
                  "mean needs 1 or 3 values");
  ImageModelSpec InfoUnknown; // the operator is fine; the description lies
  InfoUnknown.InfoFormat = 0;
  requireRejected(bytesOf(imageModule(InfoUnknown)), KILN_ERROR_INVALID_MODEL,
                  "image input 0: unknown pixel format 0");
  ImageModelSpec InfoNv21;
  InfoNv21.InfoFormat = int(fb::PixelFormat::NV21);
  requireRejected(bytesOf(imageModule(InfoNv21)), KILN_ERROR_INVALID_MODEL,
                  "is not a nv21 frame");
  ImageModelSpec InfoChannels;
  InfoChannels.InfoChannels = 2;
  requireRejected(bytesOf(imageModule(InfoChannels)), KILN_ERROR_INVALID_MODEL,
                  "2 channels (1 or 3)");
}

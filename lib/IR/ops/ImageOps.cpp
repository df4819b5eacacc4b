// pixels_to_tensor: a camera or bitmap frame in, a normalized float image
// out. x is u8[N, H, W, B] as the frame is laid out (B bytes a pixel:
// rgb8/bgr8 3, rgba8/bgra8 4, gray8 1), or for nv21 u8[N, H + H/2, W, 1]
// (the Y plane, then the interleaved V, U plane). The result is
// f32[N, channels, H, W]:
//   y[n, c, h, w] = (p(n, h, w)[c'] - mean[c]) * scale[c]
// where p reads the pixel as R, G, B (numerics/PixelFormats.h, which also
// gives nv21's matrix) and c' is c for channel_order "rgb", 2 - c for "bgr"
// (the order the model was trained on, whatever the frame's). A
// single-channel model (channels 1) reads gray8's byte or nv21's Y. mean
// and scale have one value per channel, or one for every channel.
#include "IR/Graph.h"
#include "IR/ops/OpBuilder.h"
#include "Support/Error.h"

#include "numerics/PixelFormats.h"

namespace kiln {

namespace {

using numerics::PixelFormat;

llvm::Error checkPerChannel(const Node &N, llvm::StringRef Attr,
                            int64_t Channels) {
  size_t Count = N.getFloats(Attr).size();
  if (Count != 1 && Count != size_t(Channels))
    return inputError("{0} needs 1 or {1} values, got {2}", Attr, Channels,
                      Count);
  return llvm::Error::success();
}

llvm::Expected<std::vector<TensorType>> inferPixels(const Node &N) {
  PixelFormat F = numerics::parsePixelFormat(N.getString("format"));
  if (F == PixelFormat::Unknown)
    return inputError("format must be rgb8, bgr8, rgba8, bgra8, gray8 or "
                      "nv21, got '{0}'",
                      N.getString("format"));
  const std::string &Order = N.getString("channel_order");
  if (Order != "rgb" && Order != "bgr")
    return inputError("channel_order must be rgb or bgr, got '{0}'", Order);
  int64_t Channels = N.getInt("channels");
  if (Channels != 1 && Channels != 3)
    return inputError("channels must be 1 or 3, got {0}", Channels);
  if (Channels == 1 && numerics::hasColor(F) && F != PixelFormat::Nv21)
    return inputError("a single-channel model reads gray8 or nv21 frames, "
                      "not {0}",
                      numerics::pixelFormatName(F));
  if (auto E = checkPerChannel(N, "mean", Channels)) return E;
  if (auto E = checkPerChannel(N, "scale", Channels)) return E;
  const TensorType &X = N.operand(0)->type();
  if (X.Elem != ElementType::U8 || X.rank() != 4)
    return inputError("x must be u8[N, H, W, C], got {0}", toString(X));
  const Dim &Bytes = X.Dims[3];
  if (Bytes.isStatic() && Bytes.size() != numerics::pixelBytes(F))
    return inputError("{0} has {1} byte(s) a pixel, but x is {2}",
                      numerics::pixelFormatName(F), numerics::pixelBytes(F),
                      toString(X));
  Dim Height = X.Dims[1], Width = X.Dims[2];
  if (F == PixelFormat::Nv21) {
    if (!Height.isStatic() || !Width.isStatic())
      return inputError("nv21 needs a static frame size, got {0}", toString(X));
    if (Height.size() % 3 != 0 || (Height.size() / 3) % 2 != 0 ||
        Width.size() % 2 != 0)
      return inputError("nv21 needs an even width and H + H/2 rows for an "
                        "even height H, got {0}",
                        toString(X));
    Height = Dim(Height.size() / 3 * 2);
  }
  return std::vector<TensorType>{
      TensorType(ElementType::F32, {X.Dims[0], Dim(Channels), Height, Width})};
}

} // namespace

void registerImageOps(OpRegistry &R) {
  OpBuilder("pixels_to_tensor", "image",
            "a u8 frame (NHWC, or nv21's planes) to a normalized f32 NCHW "
            "image: (pixel - mean) * scale per channel")
      .operand("x")
      .required("format", AttrKind::String,
                "rgb8 | bgr8 | rgba8 | bgra8 | gray8 | nv21")
      .attr("channels", AttrKind::Int, int64_t(3), "1 or 3")
      .attr("channel_order", AttrKind::String, std::string("rgb"),
            "the model's channel order: rgb | bgr")
      .attr("mean", AttrKind::Floats, Floats{0.0}, "per channel, in pixel units")
      .attr("scale", AttrKind::Floats, Floats{1.0}, "per channel (1 / std)")
      .attr("input_std", AttrKind::Floats, Floats{},
            "the std given for the input, for reports: scale is what runs "
            "(fold-image-normalization may move it into the first conv)")
      .infer(inferPixels)
      .into(R);
}

} // namespace kiln

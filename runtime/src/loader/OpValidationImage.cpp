// The loader's checks of PIXELS_TO_TENSOR (schema/kiln.fbs): a known frame
// format, a U8 frame whose shape is that format's for the image the output
// holds, an F32 (or per-tensor I8) NHWC output of 1 or 3 channels, and finite per-channel
// values, so the kernel reads inside the frame and writes inside the image.
#include "loader/OpValidation.h"

#include "numerics/PixelFormats.h"

#include <cmath>

namespace kiln::rt {

using fb::DType;
using numerics::PixelFormat;

namespace {

Status checkPerChannel(const flatbuffers::Vector<float> *V, int64_t Channels,
                       const char *What) {
  if (!V || (V->size() != 1 && int64_t(V->size()) != Channels))
    return invalidModel(What, " needs 1 or ", Channels, " values, got ",
                        V ? V->size() : 0);
  for (float X : *V)
    if (!std::isfinite(X))
      return invalidModel(What, " holds a value that is not finite");
  return Status::ok();
}

} // namespace

Status validatePixelsToTensor(const OpView &V) {
  if (Status S = checkArity(V, 1, 1, 1))
    return S;
  const TensorDesc &X = *V.In[0], &Y = *V.Out[0];
  if (Status S = checkDType(X, DType::U8, "frame"))
    return S;
  // f32, or an int8 file's quantized image (its input QUANTIZE folded in).
  if (Y.DType == DType::I8) {
    if (Status S = checkInt8Activation(Y, "output"))
      return S;
  } else if (Status S = checkDType(Y, DType::F32, "output")) {
    return S;
  }
  if (Status S = checkRank(X, 4, "frame"))
    return S;
  if (Status S = checkRank(Y, 4, "output"))
    return S;
  const auto &O = *V.Op.options_as_PixelsToTensorOptions();
  auto F = PixelFormat(O.format());
  int Bytes = numerics::pixelBytes(F);
  if (Bytes == 0)
    return invalidModel("unknown pixel format ", int(O.format()));
  int64_t Channels = Y.dim(3);
  if (Channels != 3 && !(Channels == 1 && (F == PixelFormat::Gray8 ||
                                           F == PixelFormat::Nv21)))
    return invalidModel("a ", numerics::pixelFormatName(F),
                        " frame gives 3 channels (1 for gray8 and nv21), not ",
                        Channels);
  int64_t Height = Y.dim(1), Width = Y.dim(2);
  if (F == PixelFormat::Nv21 && (Height % 2 || Width % 2))
    return invalidModel("nv21 needs an even height and width, got ", Height,
                        "x", Width);
  if (Status S = checkShape(X,
                            {Y.dim(0), numerics::frameRows(F, Height), Width,
                             Bytes},
                            "frame"))
    return S;
  if (Status S = checkPerChannel(O.mean(), Channels, "mean"))
    return S;
  return checkPerChannel(O.scale(), Channels, "scale");
}

} // namespace kiln::rt

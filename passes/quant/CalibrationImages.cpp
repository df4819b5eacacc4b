// Images as calibration samples: the single 4-D image input they feed (its
// layout, channels and static size), the sizes check when nothing resizes,
// and decoding + preprocessing one image into a batch of 1.
#include "passes/quant/CalibrationDatasetImpl.h"

#include "Support/Error.h"
#include "Support/Image.h"

namespace kiln {

using calibration_data::DataFile;
using calibration_data::listInputs;

llvm::Error CalibrationDataset::Impl::setUpImages(const Graph &G) {
  const ImagePreprocess &P = Opts.Preprocess;
  if (G.numInputs() != 1 || InputTypes[0].rank() != 4 ||
      InputTypes[0].Elem != ElementType::F32)
    return inputError("calibration images need a model with one 4-D f32 "
                      "image input, this one has: {0}; give .npy/.npz data",
                      listInputs(G));
  const Shape &D = InputTypes[0].Dims;
  const Dim &Batch = D[0], &C = P.ChannelsLast ? D[3] : D[1];
  const Dim &H = P.ChannelsLast ? D[1] : D[2], &W = P.ChannelsLast ? D[2] : D[3];
  if (Batch.isStatic() && Batch.size() != 1)
    return inputError("model input '{0}' {1} has a fixed batch of {2}; images "
                      "are fed one at a time (export the model with batch 1 "
                      "or a dynamic batch, or give .npy data)",
                      G.input(0)->name(), toString(InputTypes[0]), Batch.size());
  if (C.isStatic() && C.size() != 1 && C.size() != 3)
    return inputError("model input '{0}' {1} has {2} channels in {3} layout; "
                      "images have 1 or 3 (is the input {4}? then give "
                      "--calib-layout {5})",
                      G.input(0)->name(), toString(InputTypes[0]), C.size(),
                      P.ChannelsLast ? "NHWC" : "NCHW",
                      P.ChannelsLast ? "NCHW" : "NHWC",
                      P.ChannelsLast ? "nchw" : "nhwc");
  Img.Channels = C.isStatic() ? int(C.size()) : 3;
  Img.Height = H.isStatic() ? H.size() : -1;
  Img.Width = W.isStatic() ? W.size() : -1;
  if (llvm::Error E = validatePreprocess(P, Img.Channels))
    return E;
  // A crop or an exact resize fixes the output size: check it right away.
  int64_t OutH = 0, OutW = 0;
  if (P.crops() || P.ResizeHeight > 0) {
    preprocessedSize(P, 1, 1, OutH, OutW);
    if ((Img.Height >= 0 && OutH != Img.Height) ||
        (Img.Width >= 0 && OutW != Img.Width))
      return usageError("calibration preprocessing gives {0}x{1} (HxW) images "
                        "but the model input '{2}' is {3}",
                        OutH, OutW, G.input(0)->name(), toString(InputTypes[0]));
  }
  if (!P.resizes() && !P.crops())
    return checkImageSizes();
  return llvm::Error::success();
}

/// Without a resize or crop, every image must have the same size, and the
/// input's size if it is static.
llvm::Error CalibrationDataset::Impl::checkImageSizes() const {
  const DataFile *First = nullptr;
  ImageSize FirstSize;
  for (const DataFile &F : Files) {
    if (F.File.Kind != CalibrationFileKind::Image)
      continue;
    auto S = readImageSize(F.File.Path);
    if (!S)
      return S.takeError();
    if (!First) {
      First = &F;
      FirstSize = *S;
      if ((Img.Height >= 0 && S->Height != Img.Height) ||
          (Img.Width >= 0 && S->Width != Img.Width))
        return inputError("{0}: the image is {1}x{2} (HxW) but the model "
                          "input is {3}; give --calib-resize and/or "
                          "--calib-crop",
                          F.File.Path, S->Height, S->Width,
                          toString(InputTypes[0]));
    } else if (S->Height != FirstSize.Height || S->Width != FirstSize.Width) {
      return inputError("calibration images have different sizes ({0} is "
                        "{1}x{2}, {3} is {4}x{5}) and no resize is given; add "
                        "--calib-resize and/or --calib-crop",
                        First->File.Path, FirstSize.Height, FirstSize.Width,
                        F.File.Path, S->Height, S->Width);
    }
  }
  return llvm::Error::success();
}

llvm::Expected<std::vector<Tensor>>
CalibrationDataset::Impl::loadImage(const DataFile &F) const {
  auto Image = readImageFile(F.File.Path, Img.Channels);
  if (!Image)
    return Image.takeError();
  int64_t H = 0, W = 0;
  auto Pixels = preprocessImage(*Image, Opts.Preprocess, F.File.Path, H, W);
  if (!Pixels)
    return Pixels.takeError();
  if ((Img.Height >= 0 && H != Img.Height) || (Img.Width >= 0 && W != Img.Width))
    return inputError("{0}: preprocessing gives a {1}x{2} (HxW) image but the "
                      "model input is {3}; give --calib-crop (or an exact "
                      "--calib-resize HxW)",
                      F.File.Path, H, W, toString(InputTypes[0]));
  int64_t C = Img.Channels;
  Shape Dims = Opts.Preprocess.ChannelsLast ? makeShape({1, H, W, C})
                                            : makeShape({1, C, H, W});
  return std::vector<Tensor>{
      Tensor::fromValues<float>(ElementType::F32, Dims, *Pixels)};
}

} // namespace kiln

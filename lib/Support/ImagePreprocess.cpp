#include "Support/ImagePreprocess.h"

#include "Support/Error.h"

#include "llvm/ADT/StringExtras.h"

#include <cmath>

namespace kiln {

static bool parsePositive(llvm::StringRef Text, int64_t &Out) {
  return !Text.trim().getAsInteger(10, Out) && Out > 0 && Out <= MaxImageSide;
}

llvm::Error parseImageSize(llvm::StringRef Text, llvm::StringRef What,
                           int64_t &Height, int64_t &Width, bool &IsPair) {
  std::string Lower = Text.lower();
  llvm::StringRef L = Lower;
  IsPair = L.contains('x');
  auto [H, W] = L.split('x');
  bool Ok = parsePositive(H, Height);
  if (Ok && IsPair)
    Ok = parsePositive(W, Width);
  else
    Width = Height;
  if (!Ok)
    return usageError("{0} '{1}': expected N or HxW with sides in 1..{2}",
                      What, Text, MaxImageSide);
  return llvm::Error::success();
}

llvm::Error parseChannelValues(llvm::StringRef Text, llvm::StringRef What,
                               std::vector<double> &Values) {
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  Text.split(Parts, ',');
  Values.clear();
  for (llvm::StringRef P : Parts) {
    double V;
    if (P.trim().getAsDouble(V) || !std::isfinite(V))
      return usageError("{0} '{1}': expected one number or one per channel, "
                        "separated by commas",
                        What, Text);
    Values.push_back(V);
  }
  return llvm::Error::success();
}

llvm::Error validatePreprocess(const ImagePreprocess &P, int Channels) {
  for (const auto *V : {&P.Mean, &P.Std})
    if (V->size() != 1 && V->size() != size_t(Channels))
      return usageError("calibration preprocessing: {0} {1} value(s) for a "
                        "{2}-channel input (give 1 or {2})",
                        V == &P.Mean ? "mean has" : "std has", V->size(),
                        Channels);
  for (double S : P.Std)
    if (!(S != 0.0) || !std::isfinite(S))
      return usageError("calibration preprocessing: std must be non-zero");
  return llvm::Error::success();
}

void preprocessedSize(const ImagePreprocess &P, int64_t InH, int64_t InW,
                      int64_t &OutH, int64_t &OutW) {
  OutH = InH;
  OutW = InW;
  if (P.ResizeHeight > 0) {
    OutH = P.ResizeHeight;
    OutW = P.ResizeWidth;
  } else if (P.ResizeShorter > 0) {
    // torchvision: the longer side is int(S * long / short), truncated.
    if (InH <= InW) {
      OutH = P.ResizeShorter;
      OutW = std::max<int64_t>(1, P.ResizeShorter * InW / InH);
    } else {
      OutW = P.ResizeShorter;
      OutH = std::max<int64_t>(1, P.ResizeShorter * InH / InW);
    }
  }
  if (P.crops()) {
    OutH = P.CropHeight;
    OutW = P.CropWidth;
  }
}

namespace {
/// Source index and weights along one axis, as PyTorch computes them (in
/// float): src = max(0, (dst + 0.5) * in / out - 0.5).
struct Tap {
  int64_t I0, I1;
  float W0, W1;
};

std::vector<Tap> taps(int64_t In, int64_t Out) {
  std::vector<Tap> T(static_cast<size_t>(Out));
  float Scale = float(In) / float(Out);
  for (int64_t D = 0; D < Out; ++D) {
    float Src = Scale * (float(D) + 0.5f) - 0.5f;
    if (Src < 0)
      Src = 0;
    int64_t I0 = std::min<int64_t>(int64_t(Src), In - 1);
    float L1 = Src - float(I0);
    T[size_t(D)] = {I0, I0 < In - 1 ? I0 + 1 : I0, 1.0f - L1, L1};
  }
  return T;
}
} // namespace

std::vector<float> resizeBilinear(const Image &Img, int64_t OutH, int64_t OutW) {
  std::vector<Tap> Rows = taps(Img.Height, OutH), Cols = taps(Img.Width, OutW);
  std::vector<float> Out(size_t(OutH * OutW * Img.Channels));
  for (int64_t Y = 0; Y < OutH; ++Y) {
    const Tap &R = Rows[size_t(Y)];
    for (int64_t X = 0; X < OutW; ++X) {
      const Tap &C = Cols[size_t(X)];
      for (int Ch = 0; Ch < Img.Channels; ++Ch) {
        float Top = C.W0 * Img.at(R.I0, C.I0, Ch) + C.W1 * Img.at(R.I0, C.I1, Ch);
        float Bot = C.W0 * Img.at(R.I1, C.I0, Ch) + C.W1 * Img.at(R.I1, C.I1, Ch);
        Out[size_t((Y * OutW + X) * Img.Channels + Ch)] = R.W0 * Top + R.W1 * Bot;
      }
    }
  }
  return Out;
}

llvm::Expected<std::vector<float>> preprocessImage(const Image &Img,
                                                   const ImagePreprocess &P,
                                                   llvm::StringRef Name,
                                                   int64_t &OutH,
                                                   int64_t &OutW) {
  // Step 1: resize (or take the pixels as they are).
  int64_t H = Img.Height, W = Img.Width;
  std::vector<float> Pixels;
  if (P.resizes()) {
    ImagePreprocess NoCrop = P;
    NoCrop.CropHeight = NoCrop.CropWidth = 0;
    preprocessedSize(NoCrop, Img.Height, Img.Width, H, W);
    // A long thin image resized by its shorter side grows without bound (a
    // 1x16384 image to a shorter side of 224 is 3.6 G floats).
    if (H * W > MaxImagePixels)
      return inputError("{0}: resizing the {1}x{2} (HxW) image gives {3}x{4}, "
                        "above kiln's limit of {5} pixels",
                        Name, Img.Height, Img.Width, H, W, MaxImagePixels);
    Pixels = resizeBilinear(Img, H, W);
  } else {
    Pixels.assign(Img.Pixels.begin(), Img.Pixels.end());
  }
  // Step 2: center crop, with torchvision's offsets round((in - crop) / 2).
  int64_t Top = 0, Left = 0;
  OutH = H;
  OutW = W;
  if (P.crops()) {
    if (P.CropHeight > H || P.CropWidth > W)
      return inputError("{0}: the image is {1}x{2} (HxW) after resizing, "
                        "smaller than the {3}x{4} crop; resize it larger "
                        "first (--calib-resize)",
                        Name, H, W, P.CropHeight, P.CropWidth);
    Top = int64_t(std::nearbyint(double(H - P.CropHeight) / 2.0));
    Left = int64_t(std::nearbyint(double(W - P.CropWidth) / 2.0));
    OutH = P.CropHeight;
    OutW = P.CropWidth;
  }
  // Steps 3 and 4: channel order, scale and normalization, layout.
  int C = Img.Channels;
  std::vector<float> Out(size_t(OutH * OutW * C));
  for (int OC = 0; OC < C; ++OC) {
    int SC = P.Bgr && C == 3 ? 2 - OC : OC;
    double Mean = P.Mean.size() == 1 ? P.Mean[0] : P.Mean[size_t(OC)];
    double Std = P.Std.size() == 1 ? P.Std[0] : P.Std[size_t(OC)];
    for (int64_t Y = 0; Y < OutH; ++Y)
      for (int64_t X = 0; X < OutW; ++X) {
        double V = Pixels[size_t(((Y + Top) * W + X + Left) * C + SC)];
        size_t Dst = P.ChannelsLast ? size_t((Y * OutW + X) * C + OC)
                                    : size_t((OC * OutH + Y) * OutW + X);
        Out[Dst] = float((V * P.Scale - Mean) / Std);
      }
  }
  return Out;
}

} // namespace kiln

#include "Support/ImagePreprocess.h"

#include "Support/Error.h"
#include "Support/FileSystem.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"

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

namespace {
/// Brackets nest at most this deep in a config (llvm::json recurses).
constexpr int MaxConfigDepth = 8;
constexpr uint64_t MaxConfigBytes = 64 * 1024;

bool nestingWithin(llvm::StringRef Text, int Limit) {
  int Depth = 0;
  bool InString = false;
  for (size_t I = 0; I < Text.size(); ++I) {
    char C = Text[I];
    if (InString) {
      if (C == '\\')
        ++I;
      else if (C == '"')
        InString = false;
    } else if (C == '"') {
      InString = true;
    } else if (C == '[' || C == '{') {
      if (++Depth > Limit)
        return false;
    } else if (C == ']' || C == '}') {
      --Depth;
    }
  }
  return true;
}

/// A size given as N or [h, w].
bool readSize(const llvm::json::Value &V, int64_t &H, int64_t &W) {
  if (auto N = V.getAsInteger()) {
    H = W = *N;
    return *N > 0 && *N <= MaxImageSide;
  }
  const llvm::json::Array *A = V.getAsArray();
  if (!A || A->size() != 2)
    return false;
  auto H0 = (*A)[0].getAsInteger(), W0 = (*A)[1].getAsInteger();
  if (!H0 || !W0)
    return false;
  H = *H0;
  W = *W0;
  return H > 0 && W > 0 && H <= MaxImageSide && W <= MaxImageSide;
}

bool readNumbers(const llvm::json::Value &V, std::vector<double> &Out) {
  Out.clear();
  if (auto D = V.getAsNumber()) {
    Out.push_back(*D);
    return std::isfinite(*D);
  }
  const llvm::json::Array *A = V.getAsArray();
  if (!A || A->empty())
    return false;
  for (const llvm::json::Value &E : *A) {
    auto D = E.getAsNumber();
    if (!D || !std::isfinite(*D))
      return false;
    Out.push_back(*D);
  }
  return true;
}
} // namespace

llvm::Error readPreprocessConfig(llvm::StringRef Path, ImagePreprocess &Into) {
  auto Buf = mapFile(Path);
  if (!Buf)
    return Buf.takeError();
  llvm::StringRef Text = (*Buf)->getBuffer();
  if (Text.size() > MaxConfigBytes)
    return inputError("{0}: the preprocessing config is {1} bytes, above the "
                      "{2}-byte limit",
                      Path, Text.size(), MaxConfigBytes);
  if (!nestingWithin(Text, MaxConfigDepth))
    return inputError("{0}: the preprocessing config nests deeper than {1}",
                      Path, MaxConfigDepth);
  auto Json = llvm::json::parse(Text);
  if (!Json)
    return inputError("{0}: not valid JSON: {1}", Path,
                      llvm::toString(Json.takeError()));
  const llvm::json::Object *O = Json->getAsObject();
  if (!O)
    return inputError("{0}: the preprocessing config must be a JSON object",
                      Path);
  auto Bad = [&](llvm::StringRef Key, llvm::StringRef Want) {
    return inputError("{0}: \"{1}\" must be {2}", Path, Key, Want);
  };
  // Keys in sorted order so that the first error reported is stable.
  std::vector<std::string> Keys;
  for (const auto &KV : *O)
    Keys.push_back(KV.first.str());
  llvm::sort(Keys);
  for (const std::string &Key : Keys) {
    const llvm::json::Value &V = *O->get(Key);
    if (Key == "resize") {
      int64_t H = 0, W = 0;
      if (!readSize(V, H, W))
        return Bad(Key, "a positive size N (the shorter side) or [h, w]");
      Into.ResizeShorter = V.getAsInteger() ? H : 0;
      Into.ResizeHeight = V.getAsInteger() ? 0 : H;
      Into.ResizeWidth = V.getAsInteger() ? 0 : W;
    } else if (Key == "crop") {
      if (!readSize(V, Into.CropHeight, Into.CropWidth))
        return Bad(Key, "a positive size N or [h, w]");
    } else if (Key == "scale") {
      auto D = V.getAsNumber();
      if (!D || !std::isfinite(*D))
        return Bad(Key, "a number");
      Into.Scale = *D;
    } else if (Key == "mean" || Key == "std") {
      if (!readNumbers(V, Key == "mean" ? Into.Mean : Into.Std))
        return Bad(Key, "a number or an array of numbers");
    } else if (Key == "channels") {
      auto S = V.getAsString();
      if (!S || (*S != "rgb" && *S != "bgr"))
        return Bad(Key, "\"rgb\" or \"bgr\"");
      Into.Bgr = *S == "bgr";
    } else if (Key == "layout") {
      auto S = V.getAsString();
      if (!S || (*S != "nchw" && *S != "nhwc"))
        return Bad(Key, "\"nchw\" or \"nhwc\"");
      Into.ChannelsLast = *S == "nhwc";
    } else {
      return inputError("{0}: unknown key \"{1}\" (known: resize, crop, scale, "
                        "mean, std, channels, layout)",
                        Path, Key);
    }
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

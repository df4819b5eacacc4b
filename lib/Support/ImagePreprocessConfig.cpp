// The preprocessing config file (`--calib-config pre.json`): a small JSON
// object, size- and depth-bounded before llvm::json (which recurses) sees it.
#include "Support/ImagePreprocess.h"

#include "Support/Error.h"
#include "Support/FileSystem.h"
#include "Support/Json.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/JSON.h"

#include <cmath>

namespace kiln {

namespace {
/// Brackets nest at most this deep in a config (llvm::json recurses).
constexpr int MaxConfigDepth = 8;
constexpr uint64_t MaxConfigBytes = 64 * 1024;

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
  if (!jsonNestingWithin(Text, MaxConfigDepth))
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

} // namespace kiln

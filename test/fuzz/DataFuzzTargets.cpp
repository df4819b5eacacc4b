#include "Accepted.h"
#include "InputFuzzTargets.h"

#include "passes/quant/CalibrationMethod.h"
#include "passes/quant/CalibrationStats.h"

#include "Support/Hash.h"
#include "Support/Image.h"
#include "Support/ImagePreprocess.h"
#include "Support/Npy.h"
#include "Support/ZipCheck.h"

#include "llvm/ADT/StringRef.h"

namespace kiln::fuzz {

namespace {

bool runNpy(llvm::StringRef Bytes) {
  if (Bytes.startswith("PK")) {
    // As `kiln run` and calibration do, a member is checked against what
    // the model can take before it is inflated: here, at most 64 MiB.
    auto Members = readNpzBuffer(
        Bytes, "fuzz.npz",
        [](llvm::StringRef Member, const NpyHeader &H) -> llvm::Error {
          if (H.DataBytes > (uint64_t(64) << 20))
            return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                           "member %s is too large",
                                           Member.str().c_str());
          return llvm::Error::success();
        });
    return accepted(Members);
  }
  auto Array = parseNpy(Bytes, "fuzz.npy", nullptr);
  return accepted(Array);
}

bool runKcal(llvm::StringRef Bytes) {
  if (Bytes.size() < 8) {
    auto Short = parseStats(Bytes, "fuzz.kcal");
    return accepted(Short);
  }
  std::string File = Bytes.drop_back(8).str();
  uint64_t Sum = contentHash(File);
  File.append(reinterpret_cast<const char *>(&Sum), sizeof Sum);
  auto S = parseStats(File, "fuzz.kcal");
  if (!accepted(S))
    return false;
  // Written again, it is the same file. Every value is checked for
  // quantizability; every method's range (histogram searches, the same
  // code for every value) is computed for the first 16 values, so that a
  // file of 20,000 values at 65,536 bins (the amplification probe) replays
  // under ASan in seconds rather than minutes.
  if (serializeStats(*S) != File)
    __builtin_trap();
  bool Usable = true;
  size_t Index = 0;
  for (const ObservedValue &V : S->Values) {
    Usable = Usable && whyNotQuantizable(V.Observer).empty();
    if (Index++ >= 16)
      continue;
    for (CalibrationMethod M :
         {CalibrationMethod::MinMax, CalibrationMethod::Percentile,
          CalibrationMethod::Entropy, CalibrationMethod::Mse}) {
      CalibrationMethodOptions O;
      O.Method = M;
      (void)chooseRange(V.Observer, O);
    }
  }
  return Usable;
}

bool runImage(llvm::StringRef Bytes) {
  bool Any = false;
  for (int Channels : {3, 1}) {
    // Up to 2^16 pixels, not 2^26: the decoders' loops are the same, and
    // the campaign keeps its pace (it fell to 130 inputs/s on the large
    // images it found: a 395-byte JPEG of a megapixel took 3.8 s).
    auto Img = decodeImage(Bytes, "fuzz.img", Channels, int64_t(1) << 16);
    if (!accepted(Img))
      continue;
    // An exact resize: by the shorter side, a thin image grows to millions
    // of pixels, legitimately and slowly (the shorter-side sizes have unit
    // tests, and a growth past the pixel limit a lit test).
    ImagePreprocess P;
    P.ResizeHeight = P.ResizeWidth = 36;
    P.CropHeight = P.CropWidth = 32;
    P.Mean = {0.485, 0.456, 0.406};
    P.Std = {0.229, 0.224, 0.225};
    if (Channels == 1)
      P.Mean = {0.5}, P.Std = {0.25};
    int64_t H = 0, W = 0;
    auto Floats = preprocessImage(*Img, P, "fuzz.img", H, W);
    Any |= accepted(Floats);
  }
  return Any;
}

bool runTorchScriptZip(llvm::StringRef Bytes) {
  return accepted(checkZipBytes(Bytes, "fuzz.pt"));
}

} // namespace

std::optional<InputKind> inputKindNamed(const std::string &Name) {
  for (InputKind K : {InputKind::Onnx, InputKind::Npy, InputKind::Image,
                      InputKind::TorchScriptZip, InputKind::Manifest,
                      InputKind::PassRecord, InputKind::Kcal})
    if (Name == inputKindName(K))
      return K;
  return std::nullopt;
}

const char *inputKindName(InputKind Kind) {
  switch (Kind) {
  case InputKind::Onnx:
    return "onnx";
  case InputKind::Npy:
    return "npy";
  case InputKind::Image:
    return "image";
  case InputKind::TorchScriptZip:
    return "torchscript-zip";
  case InputKind::Manifest:
    return "manifest";
  case InputKind::PassRecord:
    return "pass-record";
  case InputKind::Kcal:
    return "kcal";
  }
  return "?";
}

bool isDataKind(InputKind Kind) {
  return Kind != InputKind::Onnx && Kind != InputKind::Manifest &&
         Kind != InputKind::PassRecord;
}

bool runDataInput(InputKind Kind, const uint8_t *Data, size_t Size) {
  llvm::StringRef Bytes(reinterpret_cast<const char *>(Data), Size);
  switch (Kind) {
  case InputKind::Onnx:
  case InputKind::Manifest:
  case InputKind::PassRecord:
    break; // need kiln_input_fuzz_target's runInput
  case InputKind::Kcal:
    return runKcal(Bytes);
  case InputKind::Npy:
    return runNpy(Bytes);
  case InputKind::Image:
    return runImage(Bytes);
  case InputKind::TorchScriptZip:
    return runTorchScriptZip(Bytes);
  }
  return false;
}

} // namespace kiln::fuzz

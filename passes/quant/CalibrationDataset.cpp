#include "passes/quant/CalibrationDataset.h"

#include "passes/quant/CalibrationDatasetImpl.h"

#include "IR/NpyTensor.h"
#include "Support/Error.h"
#include "Support/Logging.h"
#include "Support/Npy.h"
#include "IR/FloatFormat.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>

namespace kiln {

namespace calibration_data {
std::string listInputs(const Graph &G) {
  std::string S;
  for (const Value *V : G.inputs())
    S += (S.empty() ? "" : ", ") + V->name() + " " + toString(V->type());
  return S;
}
} // namespace calibration_data

using calibration_data::ArrayPart;
using calibration_data::DataFile;
using calibration_data::listInputs;

/// How member Name of shape S holds samples of model input Want:
/// [count, ...input dims], or the input's shape with samples along the
/// batch axis. Count and Sample get the samples and one sample's shape.
static llvm::Error fitMember(llvm::StringRef Path, llvm::StringRef Name,
                             const TensorType &Want,
                             const std::vector<int64_t> &S, uint64_t &Count,
                             std::vector<int64_t> &Sample) {
  size_t R = Want.Dims.size();
  if (S.size() == R + 1) {
    Count = uint64_t(S[0]);
    Sample.assign(S.begin() + 1, S.end());
  } else if (S.size() == R && R > 0) {
    int64_t Batch = Want.Dims[0].isStatic() ? Want.Dims[0].size() : 1;
    if (Batch <= 0 || S[0] % Batch != 0)
      return inputError("{0}: '{1}' has {2} rows along the batch axis, not a "
                        "multiple of the model's batch {3}; leave the batch "
                        "open (no --input-shape: the file takes any batch), "
                        "or run `kiln calibrate` at the samples' batch and "
                        "pass its .kcal with --calib-stats",
                        Path, Name, S[0], Batch);
    Count = uint64_t(S[0] / Batch);
    Sample = S;
    Sample[0] = Batch;
  } else {
    Sample = {-1};
  }
  bool Fits = Sample.size() == R;
  for (size_t D = 0; Fits && D < R; ++D)
    Fits = !Want.Dims[D].isStatic() || Want.Dims[D].size() == Sample[D];
  if (!Fits) {
    TensorType Got(Want.Elem, makeShape(S));
    return inputError("{0}: '{1}' has shape {2}, which does not match the "
                      "model input {3}: give [count, ...input dims] or the "
                      "input's shape with samples along the batch axis",
                      Path, Name, toString(Got.Dims), toString(Want));
  }
  return llvm::Error::success();
}

/// A member's name and dtype against the model's inputs (InputTypes by
/// graph input), and its shape, from its header alone.
static llvm::Error checkMemberHeader(const Graph &G,
                                     const std::vector<TensorType> &InputTypes,
                                     llvm::StringRef Path, llvm::StringRef Name,
                                     NpyDType DType,
                                     const std::vector<int64_t> &Shape,
                                     unsigned &Input, uint64_t &Count,
                                     std::vector<int64_t> &Sample) {
  unsigned I = 0;
  while (I < G.numInputs() && G.input(I)->name() != Name)
    ++I;
  if (I == G.numInputs())
    return inputError("{0}: member '{1}' is not a model input (inputs: {2})",
                      Path, Name, listInputs(G));
  const TensorType &Want = InputTypes[I];
  if (elementTypeOf(DType) != Want.Elem)
    return inputError("{0}: '{1}' is {2} but the model input is {3} "
                      "(convert it, e.g. arr.astype(np.float32))",
                      Path, Name, npyDescr(DType), elementTypeName(Want.Elem));
  Input = I;
  return fitMember(Path, Name, Want, Shape, Count, Sample);
}

/// F's parts from Members (name -> array): one member per model input,
/// each checked and cut into samples, all with the same count.
static llvm::Error
fitMembers(const Graph &G, const std::vector<TensorType> &InputTypes,
           llvm::StringRef Path,
           std::vector<std::pair<std::string, NpyArray>> &Members,
           DataFile &F) {
  F.Parts.resize(G.numInputs());
  std::vector<bool> Seen(G.numInputs(), false);
  bool HaveCount = false;
  for (auto &[Name, Array] : Members) {
    uint64_t Count = 0;
    std::vector<int64_t> Sample;
    unsigned I = 0;
    if (llvm::Error E = checkMemberHeader(G, InputTypes, Path, Name,
                                          Array.DType, Array.Shape, I, Count,
                                          Sample))
      return E;
    if (Seen[I])
      return inputError("{0}: input '{1}' is given twice", Path, Name);
    if (HaveCount && F.Samples != Count)
      return inputError("{0}: '{1}' has {2} samples, other members {3}", Path,
                        Name, Count, F.Samples);
    Seen[I] = HaveCount = true;
    F.Samples = Count;
    size_t Bytes = npyItemSize(Array.DType);
    for (int64_t D : Sample)
      Bytes *= size_t(D);
    F.Parts[I] = {std::move(Array), Sample, Bytes};
  }
  for (unsigned I = 0; I < G.numInputs(); ++I)
    if (!Seen[I])
      return inputError("{0}: no member for model input '{1}' (an .npz needs "
                        "one member per input: {2})",
                        Path, G.input(I)->name(), listInputs(G));
  return llvm::Error::success();
}

llvm::Error CalibrationDataset::Impl::addArrays(const Graph &G, DataFile &F) {
  const std::string &Path = F.File.Path;
  std::vector<std::pair<std::string, NpyArray>> Members;
  if (F.File.Kind == CalibrationFileKind::Npy) {
    if (G.numInputs() != 1)
      return inputError("{0}: the model has {1} inputs ({2}); give an .npz "
                        "with one member per input",
                        Path, G.numInputs(), listInputs(G));
    auto A = readNpyFile(Path);
    if (!A)
      return A.takeError();
    Members.push_back({G.input(0)->name(), std::move(*A)});
  } else {
    // Each member's header is checked before its data is inflated (a
    // single-member archive of a single-input model may use any name).
    bool AnyName = G.numInputs() == 1;
    auto M = readNpzFile(Path, [&](llvm::StringRef Member, const NpyHeader &H) {
      uint64_t Count = 0;
      std::vector<int64_t> Sample;
      unsigned Input = 0;
      return checkMemberHeader(G, InputTypes, Path,
                               AnyName ? G.input(0)->name() : Member, H.DType,
                               H.Shape, Input, Count, Sample);
    });
    if (!M)
      return M.takeError();
    Members = std::move(*M);
    if (G.numInputs() == 1 && Members.size() == 1)
      Members[0].first = G.input(0)->name();
  }
  return fitMembers(G, InputTypes, Path, Members, F);
}

CalibrationDataset::CalibrationDataset(std::unique_ptr<Impl> P)
    : P(std::move(P)) {}
CalibrationDataset::~CalibrationDataset() = default;

namespace {
/// NaN and infinite elements of a floating-point tensor (0 for integers).
uint64_t nonFiniteElements(const Tensor &T) {
  const uint8_t *P = T.buffer().data();
  uint64_t N = uint64_t(T.numElements()), Bad = 0;
  auto Count = [&](auto Read, size_t Width) {
    for (uint64_t I = 0; I < N; ++I)
      Bad += !std::isfinite(Read(P + I * Width));
  };
  switch (T.type().Elem) {
  case ElementType::F32:
    Count([](const uint8_t *Q) { float F; std::memcpy(&F, Q, 4); return double(F); }, 4);
    break;
  case ElementType::F64:
    Count([](const uint8_t *Q) { double D; std::memcpy(&D, Q, 8); return D; }, 8);
    break;
  case ElementType::F16:
    Count([](const uint8_t *Q) { uint16_t H; std::memcpy(&H, Q, 2); return double(halfToFloat(H)); }, 2);
    break;
  case ElementType::BF16:
    Count([](const uint8_t *Q) { uint16_t H; std::memcpy(&H, Q, 2); return double(bf16ToFloat(H)); }, 2);
    break;
  default:
    break;
  }
  return Bad;
}

/// Refuses a sample with NaN or infinite values before any statistics see
/// it: a histogram cannot hold them, and a model calibrated around them is
/// quantized for data it will never get.
llvm::Error checkFinite(const std::vector<Tensor> &Sample,
                        llvm::ArrayRef<std::string> Names,
                        llvm::StringRef Where) {
  for (size_t K = 0; K < Sample.size(); ++K)
    if (uint64_t Bad = nonFiniteElements(Sample[K]))
      return inputError("{0}: {1} of {2} values of input '{3}' are NaN or "
                        "infinite; calibration needs finite data",
                        Where, Bad, Sample[K].numElements(),
                        K < Names.size() ? Names[K] : std::string("?"));
  return llvm::Error::success();
}

/// Finite values this large are not data: an uninitialized buffer, or a
/// mask value (-FLT_MAX) fed where activations go. An int8 range that holds
/// one leaves every ordinary value in the zero step, so the model converts
/// into one whose outputs are constant.
constexpr double ExtremeMagnitude = 1e30;

/// Elements of magnitude >= ExtremeMagnitude (0 for integer tensors), and
/// the largest magnitude among them.
uint64_t extremeElements(const Tensor &T, double &Largest) {
  if (!isFloatType(T.type().Elem))
    return 0;
  uint64_t Count = 0;
  for (int64_t I = 0, N = T.numElements(); I < N; ++I) {
    double V = std::fabs(T.asDouble(I));
    if (V >= ExtremeMagnitude && std::isfinite(V)) {
      ++Count;
      Largest = std::max(Largest, V);
    }
  }
  return Count;
}

/// Warns (once, naming the sample and input) when a sample holds extreme
/// values: kiln would otherwise calibrate around them silently.
void warnExtreme(const std::vector<Tensor> &Sample,
                 llvm::ArrayRef<std::string> Names, llvm::StringRef Where,
                 std::atomic<bool> &Warned) {
  if (Warned.load(std::memory_order_relaxed))
    return;
  for (size_t K = 0; K < Sample.size(); ++K) {
    double Largest = 0;
    uint64_t Count = extremeElements(Sample[K], Largest);
    if (Count == 0 || Warned.exchange(true))
      continue;
    log().warn("{}: {} of {} values of input '{}' have a magnitude of 1e30 "
               "or more (the largest {}); an int8 range that holds them "
               "leaves every ordinary value in its zero step. Check the "
               "data, or keep the layers that read this input float "
               "(--keep-float)",
               Where.str(), Count, Sample[K].numElements(),
               K < Names.size() ? Names[K] : std::string("?"),
               formatFloat(float(Largest)));
    return;
  }
}

std::vector<std::string> inputNames(const Graph &G) {
  std::vector<std::string> Names;
  for (const Value *V : G.inputs())
    Names.push_back(V->name());
  return Names;
}
} // namespace

llvm::Expected<std::unique_ptr<CalibrationDataset>>
CalibrationDataset::open(const Graph &G, const CalibrationDataOptions &Opts) {
  if (Opts.ShardCount == 0 || Opts.ShardIndex >= Opts.ShardCount)
    return usageError("--shard {0}/{1}: the index must be below the count",
                      Opts.ShardIndex, Opts.ShardCount);
  auto Listed = listCalibrationFiles(Opts.Path);
  if (!Listed)
    return Listed.takeError();
  if (Listed->empty())
    return inputError("{0}: no calibration data found (expected .jpg, .jpeg, "
                      ".png, .npy or .npz files)",
                      Opts.Path);
  auto I = std::make_unique<Impl>();
  I->InputNames = inputNames(G);
  I->Opts = Opts;
  for (const Value *V : G.inputs())
    I->InputTypes.push_back(V->type());
  bool HaveImages = false;
  for (CalibrationFile &F : *Listed) {
    DataFile D;
    D.File = std::move(F);
    if (D.File.Kind == CalibrationFileKind::Image) {
      D.Samples = 1;
      HaveImages = true;
    } else if (llvm::Error E = I->addArrays(G, D)) {
      return E;
    }
    I->Starts.push_back(I->Total);
    I->Total += D.Samples;
    I->Files.push_back(std::move(D));
  }
  if (HaveImages)
    if (llvm::Error E = I->setUpImages(G))
      return E;
  if (I->Total == 0)
    return inputError("{0}: the calibration arrays hold no samples", Opts.Path);
  if (Opts.Limit > 0)
    I->Total = std::min(I->Total, Opts.Limit);
  return std::unique_ptr<CalibrationDataset>(new CalibrationDataset(std::move(I)));
}

uint64_t CalibrationDataset::totalSamples() const { return P->Total; }

uint64_t CalibrationDataset::size() const {
  uint64_t I = P->Opts.ShardIndex, N = P->Opts.ShardCount;
  return I < P->Total ? (P->Total - I + N - 1) / N : 0;
}

llvm::Expected<std::vector<Tensor>> CalibrationDataset::load(uint64_t I) const {
  auto [F, Slice] = P->locate(P->Opts.ShardIndex + I * P->Opts.ShardCount);
  const DataFile &D = P->Files[F];
  if (D.File.Kind == CalibrationFileKind::Image)
    return P->loadImage(D);
  std::vector<Tensor> Out;
  for (const ArrayPart &A : D.Parts) {
    TensorType T(elementTypeOf(A.Array.DType), makeShape(A.SampleShape));
    Buffer B = Buffer::alias(A.Array.Owner, A.Array.Data + Slice * A.SampleBytes,
                             A.SampleBytes);
    Out.push_back(Tensor(std::move(T), std::move(B)));
  }
  if (llvm::Error E = checkFinite(Out, P->InputNames, describe(I)))
    return E;
  warnExtreme(Out, P->InputNames, describe(I), P->WarnedExtreme);
  return Out;
}

std::string CalibrationDataset::describe(uint64_t I) const {
  auto [F, Slice] = P->locate(P->Opts.ShardIndex + I * P->Opts.ShardCount);
  const DataFile &D = P->Files[F];
  if (D.File.Kind == CalibrationFileKind::Image)
    return D.File.Path;
  return D.File.Path + "[" + std::to_string(Slice) + "]";
}

llvm::Expected<std::vector<std::vector<Tensor>>>
splitCalibrationArrays(const Graph &G,
                       std::vector<std::pair<std::string, NpyArray>> Members,
                       llvm::StringRef Where) {
  std::vector<TensorType> InputTypes;
  for (const Value *V : G.inputs())
    InputTypes.push_back(V->type());
  if (G.numInputs() == 1 && Members.size() == 1)
    Members[0].first = G.input(0)->name(); // any name, as in a one-member .npz
  DataFile F;
  if (llvm::Error E = fitMembers(G, InputTypes, Where, Members, F))
    return E;
  std::vector<std::vector<Tensor>> Samples(F.Samples);
  for (uint64_t S = 0; S < F.Samples; ++S)
    for (const ArrayPart &A : F.Parts) {
      TensorType T(elementTypeOf(A.Array.DType), makeShape(A.SampleShape));
      Samples[S].push_back(Tensor(
          std::move(T), Buffer::alias(A.Array.Owner,
                                      A.Array.Data + S * A.SampleBytes,
                                      A.SampleBytes)));
    }
  std::vector<std::string> Names = inputNames(G);
  std::atomic<bool> Warned{false};
  for (uint64_t S = 0; S < F.Samples; ++S) {
    std::string Sample = (Where + ", sample " + llvm::Twine(S)).str();
    if (llvm::Error E = checkFinite(Samples[S], Names, Sample))
      return E;
    warnExtreme(Samples[S], Names, Sample, Warned);
  }
  return Samples;
}

llvm::Error parseShardSpec(llvm::StringRef Spec, uint32_t &Index,
                           uint32_t &Count) {
  auto [I, N] = Spec.split('/');
  if (I.trim().getAsInteger(10, Index) || N.trim().getAsInteger(10, Count) ||
      Count == 0 || Count > 65536 || Index >= Count)
    return usageError("--shard '{0}': expected i/n with 0 <= i < n <= 65536",
                      Spec);
  return llvm::Error::success();
}

} // namespace kiln

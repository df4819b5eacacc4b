#include "Driver/SelfTestBuild.h"

#include "IR/NpyTensor.h"
#include "Interpreter/Interpreter.h"
#include "Support/Error.h"
#include "Support/Npy.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"

#include <cmath>
#include <cstring>

namespace kiln {

namespace {

/// A reference holds at most this many elements of an output (every k-th
/// of a larger one): 256 KiB of floats.
constexpr uint64_t MaxReferenceElements = 65536;

/// SplitMix64 (Steele, Lea and Flood, 2014): the same values on every
/// machine and standard library, which std::uniform_real_distribution does
/// not promise.
struct SplitMix64 {
  uint64_t State;
  uint64_t next() {
    uint64_t Z = (State += 0x9e3779b97f4a7c15ULL);
    Z = (Z ^ (Z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    Z = (Z ^ (Z >> 27)) * 0x94d049bb133111ebULL;
    return Z ^ (Z >> 31);
  }
  /// Uniform in [-1, 1), a multiple of 2^-23 (exact in every float type).
  float uniform() { return float(next() >> 40) * 0x1p-23f - 1.0f; }
};

/// Generated samples: uniform [-1, 1) for float inputs, uniform bytes for
/// u8 inputs (camera frames); nothing for the rest, whose valid values
/// (token ids, indices) only the user knows.
llvm::Expected<Tensor> generateSample(const Value &In, unsigned Index,
                                      llvm::StringRef Input) {
  const TensorType &T = In.type();
  SplitMix64 Rng{0x6b696c6eULL + Index};
  int64_t N = numElements(T.Dims).getValueOr(0);
  std::vector<uint8_t> Bytes(size_t(N) * elementSize(T.Elem));
  for (int64_t I = 0; I < N; ++I) {
    uint8_t *P = Bytes.data() + size_t(I) * elementSize(T.Elem);
    switch (T.Elem) {
    case ElementType::F32: {
      float V = Rng.uniform();
      std::memcpy(P, &V, 4);
      break;
    }
    case ElementType::F64: {
      double V = Rng.uniform();
      std::memcpy(P, &V, 8);
      break;
    }
    case ElementType::F16:
    case ElementType::BF16: {
      float V = Rng.uniform();
      uint16_t H = T.Elem == ElementType::F16 ? floatToHalf(V) : floatToBf16(V);
      std::memcpy(P, &H, 2);
      break;
    }
    case ElementType::U8:
      *P = uint8_t(Rng.next() >> 56);
      break;
    default:
      return usageError("{0}: --self-test cannot make up values for input "
                        "'{1}' ({2}): give a sample with --self-test-input "
                        "{1}=FILE.npy",
                        Input, In.name(), toString(T));
    }
  }
  return Tensor(T, Buffer::own(std::move(Bytes))); // quantization and all
}

/// The --self-test-input files by input name.
llvm::Error readSamples(const SelfTestFlags &F, const Graph &G,
                        llvm::StringMap<Tensor> &ByName) {
  for (llvm::StringRef Arg : F.Inputs) {
    auto [Name, Path] = Arg.split('=');
    if (!Arg.contains('=')) {
      Path = Name;
      Name = "";
    }
    if (Path.endswith(".npz")) {
      auto Members = readNpzFile(Path);
      if (!Members)
        return Members.takeError();
      for (auto &[Key, Arr] : *Members)
        ByName[Key] = tensorFromNpy(Arr);
      continue;
    }
    if (Name.empty()) {
      if (G.numInputs() != 1)
        return usageError("--self-test-input {0}: the model has {1} inputs; "
                          "write NAME=FILE.npy",
                          Arg, G.numInputs());
      Name = G.input(0)->name();
    }
    auto Arr = readNpyFile(Path);
    if (!Arr)
      return Arr.takeError();
    ByName[Name] = tensorFromNpy(*Arr);
  }
  return llvm::Error::success();
}

/// Each input's sample, in graph-input order.
llvm::Expected<std::vector<Tensor>> samplesFor(const Graph &G,
                                               const SelfTestFlags &F,
                                               llvm::StringRef Input) {
  llvm::StringMap<Tensor> Given;
  if (llvm::Error E = readSamples(F, G, Given))
    return E;
  for (const auto &KV : Given)
    if (llvm::none_of(G.inputs(), [&](const Value *In) {
          return In->name() == KV.getKey();
        }))
      return usageError("--self-test-input: the model has no input named "
                        "'{0}'",
                        KV.getKey());
  std::vector<Tensor> Samples;
  for (unsigned I = 0; I < G.numInputs(); ++I) {
    const Value &In = *G.input(I);
    const TensorType &T = In.type();
    if (!T.isStatic())
      return usageError("{0}: --self-test needs static inputs, and '{1}' is "
                        "{2}; fix its shape with --input-shape",
                        Input, In.name(), toString(T));
    auto It = Given.find(In.name());
    if (It == Given.end()) {
      auto S = generateSample(In, I, Input);
      if (!S)
        return S.takeError();
      Samples.push_back(std::move(*S));
      continue;
    }
    const TensorType &Got = It->second.type();
    if (Got.Elem != T.Elem || Got.Dims != T.Dims)
      return inputError("--self-test-input: the sample of '{0}' is {1}, and "
                        "the model takes {2}",
                        In.name(), toString(Got), toString(T));
    // The input's own type: a quantized input keeps its parameters.
    Samples.push_back(Tensor(T, It->second.buffer()));
  }
  return Samples;
}

/// The value a caller reads for element I of T (quantized: dequantized,
/// per tensor or per slice of its axis, as the runtime compares it).
double callerValue(const Tensor &T, int64_t I) {
  double V = T.asDouble(I);
  const auto &Q = T.type().Quant;
  if (!Q || Q->Scales.empty())
    return V;
  size_t K = 0;
  if (Q->isPerAxis()) {
    std::vector<int64_t> Sizes = staticSizes(T.type().Dims);
    int64_t Inner = 1;
    for (size_t D = Sizes.size(); D-- > size_t(Q->Axis) + 1;)
      Inner *= Sizes[D];
    K = size_t((I / Inner) % Sizes[size_t(Q->Axis)]);
  }
  return (V - double(Q->ZeroPoints[K])) * double(Q->Scales[K]);
}

const char *precisionName(QuantizeMode Mode) {
  switch (Mode) {
  case QuantizeMode::None:
    return "fp32";
  case QuantizeMode::Fp16:
    return "fp16";
  case QuantizeMode::Int8Dynamic:
    return "int8-dynamic";
  case QuantizeMode::Int8:
    return "int8";
  }
  return "?";
}

} // namespace

llvm::Error checkSelfTestFlags(const SelfTestFlags &F) {
  if (!F.Enabled && (!F.Inputs.empty() || F.Tolerance))
    return usageError("--self-test-input and --self-test-tolerance describe "
                      "a self-test: add --self-test");
  if (F.Tolerance && (!(*F.Tolerance >= 0) || !std::isfinite(*F.Tolerance)))
    return usageError("--self-test-tolerance {0}: expected a finite number "
                      ">= 0",
                      llvm::format("%g", *F.Tolerance));
  return llvm::Error::success();
}

double defaultSelfTestTolerance(QuantizeMode Mode, bool Integer) {
  switch (Mode) {
  case QuantizeMode::None:
    return Integer ? 0.0 : 1e-3;
  case QuantizeMode::Fp16:
    return Integer ? 0.01 : 3e-2;
  case QuantizeMode::Int8Dynamic:
  case QuantizeMode::Int8:
    return Integer ? 0.02 : 0.1;
  }
  return 0;
}

llvm::Expected<SelfTestRecord> buildSelfTest(const Graph &G,
                                             const SelfTestFlags &F,
                                             QuantizeMode Mode,
                                             llvm::StringRef Input) {
  auto Samples = samplesFor(G, F, Input);
  if (!Samples)
    return Samples.takeError();
  // One thread: the matrix products' blocking depends on the thread count,
  // and the file must not depend on the machine that wrote it.
  InterpreterOptions IO;
  IO.Threads = 1;
  Interpreter Interp(G, IO);
  auto Outputs = Interp.run(*Samples);
  if (!Outputs)
    return addContext(Outputs.takeError(),
                      Input.str() + ": --self-test's reference run");
  SelfTestRecord R;
  for (const Tensor &S : *Samples)
    R.Inputs.push_back(S.buffer());
  for (unsigned I = 0; I < G.outputs().size(); ++I) {
    const Tensor &T = (*Outputs)[I];
    int64_t N = T.numElements();
    SelfTestRecord::Output O;
    O.Stride = std::max<uint64_t>(
        1, (uint64_t(N) + MaxReferenceElements - 1) / MaxReferenceElements);
    int64_t NonFinite = 0;
    for (int64_t K = 0; K < N; K += int64_t(O.Stride)) {
      double V = callerValue(T, K);
      NonFinite += !std::isfinite(float(V)); // f64 past FLT_MAX too
      O.Reference.push_back(float(V));
      O.Peak = std::max(O.Peak, float(std::fabs(V)));
    }
    if (NonFinite)
      return inputError("{0}: --self-test: output '{1}' is not finite in {2} "
                        "of {3} elements for the sample; give a sample it is "
                        "finite for with --self-test-input",
                        Input, G.outputs()[I]->name(), NonFinite,
                        O.Reference.size());
    bool Integer = !isFloatType(T.type().Elem) && !T.type().Quant;
    double Rel = F.Tolerance ? *F.Tolerance
                             : defaultSelfTestTolerance(Mode, Integer);
    // A float output's tolerance is relative to its peak magnitude, with a
    // floor for an output that is (nearly) all zeros.
    O.Tolerance = float(Integer ? Rel : Rel * std::max(double(O.Peak), 1e-3));
    R.Outputs.push_back(std::move(O));
  }
  R.Description = llvm::formatv(
      "kiln's interpreter on the optimized graph ({0}); samples: {1}",
      precisionName(Mode),
      F.Inputs.empty() ? "generated (floats uniform in [-1, 1), bytes "
                         "uniform; SplitMix64)"
                       : "given (--self-test-input), the rest generated");
  return R;
}

} // namespace kiln

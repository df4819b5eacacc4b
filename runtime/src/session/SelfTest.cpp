#include "session/SelfTest.h"

#include "session/Session.h"

#include "numerics/FloatConversions.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

namespace kiln::rt {

namespace {

/// The index along T's quantization axis of element I (row-major).
size_t axisIndex(const TensorDesc &T, uint64_t I) {
  uint64_t Inner = 1;
  for (int64_t D = T.rank() - 1; D > T.QuantAxis; --D)
    Inner *= uint64_t(T.dim(D));
  return size_t((I / Inner) % uint64_t(T.dim(T.QuantAxis)));
}

/// Element I of a tensor of type T, as a double (quantized: dequantized,
/// per tensor or per slice of its axis, as the reference was).
double elementValue(const TensorDesc &T, const uint8_t *Data, uint64_t I) {
  auto Load = [&](auto Zero) {
    decltype(Zero) V;
    std::memcpy(&V, Data + I * sizeof V, sizeof V);
    return V;
  };
  double V = 0;
  switch (T.DType) {
  case fb::DType::F32: V = Load(float()); break;
  case fb::DType::F64: V = Load(double()); break;
  case fb::DType::F16: V = numerics::halfToFloat(Load(uint16_t())); break;
  case fb::DType::BF16: V = numerics::bf16ToFloat(Load(uint16_t())); break;
  case fb::DType::I64: V = double(Load(int64_t())); break;
  case fb::DType::I32: V = Load(int32_t()); break;
  case fb::DType::I16: V = Load(int16_t()); break;
  case fb::DType::I8: V = Load(int8_t()); break;
  case fb::DType::U64: V = double(Load(uint64_t())); break;
  case fb::DType::U32: V = Load(uint32_t()); break;
  case fb::DType::U16: V = Load(uint16_t()); break;
  case fb::DType::U8: V = Load(uint8_t()); break;
  case fb::DType::BOOL: V = Load(uint8_t()) != 0; break;
  default: break;
  }
  if (T.isQuantized()) {
    size_t K = T.QuantAxis < 0 ? 0 : axisIndex(T, I);
    V = (V - double(T.ZeroPoints[K])) * double(T.Scales[K]);
  }
  return V;
}

bool isFloatOutput(const TensorDesc &T) {
  switch (T.DType) {
  case fb::DType::F32:
  case fb::DType::F64:
  case fb::DType::F16:
  case fb::DType::BF16:
    return true;
  default:
    return T.isQuantized(); // compared as the reals they stand for
  }
}

struct OutputError {
  double Error = 0;
  size_t Compared = 0, NonFinite = 0;
};

/// Float outputs: max |output - reference|, infinite where the output is
/// not finite and the reference is. Integer outputs: the fraction of
/// elements that differ.
OutputError compareOutput(const TensorDesc &T, const uint8_t *Data,
                          const float *Reference, uint64_t Stride) {
  OutputError E;
  bool Float = isFloatOutput(T);
  size_t Differ = 0;
  for (uint64_t I = 0, K = 0; I < T.Elements; I += Stride, ++K) {
    double Got = elementValue(T, Data, I), Want = double(Reference[K]);
    ++E.Compared;
    if (!Float) { // the reference holds the integer as a float32
      Differ += float(Got) != float(Want);
      continue;
    }
    if (!std::isfinite(Got) && std::isfinite(Want)) {
      ++E.NonFinite;
      E.Error = INFINITY;
      continue;
    }
    double D = std::fabs(Got - Want);
    if (D > E.Error || std::isnan(D))
      E.Error = std::isnan(D) ? INFINITY : D;
  }
  if (!Float)
    E.Error = E.Compared ? double(Differ) / double(E.Compared) : 0;
  return E;
}

/// Copies of every output's bytes after a run.
Status captureOutputs(const Session &S, std::vector<std::vector<uint8_t>> &Out) {
  Out.resize(S.model().Outputs.size());
  for (size_t I = 0; I < Out.size(); ++I) {
    const void *Data = nullptr;
    size_t Bytes = 0;
    if (Status St = S.output(I, &Data, &Bytes))
      return St;
    const auto *P = static_cast<const uint8_t *>(Data);
    Out[I].assign(P, P + Bytes);
  }
  return Status::ok();
}

} // namespace

Status runSelfTest(Session &S, SelfTestOutcome &Out) {
  const LoadedModel &LM = S.model();
  const fb::SelfTest *T = LM.Root->self_test();
  if (!T)
    return invalidArgument("the model has no self-test (convert it with "
                           "kiln convert --self-test)");
  // The loader checked the samples' and references' sizes against the
  // model as loaded (a self-test file is static, so the session's too).
  for (size_t I = 0; I < LM.Inputs.size(); ++I) {
    const fb::Buffer *B = LM.Root->buffers()->Get(
        unsigned(T->inputs()->Get(unsigned(I))));
    if (Status St = S.setInput(I, LM.Bytes->data() + B->offset(),
                               size_t(B->size())))
      return St;
  }
  auto Start = std::chrono::steady_clock::now();
  if (Status St = S.run())
    return St;
  Out = SelfTestOutcome();
  Out.RunMs = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - Start)
                  .count();
  std::vector<std::vector<uint8_t>> First, Second;
  if (Status St = captureOutputs(S, First))
    return St;
  if (Status St = S.run())
    return St;
  if (Status St = captureOutputs(S, Second))
    return St;
  Out.Deterministic = First == Second;

  bool WithinTolerance = true;
  std::pair<bool, double> WorstRank(false, 0.0);
  for (size_t I = 0; I < LM.Outputs.size(); ++I) {
    const TensorDesc &D = LM.Tensors[size_t(LM.Outputs[I])];
    const fb::SelfTestOutput *R = T->outputs()->Get(unsigned(I));
    const fb::Buffer *B = LM.Root->buffers()->Get(unsigned(R->reference()));
    // Segments are 64-byte aligned in an aligned mapping: floats in place.
    const auto *Reference =
        reinterpret_cast<const float *>(LM.Bytes->data() + B->offset());
    OutputError E = compareOutput(D, First[I].data(), Reference, R->stride());
    Out.Compared += E.Compared;
    Out.NonFinite += E.NonFinite;
    double Tolerance = double(R->tolerance());
    bool Within = E.Error <= Tolerance;
    WithinTolerance &= Within;
    // The worst output: a failing one before any within its tolerance,
    // then by error over tolerance.
    std::pair<bool, double> Rank(!Within,
                                 E.Error / std::max(Tolerance, 1e-30));
    if (I == 0 || Rank > WorstRank) {
      WorstRank = Rank;
      Out.WorstOutput = I;
      Out.MaxError = E.Error;
      Out.Tolerance = Tolerance;
      Out.RelativeError = isFloatOutput(D) && R->peak() > 0
                              ? E.Error / double(R->peak())
                              : E.Error;
    }
  }
  Out.Passed = WithinTolerance && Out.Deterministic;
  return Status::ok();
}

} // namespace kiln::rt

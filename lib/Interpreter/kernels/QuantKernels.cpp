// quantize / dequantize, per tensor (one scale) or per axis (a 1-D scale with
// one entry per slice along `axis`), as ONNX QuantizeLinear/DequantizeLinear:
//   q = saturate(round_half_even(x / scale) + zero_point)
//   x = (q - zero_point) * scale
// The quantized type is the zero point's, or `to` when it is absent. x / scale
// is computed in x's precision (f32 for f32 input, as the ONNX reference
// does), so ties round the same way. NaN quantizes to the zero point.
// dynamic_quantize follows the ONNX DynamicQuantizeLinear reference (f32
// arithmetic); an all-zero input, where that scale would be 0, gets scale 1.
#include "Interpreter/KernelSupport.h"

#include "IR/ShapeInference.h"

#include <cmath>

namespace kiln {

namespace {

/// Scales and zero points, one per channel (a single one when per tensor),
/// and the [Outer, Channels, Inner] layout of the data around the axis.
struct QuantLayout {
  std::vector<double> Scales;
  std::vector<int64_t> ZeroPoints;
  int64_t Outer = 1, Channels = 1, Inner = 1;
};

llvm::Expected<QuantLayout> layoutOf(const KernelContext &Ctx, const Tensor &X) {
  const Tensor &S = *Ctx.input(1);
  const Tensor *Z = Ctx.input(2);
  QuantLayout L;
  int64_t NS = S.numElements();
  if (S.type().rank() > 1 || NS == 0)
    return inputError("scale must be a scalar or 1-D, got {0}",
                      toString(S.type()));
  if (Z && Z->numElements() != NS)
    return inputError("zero point {0} does not match scale {1}",
                      toString(Z->type()), toString(S.type()));
  for (int64_t I = 0; I < NS; ++I) {
    L.Scales.push_back(S.asDouble(I));
    L.ZeroPoints.push_back(Z ? Z->asInt(I) : 0);
  }
  std::vector<int64_t> Sizes = sizesOf(X);
  int64_t Total = X.numElements();
  if (NS == 1) {
    L.Inner = Total;
    return L;
  }
  auto Axis = normalizeAxis(Ctx.N.getInt("axis"), int64_t(Sizes.size()));
  if (!Axis)
    return Axis.takeError();
  L.Channels = Sizes[size_t(*Axis)];
  if (L.Channels != NS)
    return inputError("{0} scales for axis {1} of size {2}", NS, *Axis,
                      L.Channels);
  for (size_t D = size_t(*Axis) + 1; D < Sizes.size(); ++D)
    L.Inner *= Sizes[D];
  int64_t Slice = L.Channels * L.Inner;
  L.Outer = Slice != 0 ? Total / Slice : 0;
  return L;
}

/// Calls Fn(Channel, Begin, End) for each run of elements sharing a channel.
template <typename F> void forEachChannelRun(const QuantLayout &L, F &&Fn) {
  for (int64_t O = 0; O < L.Outer; ++O)
    for (int64_t C = 0; C < L.Channels; ++C) {
      int64_t B = (O * L.Channels + C) * L.Inner;
      Fn(C, B, B + L.Inner);
    }
}

llvm::Error quantizeKernel(KernelContext &Ctx) {
  Tensor X = widenToF32(*Ctx.input(0));
  const Tensor *Z = Ctx.input(2);
  ElementType QE;
  if (Z) {
    QE = Z->type().Elem;
  } else {
    auto P = parseElementType(Ctx.N.getString("to"));
    if (!P)
      return inputError("unknown element type '{0}'", Ctx.N.getString("to"));
    QE = *P;
  }
  auto L = layoutOf(Ctx, X);
  if (!L)
    return L.takeError();
  for (double S : L->Scales)
    if (!(S > 0) && !(S < 0))
      return inputError("quantization scale must be non-zero, got {0}", S);
  Tensor Out = makeTensor(QE, sizesOf(X));
  auto Body = [&](auto XTag) -> llvm::Error {
    using F = typename decltype(XTag)::type;
    return visitInt(QE, [&](auto QTag) -> llvm::Error {
      using Q = typename decltype(QTag)::type;
      const F *In = dataAs<F>(X);
      Q *O = mutableData<Q>(Out);
      const F Lo = F(std::numeric_limits<Q>::lowest());
      const F Hi = F(std::numeric_limits<Q>::max());
      forEachChannelRun(*L, [&](int64_t C, int64_t B, int64_t E) {
        F Scale = F(L->Scales[size_t(C)]);
        F Zp = F(L->ZeroPoints[size_t(C)]);
        for (int64_t I = B; I < E; ++I) {
          // nearbyint rounds half to even in the default rounding mode.
          F V = std::nearbyint(In[I] / Scale) + Zp;
          O[I] = isNaN(V) ? saturateCast<Q>(double(Zp))
                          : saturateCast<Q>(double(V < Lo ? Lo : V > Hi ? Hi : V));
        }
      });
      return llvm::Error::success();
    });
  };
  if (auto E = visitFloat(X.type().Elem, Body))
    return E;
  Ctx.Outputs.push_back(std::move(Out));
  return llvm::Error::success();
}

llvm::Error dequantizeKernel(KernelContext &Ctx) {
  const Tensor &Q = *Ctx.input(0);
  const Tensor *Z = Ctx.input(2);
  if (Z && Z->type().Elem != Q.type().Elem)
    return inputError("zero point {0} must have the input's type {1}",
                      toString(Z->type()), elementTypeName(Q.type().Elem));
  ElementType OutE = Ctx.input(1)->type().Elem;
  if (!isFloatType(OutE))
    return inputError("scale must be floating point, got {0}",
                      toString(Ctx.input(1)->type()));
  auto L = layoutOf(Ctx, Q);
  if (!L)
    return L.takeError();
  ElementType ComputeE = OutE == ElementType::F64 ? OutE : ElementType::F32;
  Tensor Out = makeTensor(ComputeE, sizesOf(Q));
  auto Body = [&](auto QTag) -> llvm::Error {
    using QT = typename decltype(QTag)::type;
    return visitFloat(ComputeE, [&](auto FTag) -> llvm::Error {
      using F = typename decltype(FTag)::type;
      const QT *In = dataAs<QT>(Q);
      F *O = mutableData<F>(Out);
      forEachChannelRun(*L, [&](int64_t C, int64_t B, int64_t E) {
        F Scale = F(L->Scales[size_t(C)]);
        int64_t Zp = L->ZeroPoints[size_t(C)];
        for (int64_t I = B; I < E; ++I)
          O[I] = F(int64_t(In[I]) - Zp) * Scale;
      });
      return llvm::Error::success();
    });
  };
  if (auto E = visitInt(Q.type().Elem, Body))
    return E;
  Ctx.Outputs.push_back(narrowFromF32(Out, OutE));
  return llvm::Error::success();
}

llvm::Error dynamicQuantizeKernel(KernelContext &Ctx) {
  Tensor X = widenToF32(*Ctx.input(0));
  if (X.type().Elem != ElementType::F32)
    return unsupportedType(X.type().Elem);
  bool Signed = Ctx.N.getString("to") == "i8";
  const float QMin = Signed ? -128.f : 0.f, QMax = Signed ? 127.f : 255.f;
  const float *In = dataAs<float>(X);
  float Lo = 0, Hi = 0; // the range always holds 0
  for (int64_t I = 0; I < X.numElements(); ++I)
    if (!isNaN(In[I])) {
      Lo = std::min(Lo, In[I]);
      Hi = std::max(Hi, In[I]);
    }
  float Scale = (Hi - Lo) / (QMax - QMin);
  if (!(Scale > 0) || !std::isfinite(Scale))
    Scale = 1.0f;
  float Zp = std::nearbyint(std::min(std::max(QMin - Lo / Scale, QMin), QMax));
  ElementType QE = Signed ? ElementType::I8 : ElementType::U8;
  Tensor Out = makeTensor(QE, sizesOf(X));
  auto Store = [&](auto QTag) -> llvm::Error {
    using Q = typename decltype(QTag)::type;
    Q *O = mutableData<Q>(Out);
    for (int64_t I = 0; I < X.numElements(); ++I) {
      float V = std::nearbyint(In[I] / Scale) + Zp;
      O[I] = isNaN(V) ? Q(Zp) : Q(std::min(std::max(V, QMin), QMax));
    }
    return llvm::Error::success();
  };
  if (llvm::Error E = visitInt(QE, Store))
    return E;
  Tensor ZpT = makeTensor(QE, {});
  if (Signed)
    *mutableData<int8_t>(ZpT) = int8_t(Zp);
  else
    *mutableData<uint8_t>(ZpT) = uint8_t(Zp);
  Ctx.Outputs.push_back(std::move(Out));
  Ctx.Outputs.push_back(Tensor::scalar(ElementType::F32, double(Scale)));
  Ctx.Outputs.push_back(std::move(ZpT));
  return llvm::Error::success();
}

} // namespace

void registerQuantKernels() {
  registerKernel("quantize", quantizeKernel);
  registerKernel("dequantize", dequantizeKernel);
  registerKernel("dynamic_quantize", dynamicQuantizeKernel);
}

} // namespace kiln

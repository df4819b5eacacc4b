// NN kernels of the reference interpreter: registerNNKernels() registers the
// conv, matmul, norm, pooling and resize kernels of the sibling files, and
// this file holds the shared dtype dispatch plus the small kernels:
//
//   softmax(x)_i     = exp(x_i - m) / sum_j exp(x_j - m),  m = max_j x_j
//   log_softmax(x)_i = x_i - m - log(sum_j exp(x_j - m))
//     (along one axis; subtracting the max keeps exp from overflowing)
//   depth_to_space DCR: y[n, c, h*b+i, w*b+j] = x[n, (i*b+j)*C' + c, h, w]
//   depth_to_space CRD: y[n, c, h*b+i, w*b+j] = x[n, c*b*b + i*b + j, h, w]
//   space_to_depth:     y[n, (i*b+j)*C + c, h, w] = x[n, c, h*b+i, w*b+j]
//   dropout (inference, or ratio 0): y = x, mask = all true; training mode
//   draws the mask like the ONNX reference (numpy's MT19937), see below.
#include "Interpreter/kernels/NNKernels.h"

#include "IR/ShapeInference.h"
#include "Support/Error.h"

#include <algorithm>
#include <random>
#include <cmath>

namespace kiln {
namespace nn {

llvm::Error unsupportedType(const KernelContext &Ctx) {
  const Tensor *X = Ctx.input(0);
  return inputError("{0} does not support element type {1}", Ctx.N.opName(),
                    X ? elementTypeName(X->type().Elem) : "<none>");
}

static bool isHalfLike(ElementType E) {
  return E == ElementType::F16 || E == ElementType::BF16;
}

llvm::Error runWidened(KernelContext &Ctx, KernelImpl Fn) {
  std::vector<Tensor> Wide;
  Wide.reserve(Ctx.Inputs.size());
  KernelContext Inner{Ctx.N, {}, {}, Ctx.Pool};
  for (const Tensor *In : Ctx.Inputs) {
    if (!In || !isHalfLike(In->type().Elem)) {
      Inner.Inputs.push_back(In);
      continue;
    }
    bool Half = In->type().Elem == ElementType::F16;
    Tensor W = makeTensor(ElementType::F32, sizesOf(*In));
    float *D = mutableData<float>(W);
    for (int64_t I = 0, E = In->numElements(); I < E; ++I) {
      uint16_t Bits = In->at<uint16_t>(I);
      D[I] = Half ? halfToFloat(Bits) : bf16ToFloat(Bits);
    }
    Wide.push_back(std::move(W));
    Inner.Inputs.push_back(&Wide.back());
  }
  if (auto E = Fn(Inner))
    return E;
  Ctx.Outputs.clear();
  for (unsigned R = 0; R < Inner.Outputs.size(); ++R) {
    Tensor &Out = Inner.Outputs[R];
    ElementType Declared = R < Ctx.N.numResults()
                               ? Ctx.N.result(R)->type().Elem
                               : Out.type().Elem;
    if (Out.type().Elem != ElementType::F32 || !isHalfLike(Declared)) {
      Ctx.Outputs.push_back(std::move(Out));
      continue;
    }
    Tensor Narrow = makeTensor(Declared, sizesOf(Out));
    uint16_t *D = mutableData<uint16_t>(Narrow);
    const float *S = dataAs<float>(Out);
    for (int64_t I = 0, E = Out.numElements(); I < E; ++I)
      D[I] = Declared == ElementType::F16 ? floatToHalf(S[I])
                                          : floatToBf16(S[I]);
    Ctx.Outputs.push_back(std::move(Narrow));
  }
  return llvm::Error::success();
}

llvm::Error dispatchFloat(KernelContext &Ctx, KernelImpl F32, KernelImpl F64) {
  const Tensor *X = Ctx.input(0);
  if (!X)
    return inputError("{0}: missing operand 0", Ctx.N.opName());
  switch (X->type().Elem) {
  case ElementType::F32:
    return F32(Ctx);
  case ElementType::F64:
    return F64(Ctx);
  case ElementType::F16:
  case ElementType::BF16:
    return runWidened(Ctx, F32);
  default:
    return unsupportedType(Ctx);
  }
}

int64_t product(const std::vector<int64_t> &Sizes, size_t Begin, size_t End) {
  int64_t P = 1;
  for (size_t I = Begin; I < End && I < Sizes.size(); ++I)
    P *= Sizes[I];
  return P;
}

llvm::Expected<WindowParams> readWindow(const Node &N, size_t NumSpatial,
                                        bool HasDilations) {
  WindowParams W;
  auto Strides = spatialAttr(N, "strides", NumSpatial, 1);
  if (!Strides)
    return Strides.takeError();
  W.Strides = *Strides;
  if (HasDilations) {
    auto Dil = spatialAttr(N, "dilations", NumSpatial, 1);
    if (!Dil)
      return Dil.takeError();
    W.Dilations = *Dil;
  } else {
    W.Dilations.assign(NumSpatial, 1);
  }
  auto Pads = padsAttr(N, NumSpatial);
  if (!Pads)
    return Pads.takeError();
  W.PadBegin.assign(Pads->begin(), Pads->begin() + NumSpatial);
  W.PadEnd.assign(Pads->begin() + NumSpatial, Pads->end());
  for (size_t I = 0; I < NumSpatial; ++I)
    if (W.Strides[I] < 1 || W.Dilations[I] < 1 || W.PadBegin[I] < 0 ||
        W.PadEnd[I] < 0)
      return inputError("strides and dilations must be >= 1 and pads >= 0");
  return W;
}

std::vector<int64_t> windowOrigins(const std::vector<int64_t> &Grid,
                                   const WindowParams &W) {
  size_t NS = Grid.size();
  int64_t Count = product(Grid, 0, NS);
  std::vector<int64_t> Base(NS * size_t(Count)), Coord(NS, 0);
  for (int64_t P = 0; P < Count; ++P) {
    for (size_t D = 0; D < NS; ++D)
      Base[D * size_t(Count) + size_t(P)] =
          Coord[D] * W.Strides[D] - W.PadBegin[D];
    for (size_t D = NS; D-- > 0;) {
      if (++Coord[D] < Grid[D])
        break;
      Coord[D] = 0;
    }
  }
  return Base;
}

void decode(int64_t Flat, const std::vector<int64_t> &Grid,
            std::vector<int64_t> &Coord) {
  for (size_t D = Grid.size(); D-- > 0;) {
    Coord[D] = Flat % Grid[D];
    Flat /= Grid[D];
  }
}

} // namespace nn

//===-- softmax / log_softmax ----------------------------------------------===//

template <typename T, bool Log> static llvm::Error softmax(KernelContext &Ctx) {
  const Tensor &X = *Ctx.input(0);
  std::vector<int64_t> Sizes = sizesOf(X);
  auto Axis = normalizeAxis(Ctx.N.getInt("axis"), int64_t(Sizes.size()));
  if (!Axis)
    return Axis.takeError();
  int64_t Outer = nn::product(Sizes, 0, size_t(*Axis));
  int64_t Len = Sizes[size_t(*Axis)];
  int64_t Inner = nn::product(Sizes, size_t(*Axis) + 1, Sizes.size());
  Tensor Y = makeTensor(X.type().Elem, Sizes);
  const T *In = dataAs<T>(X);
  T *Out = mutableData<T>(Y);
  Ctx.Pool.parallelFor(Outer * Inner, 64, [&](int64_t Begin, int64_t End) {
    for (int64_t R = Begin; R < End; ++R) {
      int64_t Base = (R / Inner) * Len * Inner + R % Inner;
      T Max = In[Base];
      for (int64_t I = 1; I < Len; ++I)
        Max = std::max(Max, In[Base + I * Inner]);
      T Sum = 0;
      for (int64_t I = 0; I < Len; ++I) {
        T E = std::exp(In[Base + I * Inner] - Max);
        Sum += E;
        if (!Log)
          Out[Base + I * Inner] = E;
      }
      if (Log) {
        T LogSum = std::log(Sum);
        for (int64_t I = 0; I < Len; ++I)
          Out[Base + I * Inner] = In[Base + I * Inner] - Max - LogSum;
      } else {
        for (int64_t I = 0; I < Len; ++I)
          Out[Base + I * Inner] /= Sum;
      }
    }
  });
  Ctx.Outputs.push_back(std::move(Y));
  return llvm::Error::success();
}

//===-- depth_to_space / space_to_depth (any element type) -----------------===//

static llvm::Error depthSpace(KernelContext &Ctx) {
  const Tensor &X = *Ctx.input(0);
  std::vector<int64_t> S = sizesOf(X);
  if (S.size() != 4)
    return inputError("{0} needs a 4-D NCHW input", Ctx.N.opName());
  int64_t B = Ctx.N.getInt("blocksize");
  bool ToSpace = Ctx.N.isOp("depth_to_space");
  if (B < 1 || (ToSpace && S[1] % (B * B)) ||
      (!ToSpace && (S[2] % B || S[3] % B)))
    return inputError("{0}: blocksize {1} does not divide input {2}x{3}x{4}",
                      Ctx.N.opName(), B, S[1], S[2], S[3]);
  bool CRD = ToSpace && Ctx.N.getString("mode") == "CRD";
  // Work in the "small" spatial frame: Cs channels of Hs x Ws on the space
  // side, Cs*B*B channels of Hs x Ws... on the depth side.
  int64_t N = S[0];
  int64_t Cs = ToSpace ? S[1] / (B * B) : S[1]; // channels on the space side
  int64_t H = ToSpace ? S[2] : S[2] / B, W = ToSpace ? S[3] : S[3] / B;
  std::vector<int64_t> OutSizes =
      ToSpace ? std::vector<int64_t>{N, Cs, H * B, W * B}
              : std::vector<int64_t>{N, Cs * B * B, H, W};
  Tensor Y = makeTensor(X.type().Elem, OutSizes);
  size_t ES = elementSize(X.type().Elem);
  const uint8_t *In = X.buffer().data();
  uint8_t *Out = mutableData<uint8_t>(Y);
  Ctx.Pool.parallelFor(N * Cs, 1, [&](int64_t Begin, int64_t End) {
    for (int64_t NC = Begin; NC < End; ++NC) {
      int64_t Nn = NC / Cs, C = NC % Cs;
      for (int64_t I = 0; I < B; ++I)
        for (int64_t J = 0; J < B; ++J) {
          int64_t DC = CRD ? C * B * B + I * B + J : (I * B + J) * Cs + C;
          for (int64_t Hh = 0; Hh < H; ++Hh)
            for (int64_t Ww = 0; Ww < W; ++Ww) {
              int64_t Deep = ((Nn * Cs * B * B + DC) * H + Hh) * W + Ww;
              int64_t Wide =
                  ((Nn * Cs + C) * H * B + Hh * B + I) * W * B + Ww * B + J;
              int64_t Src = ToSpace ? Deep : Wide, Dst = ToSpace ? Wide : Deep;
              std::memcpy(Out + Dst * ES, In + Src * ES, ES);
            }
        }
    }
  });
  Ctx.Outputs.push_back(std::move(Y));
  return llvm::Error::success();
}

//===-- dropout ------------------------------------------------------------===//

// Training mode reproduces the ONNX reference bit for bit. It draws the mask
// with numpy's legacy generator: np.random.seed(seed) is MT19937's
// init_genrand (exactly what std::mt19937(seed) does), and each
// np.random.uniform(0, 1) sample is ((a >> 5) * 2^26 + (b >> 6)) / 2^53 from
// two successive 32-bit outputs a, b. Kept elements are scaled by
// 1 / (1 - ratio), computed in float as numpy does for a float32 ratio.
template <typename T>
static void trainingDropout(const Tensor &X, double Ratio, int64_t Seed,
                            Tensor &Y, uint8_t *Mask) {
  std::mt19937 Gen{static_cast<uint32_t>(Seed)};
  const T *In = dataAs<T>(X);
  T *Out = mutableData<T>(Y);
  T Scale = T(1) / (T(1) - T(Ratio));
  for (int64_t I = 0, E = X.numElements(); I < E; ++I) {
    uint32_t A = Gen() >> 5, B = Gen() >> 6;
    double U = (double(A) * 67108864.0 + double(B)) / 9007199254740992.0;
    bool Keep = U >= Ratio;
    Out[I] = Keep ? In[I] * Scale : T(0) * In[I];
    if (Mask)
      Mask[I] = Keep;
  }
}

static llvm::Error dropout(KernelContext &Ctx) {
  const Tensor &X = *Ctx.input(0);
  double Ratio = Ctx.N.getFloat("ratio");
  if (!nn::isAbsent(Ctx.input(1)))
    Ratio = Ctx.input(1)->asDouble(0);
  bool Training = !nn::isAbsent(Ctx.input(2)) && Ctx.input(2)->asInt(0) != 0;
  if (Training && Ratio > 0) {
    if (Ratio >= 1)
      return inputError("dropout ratio {0} must be below 1", Ratio);
    ElementType E = X.type().Elem;
    if (E != ElementType::F32 && E != ElementType::F64)
      return inputError("training-mode dropout supports f32 and f64, got {0}",
                        elementTypeName(E));
    Tensor Y = makeTensor(E, sizesOf(X));
    Tensor Mask = makeTensor(ElementType::Bool, sizesOf(X));
    int64_t Seed = Ctx.N.getInt("seed");
    if (E == ElementType::F32)
      trainingDropout<float>(X, Ratio, Seed, Y, mutableData<uint8_t>(Mask));
    else
      trainingDropout<double>(X, Ratio, Seed, Y, mutableData<uint8_t>(Mask));
    Ctx.Outputs.push_back(std::move(Y));
    if (Ctx.N.numResults() > 1)
      Ctx.Outputs.push_back(std::move(Mask));
    return llvm::Error::success();
  }
  Ctx.Outputs.push_back(Tensor(X.type(), X.buffer()));
  if (Ctx.N.numResults() > 1) {
    Tensor Mask = makeTensor(ElementType::Bool, sizesOf(X));
    std::memset(mutableData<uint8_t>(Mask), 1, size_t(Mask.numElements()));
    Ctx.Outputs.push_back(std::move(Mask));
  }
  return llvm::Error::success();
}

void registerNNKernels() {
  registerConvKernels();
  registerMatMulKernels();
  registerNormKernels();
  registerPoolKernels();
  registerResizeKernels();
  registerImageKernels();
  registerDetectionKernels();
  registerRecurrentKernels();
  registerKernel("softmax", [](KernelContext &C) {
    return nn::dispatchFloat(C, softmax<float, false>, softmax<double, false>);
  });
  registerKernel("log_softmax", [](KernelContext &C) {
    return nn::dispatchFloat(C, softmax<float, true>, softmax<double, true>);
  });
  registerKernel("depth_to_space", depthSpace);
  registerKernel("space_to_depth", depthSpace);
  registerKernel("dropout", dropout);
}

} // namespace kiln

// Normalization kernels of the reference interpreter (ONNX semantics; the
// statistics are accumulated in double whatever the element type):
//
//   batch_norm (inference): y = (x - mean[c]) / sqrt(var[c] + eps) * scale[c]
//                               + bias[c]
//   batch_norm (training=1): the same with the batch statistics of channel c
//     over N and the spatial axes, mu = E[x], s2 = E[(x - mu)^2] (population
//     variance, as ONNX BatchNormalization-15). Results 2 and 3, when the node
//     has them: running_mean = mean * momentum + mu * (1 - momentum), and
//     running_var = var * momentum + s2 * (1 - momentum).
//   instance_norm: per (n, c), over the spatial axes:
//     y = scale[c] * (x - mu) / sqrt(s2 + eps) + bias[c]
//   layer_norm: rows = prod(dims[:axis]), cols = prod(dims[axis:]); per row
//     y = (x - mu) * inv_std * scale + bias, inv_std = 1 / sqrt(s2 + eps);
//     optional results mean and inv_std_dev have shape dims[:axis] + 1s.
//   lrn: square_sum[n, c, ...] = sum of x[n, i, ...]^2 over
//     i in [max(0, c - floor((size-1)/2)), min(C-1, c + ceil((size-1)/2))];
//     y = x / (bias + alpha / size * square_sum)^beta.
#include "Interpreter/kernels/NNKernels.h"

#include "IR/ShapeInference.h"
#include "Support/Error.h"

#include <cmath>

namespace kiln {

namespace {

/// A per-channel parameter with C values (or one, broadcast).
template <typename T>
llvm::Expected<std::vector<T>> channelParam(const KernelContext &Ctx,
                                            unsigned I, int64_t C) {
  const Tensor *P = Ctx.input(I);
  if (!P)
    return inputError("{0}: operand {1} is missing", Ctx.N.opName(), I);
  std::vector<T> V = nn::valuesAs<T>(*P);
  if (V.size() == 1 && C != 1)
    V.assign(size_t(C), V[0]);
  if (int64_t(V.size()) != C)
    return inputError("{0}: operand {1} has {2} values for {3} channels",
                      Ctx.N.opName(), I, V.size(), C);
  return V;
}

/// Writes Values into a new tensor of element type Elem (float or double).
Tensor statTensor(ElementType Elem, const std::vector<int64_t> &Sizes,
                  const std::vector<double> &Values) {
  bool Double = Elem == ElementType::F64;
  Tensor T = makeTensor(Double ? ElementType::F64 : ElementType::F32, Sizes);
  for (size_t I = 0; I < Values.size(); ++I) {
    if (Double)
      mutableData<double>(T)[I] = Values[I];
    else
      mutableData<float>(T)[I] = float(Values[I]);
  }
  return T;
}

template <typename T> llvm::Error batchNorm(KernelContext &Ctx) {
  const Tensor &X = *Ctx.input(0);
  std::vector<int64_t> S = sizesOf(X);
  if (S.size() < 2)
    return inputError("batch_norm input must have rank >= 2");
  int64_t N = S[0], C = S[1], Inner = nn::product(S, 2, S.size());
  auto Scale = channelParam<T>(Ctx, 1, C), Bias = channelParam<T>(Ctx, 2, C);
  auto Mean = channelParam<double>(Ctx, 3, C);
  auto Var = channelParam<double>(Ctx, 4, C);
  if (!Scale) return Scale.takeError();
  if (!Bias) return Bias.takeError();
  if (!Mean) return Mean.takeError();
  if (!Var) return Var.takeError();
  double Eps = Ctx.N.getFloat("epsilon");
  bool Training = Ctx.N.getInt("training") != 0;
  const T *XD = dataAs<T>(X);
  std::vector<double> Mu = *Mean, S2 = *Var;
  if (Training) {
    Ctx.Pool.parallelFor(C, 1, [&](int64_t Begin, int64_t End) {
      for (int64_t Ch = Begin; Ch < End; ++Ch) {
        double Sum = 0, SumSq = 0;
        for (int64_t Nn = 0; Nn < N; ++Nn)
          for (const T *P = XD + (Nn * C + Ch) * Inner, *E = P + Inner; P < E;
               ++P)
            Sum += double(*P);
        double Count = double(N * Inner), M = Count > 0 ? Sum / Count : 0;
        for (int64_t Nn = 0; Nn < N; ++Nn)
          for (const T *P = XD + (Nn * C + Ch) * Inner, *E = P + Inner; P < E;
               ++P)
            SumSq += (double(*P) - M) * (double(*P) - M);
        Mu[size_t(Ch)] = M;
        S2[size_t(Ch)] = Count > 0 ? SumSq / Count : 0;
      }
    });
  }
  Tensor Y = makeTensor(X.type().Elem, S);
  T *YD = mutableData<T>(Y);
  Ctx.Pool.parallelFor(N * C, 1, [&](int64_t Begin, int64_t End) {
    for (int64_t NC = Begin; NC < End; ++NC) {
      size_t Ch = size_t(NC % C);
      T Mul = T((*Scale)[Ch] / std::sqrt(S2[Ch] + Eps));
      T Add = T((*Bias)[Ch] - Mu[Ch] * double(Mul));
      const T *In = XD + NC * Inner;
      T *Out = YD + NC * Inner;
      for (int64_t I = 0; I < Inner; ++I)
        Out[I] = In[I] * Mul + Add;
    }
  });
  Ctx.Outputs.push_back(std::move(Y));
  double Momentum = Ctx.N.getFloat("momentum");
  for (unsigned R = 1; R < Ctx.N.numResults(); ++R) {
    if (!Training)
      return inputError("batch_norm with {0} results needs training=1",
                        Ctx.N.numResults());
    const std::vector<double> &Run = R == 1 ? *Mean : *Var;
    const std::vector<double> &Cur = R == 1 ? Mu : S2;
    std::vector<double> V(static_cast<size_t>(C));
    for (size_t Ch = 0; Ch < V.size(); ++Ch)
      V[Ch] = Run[Ch] * Momentum + Cur[Ch] * (1 - Momentum);
    Ctx.Outputs.push_back(
        statTensor(Ctx.input(R + 2)->type().Elem, {C}, V));
  }
  return llvm::Error::success();
}

/// Normalizes Rows independent rows of Cols values: y = (x - mu) * inv_std *
/// scale + bias, where scale/bias are indexed by ParamIndex(row, col).
template <typename T, typename ParamFn>
void normalizeRows(KernelContext &Ctx, const T *X, T *Y, int64_t Rows,
                   int64_t Cols, double Eps, std::vector<double> &Mean,
                   std::vector<double> &InvStd, ParamFn Affine) {
  Ctx.Pool.parallelFor(Rows, 1, [&](int64_t Begin, int64_t End) {
    for (int64_t R = Begin; R < End; ++R) {
      const T *In = X + R * Cols;
      double Sum = 0, SumSq = 0;
      for (int64_t I = 0; I < Cols; ++I)
        Sum += double(In[I]);
      double Mu = Cols ? Sum / double(Cols) : 0;
      for (int64_t I = 0; I < Cols; ++I)
        SumSq += (double(In[I]) - Mu) * (double(In[I]) - Mu);
      double Inv = 1 / std::sqrt((Cols ? SumSq / double(Cols) : 0) + Eps);
      Mean[size_t(R)] = Mu;
      InvStd[size_t(R)] = Inv;
      for (int64_t I = 0; I < Cols; ++I)
        Y[R * Cols + I] = Affine(R, I, T((double(In[I]) - Mu) * Inv));
    }
  });
}

template <typename T> llvm::Error instanceNorm(KernelContext &Ctx) {
  const Tensor &X = *Ctx.input(0);
  std::vector<int64_t> S = sizesOf(X);
  if (S.size() < 3)
    return inputError("instance_norm input must have rank >= 3");
  int64_t C = S[1], Rows = S[0] * C, Cols = nn::product(S, 2, S.size());
  auto Scale = channelParam<T>(Ctx, 1, C), Bias = channelParam<T>(Ctx, 2, C);
  if (!Scale) return Scale.takeError();
  if (!Bias) return Bias.takeError();
  Tensor Y = makeTensor(X.type().Elem, S);
  std::vector<double> Mean(static_cast<size_t>(Rows)),
      InvStd(static_cast<size_t>(Rows));
  normalizeRows<T>(Ctx, dataAs<T>(X), mutableData<T>(Y), Rows, Cols,
                   Ctx.N.getFloat("epsilon"), Mean, InvStd,
                   [&](int64_t R, int64_t, T V) {
                     size_t Ch = size_t(R % C);
                     return V * (*Scale)[Ch] + (*Bias)[Ch];
                   });
  Ctx.Outputs.push_back(std::move(Y));
  return llvm::Error::success();
}

template <typename T> llvm::Error layerNorm(KernelContext &Ctx) {
  const Tensor &X = *Ctx.input(0);
  std::vector<int64_t> S = sizesOf(X);
  auto Axis = normalizeAxis(Ctx.N.getInt("axis"), int64_t(S.size()));
  if (!Axis)
    return Axis.takeError();
  int64_t Rows = nn::product(S, 0, size_t(*Axis));
  int64_t Cols = nn::product(S, size_t(*Axis), S.size());
  std::vector<T> Scale = nn::valuesAs<T>(*Ctx.input(1)), Bias;
  if (!nn::isAbsent(Ctx.input(2)))
    Bias = nn::valuesAs<T>(*Ctx.input(2));
  for (const std::vector<T> *P : {&Scale, &Bias})
    if (!P->empty() && int64_t(P->size()) != Cols && P->size() != 1)
      return inputError("layer_norm scale/bias have {0} values, expected {1} "
                        "(the normalized dims)",
                        P->size(), Cols);
  Tensor Y = makeTensor(X.type().Elem, S);
  std::vector<double> Mean(static_cast<size_t>(Rows)),
      InvStd(static_cast<size_t>(Rows));
  normalizeRows<T>(Ctx, dataAs<T>(X), mutableData<T>(Y), Rows, Cols,
                   Ctx.N.getFloat("epsilon"), Mean, InvStd,
                   [&](int64_t, int64_t I, T V) {
                     V *= Scale[Scale.size() == 1 ? 0 : size_t(I)];
                     if (!Bias.empty())
                       V += Bias[Bias.size() == 1 ? 0 : size_t(I)];
                     return V;
                   });
  Ctx.Outputs.push_back(std::move(Y));
  std::vector<int64_t> StatSizes = S;
  for (size_t I = size_t(*Axis); I < StatSizes.size(); ++I)
    StatSizes[I] = 1;
  for (unsigned R = 1; R < Ctx.N.numResults(); ++R)
    Ctx.Outputs.push_back(statTensor(Ctx.N.result(R)->type().Elem, StatSizes,
                                     R == 1 ? Mean : InvStd));
  return llvm::Error::success();
}

template <typename T> llvm::Error lrn(KernelContext &Ctx) {
  const Tensor &X = *Ctx.input(0);
  std::vector<int64_t> S = sizesOf(X);
  if (S.size() < 2)
    return inputError("lrn input must have rank >= 2");
  int64_t Size = Ctx.N.getInt("size");
  if (Size < 1)
    return inputError("lrn size must be >= 1, got {0}", Size);
  double Alpha = Ctx.N.getFloat("alpha"), Beta = Ctx.N.getFloat("beta");
  double Bias = Ctx.N.getFloat("bias");
  int64_t C = S[1], Inner = nn::product(S, 2, S.size());
  int64_t Lo = (Size - 1) / 2, Hi = Size - 1 - Lo; // floor, ceil of (size-1)/2
  Tensor Y = makeTensor(X.type().Elem, S);
  const T *XD = dataAs<T>(X);
  T *YD = mutableData<T>(Y);
  Ctx.Pool.parallelFor(S[0] * C, 1, [&](int64_t Begin, int64_t End) {
    for (int64_t NC = Begin; NC < End; ++NC) {
      int64_t Nn = NC / C, Ch = NC % C;
      int64_t C0 = std::max<int64_t>(0, Ch - Lo);
      int64_t C1 = std::min<int64_t>(C - 1, Ch + Hi);
      for (int64_t I = 0; I < Inner; ++I) {
        double Sq = 0;
        for (int64_t K = C0; K <= C1; ++K) {
          double V = double(XD[(Nn * C + K) * Inner + I]);
          Sq += V * V;
        }
        YD[NC * Inner + I] =
            T(double(XD[NC * Inner + I]) /
              std::pow(Bias + Alpha / double(Size) * Sq, Beta));
      }
    }
  });
  Ctx.Outputs.push_back(std::move(Y));
  return llvm::Error::success();
}

} // namespace

void registerNormKernels() {
  registerKernel("batch_norm", [](KernelContext &C) {
    return nn::dispatchFloat(C, batchNorm<float>, batchNorm<double>);
  });
  registerKernel("instance_norm", [](KernelContext &C) {
    return nn::dispatchFloat(C, instanceNorm<float>, instanceNorm<double>);
  });
  registerKernel("layer_norm", [](KernelContext &C) {
    return nn::dispatchFloat(C, layerNorm<float>, layerNorm<double>);
  });
  registerKernel("lrn", [](KernelContext &C) {
    return nn::dispatchFloat(C, lrn<float>, lrn<double>);
  });
}

} // namespace kiln

// Pooling kernels of the reference interpreter (ONNX MaxPool/AveragePool
// semantics), N-d over NCHW, one (n, c) plane per work item:
//
//   window of output o along axis d: i = o*s - padBegin + k*dil, k < kernel;
//   only positions inside the input take part. The output size is
//   slidingOutputSize (ceil_mode keeps a last window that starts inside the
//   input or the begin padding).
//   max_pool:  y = max over the window. The optional indices result is the
//     position of the first maximum in the flattened input, (n*C + c)*prod(In)
//     + spatial offset, where the spatial offset is row-major (storage_order
//     0) or column-major (storage_order 1: sum i_d * prod(In[0..d))).
//     Works on float and integer element types (u8, i8, i32, i64).
//   avg_pool:  y = sum / count. count_include_pad=0: count is the number of
//     window positions inside the input; =1: the number inside the padded
//     input [-padBegin, In + padEnd) (as ONNX Runtime and PyTorch: positions
//     past the padded input, which only ceil_mode creates, never count).
//     A window with nothing to average gives 0.
//   global_avg_pool / global_max_pool: mean / max over all spatial axes.
#include "Interpreter/kernels/NNKernels.h"

#include "IR/OpRegistry.h"
#include "IR/ShapeInference.h"
#include "Support/Error.h"

#include <algorithm>
#include <limits>

namespace kiln {

namespace {

struct PoolGeom {
  std::vector<int64_t> Sizes, In, K, Out;
  nn::WindowParams W;
  int64_t Planes = 0, InP = 1, KP = 1, OutP = 1;
  std::vector<int64_t> Base;   // window origins, see nn::windowOrigins
  std::vector<int64_t> KOff;   // KOff[d * KP + k] = k_d * dilation_d
};

llvm::Expected<PoolGeom> readPool(const KernelContext &Ctx) {
  PoolGeom G;
  G.Sizes = sizesOf(*Ctx.input(0));
  if (G.Sizes.size() < 3)
    return inputError("pooling input must have rank >= 3");
  size_t NS = G.Sizes.size() - 2;
  G.K = Ctx.N.getInts("kernel");
  if (G.K.size() != NS)
    return inputError("'kernel' has {0} values for {1} spatial axes",
                      G.K.size(), NS);
  auto W = nn::readWindow(Ctx.N, NS,
                          Ctx.N.def().findAttr("dilations") != nullptr);
  if (!W)
    return W.takeError();
  G.W = std::move(*W);
  bool Ceil = Ctx.N.getInt("ceil_mode") != 0;
  G.In.assign(G.Sizes.begin() + 2, G.Sizes.end());
  for (size_t D = 0; D < NS; ++D) {
    if (G.K[D] < 1)
      return inputError("kernel sizes must be >= 1");
    G.Out.push_back(slidingOutputSize(G.In[D], G.K[D], G.W.Strides[D],
                                      G.W.PadBegin[D], G.W.PadEnd[D],
                                      G.W.Dilations[D], Ceil));
  }
  G.Planes = G.Sizes[0] * G.Sizes[1];
  G.InP = nn::product(G.In, 0, NS);
  G.KP = nn::product(G.K, 0, NS);
  G.OutP = nn::product(G.Out, 0, NS);
  G.Base = nn::windowOrigins(G.Out, G.W);
  G.KOff.resize(NS * size_t(G.KP));
  std::vector<int64_t> Kc(NS);
  for (int64_t K = 0; K < G.KP; ++K) {
    nn::decode(K, G.K, Kc);
    for (size_t D = 0; D < NS; ++D)
      G.KOff[D * size_t(G.KP) + size_t(K)] = Kc[D] * G.W.Dilations[D];
  }
  return G;
}

std::vector<int64_t> pooledSizes(const PoolGeom &G) {
  std::vector<int64_t> S = {G.Sizes[0], G.Sizes[1]};
  S.insert(S.end(), G.Out.begin(), G.Out.end());
  return S;
}

/// Calls Fn(row-major offset, coords) for every window position of output P
/// that lies inside the input.
template <typename FnT>
void forWindow(const PoolGeom &G, int64_t P, std::vector<int64_t> &Coord,
               FnT Fn) {
  size_t NS = G.In.size();
  for (int64_t K = 0; K < G.KP; ++K) {
    int64_t Off = 0;
    bool Inside = true;
    for (size_t D = 0; D < NS; ++D) {
      int64_t I = G.Base[D * size_t(G.OutP) + size_t(P)] +
                  G.KOff[D * size_t(G.KP) + size_t(K)];
      if (I < 0 || I >= G.In[D]) {
        Inside = false;
        break;
      }
      Coord[D] = I;
      Off = Off * G.In[D] + I;
    }
    if (Inside)
      Fn(Off, Coord);
  }
}

/// max_pool of one 2-D plane without indices, in direct loops: the same
/// window positions in the same order (row-major, inside the input only) and
/// the same rule (the first one, then any strictly greater) as forWindow,
/// which calibration would otherwise run through for every output.
template <typename T>
void maxPoolPlane2D(const PoolGeom &G, const T *Xp, T *Yp) {
  const int64_t IH = G.In[0], IW = G.In[1], KH = G.K[0], KW = G.K[1];
  const int64_t OW = G.Out[1], SH = G.W.Strides[0], SW = G.W.Strides[1];
  const int64_t DH = G.W.Dilations[0], DW = G.W.Dilations[1];
  for (int64_t Oh = 0; Oh < G.Out[0]; ++Oh)
    for (int64_t Ow = 0; Ow < OW; ++Ow) {
      const int64_t H0 = Oh * SH - G.W.PadBegin[0];
      const int64_t W0 = Ow * SW - G.W.PadBegin[1];
      T Best = std::numeric_limits<T>::lowest();
      bool First = true;
      for (int64_t Kh = 0; Kh < KH; ++Kh) {
        const int64_t Ih = H0 + Kh * DH;
        if (Ih < 0 || Ih >= IH)
          continue;
        for (int64_t Kw = 0; Kw < KW; ++Kw) {
          const int64_t Iw = W0 + Kw * DW;
          if (Iw < 0 || Iw >= IW)
            continue;
          const T V = Xp[Ih * IW + Iw];
          if (First || V > Best)
            Best = V;
          First = false;
        }
      }
      Yp[Oh * OW + Ow] = Best;
    }
}

template <typename T> llvm::Error maxPool(KernelContext &Ctx) {
  auto GOr = readPool(Ctx);
  if (!GOr)
    return GOr.takeError();
  const PoolGeom &G = *GOr;
  bool WantIndices = Ctx.N.numResults() > 1;
  bool ColMajor = Ctx.N.getInt("storage_order") != 0;
  size_t NS = G.In.size();
  std::vector<int64_t> ColStride(NS, 1);
  for (size_t D = 1; D < NS; ++D)
    ColStride[D] = ColStride[D - 1] * G.In[D - 1];
  Tensor Y = makeTensor(Ctx.input(0)->type().Elem, pooledSizes(G));
  Tensor Idx = makeTensor(ElementType::I64,
                          WantIndices ? pooledSizes(G) : std::vector<int64_t>{0});
  const T *X = dataAs<T>(*Ctx.input(0));
  T *YD = mutableData<T>(Y);
  int64_t *ID = mutableData<int64_t>(Idx);
  Ctx.Pool.parallelFor(G.Planes, 1, [&](int64_t Begin, int64_t End) {
    std::vector<int64_t> Coord(NS);
    for (int64_t Plane = Begin; Plane < End; ++Plane) {
      const T *Xp = X + Plane * G.InP;
      if (NS == 2 && !WantIndices) {
        maxPoolPlane2D(G, Xp, YD + Plane * G.OutP);
        continue;
      }
      for (int64_t P = 0; P < G.OutP; ++P) {
        T Best = std::numeric_limits<T>::lowest();
        int64_t BestOff = -1;
        std::vector<int64_t> BestCoord;
        forWindow(G, P, Coord, [&](int64_t Off, const std::vector<int64_t> &C) {
          if (BestOff < 0 || Xp[Off] > Best) {
            Best = Xp[Off];
            BestOff = Off;
            if (ColMajor)
              BestCoord = C;
          }
        });
        YD[Plane * G.OutP + P] = Best;
        if (!WantIndices)
          continue;
        int64_t Spatial = BestOff;
        if (ColMajor && BestOff >= 0) {
          Spatial = 0;
          for (size_t D = 0; D < NS; ++D)
            Spatial += BestCoord[D] * ColStride[D];
        }
        ID[Plane * G.OutP + P] = BestOff < 0 ? -1 : Plane * G.InP + Spatial;
      }
    }
  });
  Ctx.Outputs.push_back(std::move(Y));
  if (WantIndices)
    Ctx.Outputs.push_back(std::move(Idx));
  return llvm::Error::success();
}

template <typename T> llvm::Error avgPool(KernelContext &Ctx) {
  auto GOr = readPool(Ctx);
  if (!GOr)
    return GOr.takeError();
  const PoolGeom &G = *GOr;
  bool IncludePad = Ctx.N.getInt("count_include_pad") != 0;
  size_t NS = G.In.size();
  // With count_include_pad the divisor depends only on the output position:
  // prod_d |[o*s - padBegin, +kernel) clipped to [-padBegin, In + padEnd)|.
  std::vector<double> PadCount;
  if (IncludePad) {
    PadCount.assign(size_t(G.OutP), 1.0);
    for (int64_t P = 0; P < G.OutP; ++P)
      for (size_t D = 0; D < NS; ++D) {
        int64_t S = G.Base[D * size_t(G.OutP) + size_t(P)];
        int64_t E = std::min(S + G.K[D], G.In[D] + G.W.PadEnd[D]);
        PadCount[size_t(P)] *= double(std::max<int64_t>(0, E - S));
      }
  }
  Tensor Y = makeTensor(Ctx.input(0)->type().Elem, pooledSizes(G));
  const T *X = dataAs<T>(*Ctx.input(0));
  T *YD = mutableData<T>(Y);
  Ctx.Pool.parallelFor(G.Planes, 1, [&](int64_t Begin, int64_t End) {
    std::vector<int64_t> Coord(NS);
    for (int64_t Plane = Begin; Plane < End; ++Plane) {
      const T *Xp = X + Plane * G.InP;
      for (int64_t P = 0; P < G.OutP; ++P) {
        double Sum = 0;
        int64_t Count = 0;
        forWindow(G, P, Coord, [&](int64_t Off, const std::vector<int64_t> &) {
          Sum += double(Xp[Off]);
          ++Count;
        });
        double Div = IncludePad ? PadCount[size_t(P)] : double(Count);
        YD[Plane * G.OutP + P] = Div > 0 ? T(Sum / Div) : T(0);
      }
    }
  });
  Ctx.Outputs.push_back(std::move(Y));
  return llvm::Error::success();
}

template <typename T, bool Max> llvm::Error globalPool(KernelContext &Ctx) {
  const Tensor &X = *Ctx.input(0);
  std::vector<int64_t> S = sizesOf(X);
  if (S.size() < 3)
    return inputError("pooling input must have rank >= 3");
  int64_t Planes = S[0] * S[1], Inner = nn::product(S, 2, S.size());
  std::vector<int64_t> OutSizes = S;
  std::fill(OutSizes.begin() + 2, OutSizes.end(), 1);
  Tensor Y = makeTensor(X.type().Elem, OutSizes);
  const T *XD = dataAs<T>(X);
  T *YD = mutableData<T>(Y);
  Ctx.Pool.parallelFor(Planes, 1, [&](int64_t Begin, int64_t End) {
    for (int64_t Plane = Begin; Plane < End; ++Plane) {
      const T *P = XD + Plane * Inner;
      if (Max) {
        YD[Plane] = Inner ? *std::max_element(P, P + Inner) : T(0);
      } else {
        double Sum = 0;
        for (int64_t I = 0; I < Inner; ++I)
          Sum += double(P[I]);
        YD[Plane] = Inner ? T(Sum / double(Inner)) : T(0);
      }
    }
  });
  Ctx.Outputs.push_back(std::move(Y));
  return llvm::Error::success();
}

/// Max-style kernels also run on integer tensors.
template <template <typename> class K>
llvm::Error dispatchMax(KernelContext &Ctx) {
  switch (Ctx.input(0)->type().Elem) {
  case ElementType::U8:
    return K<uint8_t>::run(Ctx);
  case ElementType::I8:
    return K<int8_t>::run(Ctx);
  case ElementType::I32:
    return K<int32_t>::run(Ctx);
  case ElementType::I64:
    return K<int64_t>::run(Ctx);
  default:
    return nn::dispatchFloat(Ctx, K<float>::run, K<double>::run);
  }
}

template <typename T> struct MaxPoolK {
  static llvm::Error run(KernelContext &C) { return maxPool<T>(C); }
};
template <typename T> struct GlobalMaxK {
  static llvm::Error run(KernelContext &C) { return globalPool<T, true>(C); }
};

} // namespace

void registerPoolKernels() {
  registerKernel("max_pool", dispatchMax<MaxPoolK>);
  registerKernel("global_max_pool", dispatchMax<GlobalMaxK>);
  registerKernel("avg_pool", [](KernelContext &C) {
    return nn::dispatchFloat(C, avgPool<float>, avgPool<double>);
  });
  registerKernel("global_avg_pool", [](KernelContext &C) {
    return nn::dispatchFloat(C, globalPool<float, false>,
                             globalPool<double, false>);
  });
}

} // namespace kiln

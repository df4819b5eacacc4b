// The host NNAPI device: shared kernel helpers, the dispatch, and the
// operations that only move elements (any element type), with the resizes
// (float and quantized alike).
#include "HostDevice.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace kiln::nnapi;
using namespace kiln::nnapi::host;

namespace kiln::nnapi::host {

int32_t OpContext::i32(size_t I) const {
  int32_t V;
  std::memcpy(&V, inData(I), 4);
  return V;
}
float OpContext::f32(size_t I) const {
  float V;
  std::memcpy(&V, inData(I), 4);
  return V;
}
bool OpContext::b(size_t I) const { return inData(I)[0] != 0; }
std::vector<int32_t> OpContext::ints(size_t I) const {
  std::vector<int32_t> V(in(I).elementCount());
  if (!V.empty())
    std::memcpy(V.data(), inData(I), V.size() * 4);
  return V;
}

bool broadcastDims(const std::vector<uint32_t> &A,
                   const std::vector<uint32_t> &B, std::vector<uint32_t> &Out) {
  const size_t R = std::max(A.size(), B.size());
  Out.assign(R, 1);
  for (size_t I = 0; I < R; ++I) {
    uint32_t DA = I < R - A.size() ? 1 : A[I - (R - A.size())];
    uint32_t DB = I < R - B.size() ? 1 : B[I - (R - B.size())];
    if (DA != DB && DA != 1 && DB != 1)
      return false;
    Out[I] = DA == 1 ? DB : DA;
  }
  return true;
}

std::vector<size_t> broadcastIndices(const std::vector<uint32_t> &In,
                                     const std::vector<uint32_t> &Out) {
  const size_t R = Out.size();
  // Strides of In aligned to Out's trailing dims; 0 where broadcast.
  std::vector<size_t> Stride(R, 0);
  size_t S = 1;
  for (size_t I = 0; I < In.size(); ++I) {
    size_t InAxis = In.size() - 1 - I, OutAxis = R - 1 - I;
    Stride[OutAxis] = In[InAxis] == 1 ? 0 : S;
    S *= In[InAxis];
  }
  size_t Numel = 1;
  for (uint32_t D : Out)
    Numel *= D;
  std::vector<size_t> Result(Numel);
  std::vector<uint32_t> Coord(R, 0);
  size_t Offset = 0;
  for (size_t K = 0; K < Numel; ++K) {
    Result[K] = Offset;
    for (size_t A = R; A-- > 0;) {
      ++Coord[A];
      Offset += Stride[A];
      if (Coord[A] < Out[A])
        break;
      Offset -= Stride[A] * Coord[A];
      Coord[A] = 0;
    }
  }
  return Result;
}

void floatActivationRange(int32_t Fuse, float &Lo, float &Hi) {
  Lo = -INFINITY;
  Hi = INFINITY;
  if (Fuse == FUSED_RELU) {
    Lo = 0;
  } else if (Fuse == FUSED_RELU1) {
    Lo = -1;
    Hi = 1;
  } else if (Fuse == FUSED_RELU6) {
    Lo = 0;
    Hi = 6;
  }
}

void quantTypeRange(int32_t Type, int32_t &Lo, int32_t &Hi) {
  if (Type == TENSOR_QUANT8_ASYMM) {
    Lo = 0;
    Hi = 255;
  } else {
    Lo = -128;
    Hi = 127;
  }
}

int32_t quantizeValue(const Operand &O, float X) {
  int32_t Lo, Hi;
  quantTypeRange(O.Type, Lo, Hi);
  // AOSP's Quantize.cpp: in float.
  const float Q = std::round(X / O.Scale) + float(O.ZeroPoint);
  return int32_t(std::clamp(Q, float(Lo), float(Hi)));
}

void quantActivationRange(int32_t Fuse, const Operand &Out, int32_t &Lo,
                          int32_t &Hi) {
  quantTypeRange(Out.Type, Lo, Hi);
  // AOSP's CalculateActivationRangeUint8: the bounds quantized in float.
  auto Q = [&](float X) {
    return Out.ZeroPoint + int32_t(std::round(X / Out.Scale));
  };
  if (Fuse == FUSED_RELU) {
    Lo = std::max(Lo, Q(0));
  } else if (Fuse == FUSED_RELU1) {
    Lo = std::max(Lo, Q(-1));
    Hi = std::min(Hi, Q(1));
  } else if (Fuse == FUSED_RELU6) {
    Lo = std::max(Lo, Q(0));
    Hi = std::min(Hi, Q(6));
  }
}

} // namespace kiln::nnapi::host

namespace {

std::vector<size_t> stridesOf(const std::vector<uint32_t> &Dims) {
  std::vector<size_t> S(Dims.size(), 1);
  for (size_t I = Dims.size(); I-- > 1;)
    S[I - 1] = S[I] * Dims[I];
  return S;
}

/// Calls F(coordinates) for every element of Dims, in row-major order.
template <typename Fn>
void forEachCoord(const std::vector<uint32_t> &Dims, Fn F) {
  size_t Numel = 1;
  for (uint32_t D : Dims)
    Numel *= D;
  std::vector<int64_t> C(Dims.size(), 0);
  for (size_t K = 0; K < Numel; ++K) {
    F(C);
    for (size_t A = Dims.size(); A-- > 0;) {
      if (++C[A] < Dims[A])
        break;
      C[A] = 0;
    }
  }
}

void transposeOp(const OpContext &C) {
  const Operand &In = C.in(0);
  const size_t E = elementBytes(In.Type);
  std::vector<int32_t> Perm = C.ints(1);
  std::vector<size_t> InStride = stridesOf(In.Dims);
  const uint8_t *Src = C.inData(0);
  uint8_t *Dst = C.outData();
  size_t K = 0;
  forEachCoord(C.out().Dims, [&](const std::vector<int64_t> &Co) {
    size_t Off = 0;
    for (size_t I = 0; I < Co.size(); ++I)
      Off += size_t(Co[I]) * InStride[size_t(Perm[I])];
    std::memcpy(Dst + E * K++, Src + E * Off, E);
  });
}

void padOp(const OpContext &C) {
  const Operand &In = C.in(0);
  const size_t E = elementBytes(In.Type);
  std::vector<int32_t> P = C.ints(1);
  uint8_t Value[4] = {0, 0, 0, 0};
  if (In.Type == TENSOR_FLOAT32) {
    float V = C.Op.Type == PAD_V2 ? C.f32(2) : 0.0f;
    std::memcpy(Value, &V, 4);
  } else {
    int32_t V = C.Op.Type == PAD_V2 ? C.i32(2) : In.ZeroPoint;
    qset(In, Value, 0, V);
  }
  std::vector<size_t> InStride = stridesOf(In.Dims);
  const uint8_t *Src = C.inData(0);
  uint8_t *Dst = C.outData();
  size_t K = 0;
  forEachCoord(C.out().Dims, [&](const std::vector<int64_t> &Co) {
    size_t Off = 0;
    bool Inside = true;
    for (size_t I = 0; I < Co.size(); ++I) {
      int64_t X = Co[I] - P[2 * I];
      if (X < 0 || X >= int64_t(In.Dims[I])) {
        Inside = false;
        break;
      }
      Off += size_t(X) * InStride[I];
    }
    std::memcpy(Dst + E * K++, Inside ? Src + E * Off : Value, E);
  });
}

void stridedSliceOp(const OpContext &C) {
  const Operand &In = C.in(0);
  const size_t E = elementBytes(In.Type);
  std::vector<int32_t> Begin = C.ints(1), End = C.ints(2), Strides = C.ints(3);
  const int32_t BeginMask = C.i32(4), EndMask = C.i32(5), Shrink = C.i32(6);
  const size_t R = In.Dims.size();
  std::vector<uint32_t> Count(R);
  std::vector<int32_t> Start(R);
  for (size_t I = 0; I < R; ++I) {
    const int32_t Dim = int32_t(In.Dims[I]), S = Strides[I];
    auto Clamp = [&](int32_t V) {
      if (V < 0)
        V += Dim;
      return S > 0 ? std::clamp(V, 0, Dim) : std::clamp(V, -1, Dim - 1);
    };
    int32_t B = BeginMask & (1 << I) ? (S > 0 ? 0 : Dim - 1) : Clamp(Begin[I]);
    int32_t En = EndMask & (1 << I) ? (S > 0 ? Dim : -1) : Clamp(End[I]);
    if (Shrink & (1 << I)) {
      Start[I] = Begin[I] < 0 ? Begin[I] + Dim : Begin[I];
      Count[I] = 1;
      continue;
    }
    int32_t N = S > 0 ? (En - B + S - 1) / S : (B - En - S - 1) / (-S);
    Start[I] = B;
    Count[I] = uint32_t(std::max(N, 0));
  }
  std::vector<size_t> InStride = stridesOf(In.Dims);
  const uint8_t *Src = C.inData(0);
  uint8_t *Dst = C.outData();
  size_t K = 0;
  forEachCoord(Count, [&](const std::vector<int64_t> &Co) {
    size_t Off = 0;
    for (size_t I = 0; I < R; ++I)
      Off += size_t(Start[I] + Co[I] * Strides[I]) * InStride[I];
    std::memcpy(Dst + E * K++, Src + E * Off, E);
  });
}

void gatherOp(const OpContext &C) {
  const Operand &In = C.in(0);
  const size_t E = elementBytes(In.Type);
  const AxisSplit S = splitAtAxis(In.Dims, C.i32(1));
  const size_t Outer = S.Outer, Inner = S.Inner;
  std::vector<int32_t> Idx = C.ints(2);
  const uint8_t *Src = C.inData(0);
  uint8_t *Dst = C.outData();
  for (size_t O = 0; O < Outer; ++O)
    for (int32_t X : Idx) {
      if (X < 0 || size_t(X) >= S.Depth)
        throw ComputeFailure("GATHER index " + std::to_string(X) +
                             " out of range");
      std::memcpy(Dst, Src + E * (O * S.Depth + size_t(X)) * Inner, E * Inner);
      Dst += E * Inner;
    }
}

void concatenationOp(const OpContext &C) {
  const size_t N = C.inputCount() - 1;
  const Operand &Out = C.out();
  const size_t E = elementBytes(Out.Type);
  int32_t Axis = C.i32(N);
  if (Axis < 0)
    Axis += int32_t(Out.Dims.size());
  const AxisSplit S = splitAtAxis(Out.Dims, Axis);
  const size_t Outer = S.Outer, Inner = S.Inner;
  uint8_t *Dst = C.outData();
  for (size_t O = 0; O < Outer; ++O)
    for (size_t I = 0; I < N; ++I) {
      const Operand &In = C.in(I);
      const size_t Chunk = In.Dims[size_t(Axis)] * Inner;
      const uint8_t *Src = C.inData(I) + E * O * Chunk;
      if (!In.isQuant() ||
          (In.Scale == Out.Scale && In.ZeroPoint == Out.ZeroPoint)) {
        std::memcpy(Dst, Src, E * Chunk);
      } else {
        // TFLite's ConcatenationWithScaling, in float, on uint8 values:
        // AOSP shifts int8 values and zero points by 128 first.
        const int32_t Shift = In.Type == TENSOR_QUANT8_ASYMM_SIGNED ? 128 : 0;
        const float Scale = In.Scale * (1.0f / Out.Scale);
        const float Bias = -float(In.ZeroPoint + Shift) * Scale;
        for (size_t K = 0; K < Chunk; ++K) {
          const float V = float(qget(In, Src, K) + Shift) * Scale + Bias;
          const int32_t U8 = int32_t(std::round(V)) + Out.ZeroPoint + Shift;
          qset(Out, Dst, K, std::clamp(U8, 0, 255) - Shift);
        }
      }
      Dst += E * Chunk;
    }
}

/// The resize coordinate options (inputs 4 and 5 when present).
struct ResizeModes {
  bool Align = false, Half = false;
};
ResizeModes resizeModes(const OpContext &C) {
  ResizeModes R;
  if (C.inputCount() >= 5)
    R.Align = C.b(4);
  if (C.inputCount() >= 6)
    R.Half = C.b(5);
  return R;
}

/// in/out, or (in-1)/(out-1) with alignCorners and out > 1 (TFLite).
float resizeScale(uint32_t In, uint32_t Out, bool Align) {
  return Align && Out > 1 ? float(In - 1) / float(Out - 1)
                          : float(In) / float(Out);
}

/// TFLite's reference ResizeBilinear, NHWC, which AOSP's ResizeImageOps.cpp
/// calls for every type: float arithmetic, also on the raw values of a
/// quantized tensor, which it then converts with static_cast (truncation
/// toward zero), after adding 0.5 from TFLite 2.9 on (resizeRounding()).
void resizeBilinearOp(const OpContext &C) {
  const Operand &In = C.in(0), &Out = C.out();
  const ResizeModes Mode = resizeModes(C);
  const uint32_t N = In.Dims[0], H = In.Dims[1], W = In.Dims[2],
                 Ch = In.Dims[3], OH = Out.Dims[1], OW = Out.Dims[2];
  const float SY = resizeScale(H, OH, Mode.Align);
  const float SX = resizeScale(W, OW, Mode.Align);
  struct Tap {
    size_t Lo, Hi;
    float Frac;
  };
  auto Taps = [&](uint32_t Dst, float Scale, uint32_t Size) {
    const float Src = Mode.Half ? (float(Dst) + 0.5f) * Scale - 0.5f
                                : float(Dst) * Scale;
    const float Floor = std::floor(Src);
    return Tap{size_t(std::max(int64_t(Floor), int64_t(0))),
               size_t(std::min(int64_t(std::ceil(Src)), int64_t(Size) - 1)),
               Src - Floor};
  };
  const bool Float = In.Type == TENSOR_FLOAT32;
  const float RoundingOffset =
      resizeRounding() == ResizeRounding::Offset ? 0.5f : 0.0f;
  auto Get = [&](size_t I) {
    return Float ? C.fin(0)[I] : float(qget(In, C.inData(0), I));
  };
  size_t K = 0;
  for (uint32_t B = 0; B < N; ++B)
    for (uint32_t Oy = 0; Oy < OH; ++Oy) {
      const Tap Y = Taps(Oy, SY, H);
      for (uint32_t Ox = 0; Ox < OW; ++Ox) {
        const Tap X = Taps(Ox, SX, W);
        auto At = [&](size_t Yi, size_t Xi, uint32_t Cc) {
          return ((size_t(B) * H + Yi) * W + Xi) * Ch + Cc;
        };
        for (uint32_t Cc = 0; Cc < Ch; ++Cc, ++K) {
          const float V = Get(At(Y.Lo, X.Lo, Cc)) * (1 - Y.Frac) * (1 - X.Frac) +
                          Get(At(Y.Hi, X.Lo, Cc)) * Y.Frac * (1 - X.Frac) +
                          Get(At(Y.Lo, X.Hi, Cc)) * (1 - Y.Frac) * X.Frac +
                          Get(At(Y.Hi, X.Hi, Cc)) * Y.Frac * X.Frac;
          if (Float)
            C.fout()[K] = V;
          else
            qset(Out, C.outData(), K, int32_t(V + RoundingOffset));
        }
      }
    }
}

/// TFLite's reference ResizeNearestNeighbor (GetNearestNeighbor), NHWC:
/// copies elements of any type.
void resizeNearestOp(const OpContext &C) {
  const Operand &In = C.in(0), &Out = C.out();
  const size_t E = elementBytes(In.Type);
  const ResizeModes Mode = resizeModes(C);
  const uint32_t N = In.Dims[0], H = In.Dims[1], W = In.Dims[2],
                 Ch = In.Dims[3], OH = Out.Dims[1], OW = Out.Dims[2];
  auto Nearest = [&](uint32_t Dst, uint32_t InSize, uint32_t OutSize) {
    const float Scale = resizeScale(InSize, OutSize, Mode.Align);
    const float Offset = Mode.Half ? 0.5f : 0.0f;
    const float Src = (float(Dst) + Offset) * Scale;
    int64_t I = Mode.Align ? int64_t(std::round(Src)) : int64_t(std::floor(Src));
    I = std::min(I, int64_t(InSize) - 1);
    if (Mode.Half)
      I = std::max(I, int64_t(0));
    return size_t(I);
  };
  const uint8_t *Src = C.inData(0);
  uint8_t *Dst = C.outData();
  for (uint32_t B = 0; B < N; ++B)
    for (uint32_t Oy = 0; Oy < OH; ++Oy) {
      const size_t Y = Nearest(Oy, H, OH);
      for (uint32_t Ox = 0; Ox < OW; ++Ox) {
        const size_t X = Nearest(Ox, W, OW);
        std::memcpy(Dst, Src + E * ((size_t(B) * H + Y) * W + X) * Ch, E * Ch);
        Dst += E * Ch;
      }
    }
}

} // namespace

namespace kiln::nnapi::host {

void runOperation(const OpContext &C) {
  switch (C.Op.Type) {
  case RESHAPE:
    std::memcpy(C.outData(), C.inData(0), C.out().byteSize());
    return;
  case TRANSPOSE:
    return transposeOp(C);
  case PAD: case PAD_V2:
    return padOp(C);
  case STRIDED_SLICE:
    return stridedSliceOp(C);
  case GATHER:
    return gatherOp(C);
  case CONCATENATION:
    return concatenationOp(C);
  case RESIZE_BILINEAR:
    return resizeBilinearOp(C);
  case RESIZE_NEAREST_NEIGHBOR:
    return resizeNearestOp(C);
  case EQUAL: case GREATER: case LESS: case SELECT: case CAST:
    return runLogicalOperation(C);
  case UNIDIRECTIONAL_SEQUENCE_LSTM:
    return sequenceLstmOp(C);
  default:
    break;
  }
  const bool Float = C.in(0).Type == TENSOR_FLOAT32;
  if (Float ? runFloatOperation(C) : runQuantOperation(C))
    return;
  throw ComputeFailure(operationName(C.Op.Type) + " on " +
                       operandTypeName(C.in(0).Type) + " is not implemented");
}

} // namespace kiln::nnapi::host

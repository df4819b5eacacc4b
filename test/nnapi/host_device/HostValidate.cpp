// The host NNAPI device: what a driver checks of each operation before it
// agrees to run a model (types, counts, ranks, the output shapes the
// operation computes, quantization parameters, feature levels).
#include "HostDevice.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <initializer_list>

using namespace kiln::nnapi;
using namespace kiln::nnapi::host;

namespace {

std::string join(std::initializer_list<int32_t> Types) {
  std::string S;
  for (int32_t T : Types)
    S += (S.empty() ? "" : " or ") + operandTypeName(T);
  return S;
}

struct Checker {
  const ANeuralNetworksModel &M;
  const Operation &Op;
  int Level;

  const Operand &in(size_t I) const { return M.Operands[Op.Inputs[I]]; }
  const Operand &out(size_t I = 0) const { return M.Operands[Op.Outputs[I]]; }
  size_t numIn() const { return Op.Inputs.size(); }

  [[noreturn]] void fail(const std::string &S) const { throw Invalid(S); }

  void counts(std::initializer_list<size_t> Ins, size_t Outs) const {
    if (std::find(Ins.begin(), Ins.end(), numIn()) == Ins.end()) {
      std::string Allowed;
      for (size_t N : Ins)
        Allowed += (Allowed.empty() ? "" : " or ") + std::to_string(N);
      fail(std::to_string(numIn()) + " inputs (expected " + Allowed + ")");
    }
    if (Op.Outputs.size() != Outs)
      fail(std::to_string(Op.Outputs.size()) + " outputs (expected " +
           std::to_string(Outs) + ")");
  }
  void atLeastInputs(size_t N) const {
    if (numIn() < N)
      fail(std::to_string(numIn()) + " inputs (expected at least " +
           std::to_string(N) + ")");
  }
  void outputs(size_t N) const {
    if (Op.Outputs.size() != N)
      fail(std::to_string(Op.Outputs.size()) + " outputs (expected " +
           std::to_string(N) + ")");
  }
  void type(const Operand &O, const std::string &What,
            std::initializer_list<int32_t> Allowed) const {
    if (std::find(Allowed.begin(), Allowed.end(), O.Type) == Allowed.end())
      fail(What + " is " + operandTypeName(O.Type) + " (expected " +
           join(Allowed) + ")");
  }
  void rank(const Operand &O, const std::string &What, size_t R) const {
    if (O.Dims.size() != R)
      fail(What + " has rank " + std::to_string(O.Dims.size()) +
           " (expected " + std::to_string(R) + ")");
  }
  void rankBetween(const Operand &O, const std::string &What, size_t Lo,
                   size_t Hi) const {
    if (O.Dims.size() < Lo || O.Dims.size() > Hi)
      fail(What + " has rank " + std::to_string(O.Dims.size()) +
           " (expected " + std::to_string(Lo) + ".." + std::to_string(Hi) +
           ")");
  }
  const Operand &constant(size_t I, int32_t Type, const std::string &What) const {
    const Operand &O = in(I);
    type(O, What + " (input " + std::to_string(I) + ")", {Type});
    if (!O.IsConstant)
      fail(What + " (input " + std::to_string(I) + ") must be a constant");
    return O;
  }
  int32_t i32(size_t I, const std::string &What) const {
    int32_t V;
    std::memcpy(&V, constant(I, INT32, What).constData(), 4);
    return V;
  }
  float f32(size_t I, const std::string &What) const {
    float V;
    std::memcpy(&V, constant(I, FLOAT32, What).constData(), 4);
    return V;
  }
  bool boolean(size_t I, const std::string &What) const {
    return constant(I, BOOL, What).constData()[0] != 0;
  }
  std::vector<int32_t> ints(size_t I, const std::string &What) const {
    const Operand &O = constant(I, TENSOR_INT32, What);
    std::vector<int32_t> V(O.elementCount());
    if (!V.empty())
      std::memcpy(V.data(), O.constData(), V.size() * 4);
    return V;
  }
  void dims(const std::vector<uint32_t> &Expected, size_t OutI = 0) const {
    if (out(OutI).Dims != Expected)
      fail("output " + std::to_string(OutI) + " has dimensions " +
           dimsString(out(OutI).Dims) + "; the operation computes " +
           dimsString(Expected));
  }
  void sameQuant(const Operand &A, const Operand &B, const std::string &What) const {
    if (A.isQuant() && (A.Scale != B.Scale || A.ZeroPoint != B.ZeroPoint))
      fail(What + ": scale " + std::to_string(B.Scale) + " zero point " +
           std::to_string(B.ZeroPoint) + " (must equal the input's " +
           std::to_string(A.Scale) + ", " + std::to_string(A.ZeroPoint) + ")");
  }
  void sameType(const Operand &A, const Operand &B, const std::string &What) const {
    if (A.Type != B.Type)
      fail(What + " is " + operandTypeName(B.Type) + " (must be " +
           operandTypeName(A.Type) + " like input 0)");
  }
  void fuse(size_t I) const {
    int32_t F = i32(I, "the fused activation");
    if (F < FUSED_NONE || F > FUSED_RELU6)
      fail("fused activation code " + std::to_string(F));
  }
  /// The optional layout input (29): must say NHWC.
  void layout(size_t I, bool Optional) const {
    if (Optional && Level < 29)
      fail("the layout input needs feature level 29; the device is at " +
           std::to_string(Level));
    if (boolean(I, "the layout"))
      fail("NCHW layout (only NHWC is supported)");
  }
  int32_t nonNegative(size_t I, const std::string &What) const {
    int32_t V = i32(I, What);
    if (V < 0)
      fail(What + " is " + std::to_string(V));
    return V;
  }
  int32_t positive(size_t I, const std::string &What) const {
    int32_t V = i32(I, What);
    if (V <= 0)
      fail(What + " is " + std::to_string(V) + " (must be > 0)");
    return V;
  }
  /// Tensor float32 or a quantized activation type.
  void activationType(const Operand &O, const std::string &What,
                      bool AllowQuant = true) const {
    if (AllowQuant)
      type(O, What, {TENSOR_FLOAT32, TENSOR_QUANT8_ASYMM,
                     TENSOR_QUANT8_ASYMM_SIGNED});
    else
      type(O, What, {TENSOR_FLOAT32});
  }
  int32_t axis(int32_t A, size_t Rank, const std::string &What) const {
    int32_t R = int32_t(Rank);
    if (A < -R || A >= R)
      fail(What + " " + std::to_string(A) + " out of range for rank " +
           std::to_string(Rank));
    return A < 0 ? A + R : A;
  }

  void run();
  void binary();
  std::vector<uint32_t> broadcastInputs() const;
  void conv();
  void fullyConnected();
  void batchMatmul();
  void pool();
  void concatenation();
  void reshape();
  void transpose();
  void softmax();
  void stridedSlice();
  void pad();
  void reduce();
  void gather();
  void prelu();
  void unary();
  void quantize();
  void dequantize();
  void resize();
  void comparison();
  void select();
  void cast();
  void quantMultiplierBelowOne() const;
  void outputScaleAboveProduct(const Operand &Input, const Operand &Filter) const;
  void padsBelowFilter(int32_t PadL, int32_t PadR, int32_t PadT, int32_t PadB,
                       int64_t FW, int64_t FH) const;
  void convQuant(const Operand &Input, const Operand &Filter,
                 const Operand &Bias, int32_t ChannelDim, bool AllowPerChannel);
};

void Checker::binary() {
  const int32_t T = Op.Type;
  const bool Fused = T == ADD || T == SUB || T == MUL || T == DIV;
  counts({Fused ? size_t(3) : size_t(2)}, 1);
  const bool Quant = T == ADD || T == MUL || T == MAXIMUM || T == MINIMUM ||
                     (T == SUB && Level >= 29);
  activationType(in(0), "input 0", Quant);
  sameType(in(0), in(1), "input 1");
  sameType(in(0), out(), "the output");
  if (Fused)
    fuse(2);
  std::vector<uint32_t> D = broadcastInputs();
  if (in(0).isQuant())
    quantMultiplierBelowOne();
  dims(D);
}

/// The numpy broadcast of inputs 0 and 1, each of rank 4 at most.
std::vector<uint32_t> Checker::broadcastInputs() const {
  std::vector<uint32_t> D;
  if (!broadcastDims(in(0).Dims, in(1).Dims, D))
    fail("inputs " + dimsString(in(0).Dims) + " and " +
         dimsString(in(1).Dims) + " do not broadcast");
  if (in(0).Dims.size() > 4 || in(1).Dims.size() > 4)
    fail("inputs of rank above 4");
  return D;
}

/// AOSP's quantized ADD, SUB and MUL take their output multiplier with
/// QuantizeMultiplierSmallerThanOneExp, which fails at 1 or above: ADD/SUB
/// 2 max(s1, s2) / (2^20 s_out), MUL s1 s2 / s_out (so s_out > s1 s2).
void Checker::quantMultiplierBelowOne() const {
  const Operand &A = in(0), &B = in(1), &Y = out();
  if (Op.Type == ADD || Op.Type == SUB) {
    const double M = 2.0 * std::max(double(A.Scale), double(B.Scale)) /
                     (double(1 << 20) * double(Y.Scale));
    if (M >= 1)
      fail("the output scale " + std::to_string(Y.Scale) +
           " gives an output multiplier of " + std::to_string(M) +
           " (must be below 1)");
  } else if (Op.Type == MUL) {
    const float Product = A.Scale * B.Scale; // in float, as AOSP
    if (!(Y.Scale > Product))
      fail("the output scale " + std::to_string(Y.Scale) +
           " must exceed input 0's scale times input 1's (" +
           std::to_string(Product) + ")");
  }
}

void Checker::convQuant(const Operand &Input, const Operand &Filter,
                        const Operand &Bias, int32_t ChannelDim,
                        bool AllowPerChannel) {
  type(Bias, "the bias", {TENSOR_INT32});
  if (Filter.Type == TENSOR_QUANT8_SYMM_PER_CHANNEL) {
    if (!AllowPerChannel)
      fail("the filter is TENSOR_QUANT8_SYMM_PER_CHANNEL (per-tensor only)");
    if (int32_t(Filter.ChannelDim) != ChannelDim)
      fail("the per-channel filter's channelDim is " +
           std::to_string(Filter.ChannelDim) + " (must be " +
           std::to_string(ChannelDim) + ")");
    if (Filter.ChannelScales.size() != Filter.Dims[size_t(ChannelDim)])
      fail("the per-channel filter has " +
           std::to_string(Filter.ChannelScales.size()) + " scales for " +
           std::to_string(Filter.Dims[size_t(ChannelDim)]) + " channels");
    if (Bias.Scale != 0)
      fail("the bias scale is " + std::to_string(Bias.Scale) +
           " (must be 0 with a per-channel filter)");
  } else {
    sameType(Input, Filter, "the filter");
    const double Expected = double(Input.Scale) * double(Filter.Scale);
    const double Got = Bias.Scale;
    if (std::fabs(Got - Expected) > 1e-6 * std::max(Got, Expected))
      fail("the bias scale is " + std::to_string(Bias.Scale) +
           " (must be input scale * filter scale = " +
           std::to_string(Expected) + ")");
  }
  if (Bias.ZeroPoint != 0)
    fail("the bias zero point is " + std::to_string(Bias.ZeroPoint) +
         " (must be 0)");
  outputScaleAboveProduct(Input, Filter);
}

/// Before feature level 29, NNAPI's quantized convolutions and fully
/// connected layers require output scale > input scale * filter scale
/// (their multiplier had to be below 1). AOSP's FullyConnected.cpp checks
/// this; its Conv2D.cpp and DepthwiseConv2D.cpp read input 0's scale where
/// they mean the output's, so this device holds them to the spec's rule.
void Checker::outputScaleAboveProduct(const Operand &Input,
                                      const Operand &Filter) const {
  if (Level >= 29 || Filter.Type == TENSOR_QUANT8_SYMM_PER_CHANNEL)
    return;
  const float Product = Input.Scale * Filter.Scale; // in float, as AOSP
  if (!(out().Scale > Product))
    fail("the output scale " + std::to_string(out().Scale) +
         " must exceed input scale * filter scale (" + std::to_string(Product) +
         ") below feature level 29; the device is at " + std::to_string(Level));
}

/// AOSP refuses a convolution or pool whose padding on a side is at least
/// the filter's extent on that axis (Conv2D.cpp, DepthwiseConv2D.cpp: the
/// dilated extent; Pooling.cpp: the window).
void Checker::padsBelowFilter(int32_t PadL, int32_t PadR, int32_t PadT,
                              int32_t PadB, int64_t FW, int64_t FH) const {
  if (PadL >= FW || PadR >= FW || PadT >= FH || PadB >= FH)
    fail("padding (left " + std::to_string(PadL) + ", right " +
         std::to_string(PadR) + ", top " + std::to_string(PadT) +
         ", bottom " + std::to_string(PadB) + ") must be below the filter's " +
         std::to_string(FW) + "x" + std::to_string(FH) + " (width x height)");
}

void Checker::conv() {
  const int32_t T = Op.Type;
  // Where the parameters sit.
  size_t FuseAt, LayoutAt = 0, DilationAt = 0;
  bool HasLayout = false, HasDilation = false, LayoutOptional = true;
  switch (T) {
  case CONV_2D:
    counts({10, 11, 13}, 1);
    FuseAt = 9;
    HasLayout = numIn() >= 11;
    LayoutAt = 10;
    HasDilation = numIn() == 13;
    DilationAt = 11;
    break;
  case DEPTHWISE_CONV_2D:
    counts({11, 12, 14}, 1);
    FuseAt = 10;
    HasLayout = numIn() >= 12;
    LayoutAt = 11;
    HasDilation = numIn() == 14;
    DilationAt = 12;
    break;
  case GROUPED_CONV_2D:
    counts({12}, 1);
    FuseAt = 10;
    HasLayout = true;
    LayoutAt = 11;
    LayoutOptional = false;
    break;
  default: // TRANSPOSE_CONV_2D
    counts({11}, 1);
    FuseAt = 9;
    HasLayout = true;
    LayoutAt = 10;
    LayoutOptional = false;
    break;
  }
  const Operand &Input = in(0), &Filter = in(1), &Bias = in(2);
  activationType(Input, "the input");
  sameType(Input, out(), "the output");
  rank(Input, "the input", 4);
  rank(Filter, "the filter", 4);
  rank(Bias, "the bias", 1);
  if (Input.Type == TENSOR_FLOAT32) {
    type(Filter, "the filter", {TENSOR_FLOAT32});
    type(Bias, "the bias", {TENSOR_FLOAT32});
  } else {
    type(Filter, "the filter",
         {Input.Type, TENSOR_QUANT8_SYMM_PER_CHANNEL});
    convQuant(Input, Filter, Bias, T == DEPTHWISE_CONV_2D ? 3 : 0, true);
  }
  const int32_t PadL = nonNegative(3, "padding left");
  const int32_t PadR = nonNegative(4, "padding right");
  const int32_t PadT = nonNegative(5, "padding top");
  const int32_t PadB = nonNegative(6, "padding bottom");
  const int32_t StrideW = positive(7, "stride width");
  const int32_t StrideH = positive(8, "stride height");
  fuse(FuseAt);
  if (HasLayout)
    layout(LayoutAt, LayoutOptional);
  int32_t DilW = 1, DilH = 1;
  if (HasDilation) {
    DilW = positive(DilationAt, "dilation width");
    DilH = positive(DilationAt + 1, "dilation height");
  }
  const uint32_t N = Input.Dims[0], H = Input.Dims[1], W = Input.Dims[2],
                 C = Input.Dims[3];
  const uint32_t KH = Filter.Dims[1], KW = Filter.Dims[2];
  uint32_t OC;
  if (T == DEPTHWISE_CONV_2D) {
    if (Filter.Dims[0] != 1)
      fail("the depthwise filter " + dimsString(Filter.Dims) +
           " must be [1, KH, KW, OC]");
    OC = Filter.Dims[3];
    const int32_t Mult = positive(9, "the depth multiplier");
    if (uint64_t(C) * uint64_t(Mult) != OC)
      fail("the filter has " + std::to_string(OC) + " channels; input " +
           std::to_string(C) + " channels * multiplier " +
           std::to_string(Mult) + " expected");
  } else {
    OC = Filter.Dims[0];
    uint32_t Groups = 1;
    if (T == GROUPED_CONV_2D) {
      Groups = uint32_t(positive(9, "the group count"));
      if (C % Groups || OC % Groups)
        fail("groups " + std::to_string(Groups) + " do not divide input " +
             "channels " + std::to_string(C) + " and output channels " +
             std::to_string(OC));
    }
    if (Filter.Dims[3] * Groups != C)
      fail("the filter " + dimsString(Filter.Dims) + " reads " +
           std::to_string(Filter.Dims[3]) + " channels per group; the input " +
           dimsString(Input.Dims) + " has " + std::to_string(C) +
           (Groups > 1 ? " in " + std::to_string(Groups) + " groups" : ""));
  }
  if (Bias.Dims[0] != OC)
    fail("the bias has " + std::to_string(Bias.Dims[0]) + " elements for " +
         std::to_string(OC) + " output channels");
  uint32_t OH, OW;
  if (T == TRANSPOSE_CONV_2D) {
    int64_t OHs = int64_t(StrideH) * (H - 1) + KH - PadT - PadB;
    int64_t OWs = int64_t(StrideW) * (W - 1) + KW - PadL - PadR;
    if (OHs <= 0 || OWs <= 0)
      fail("the padding leaves no output");
    OH = uint32_t(OHs);
    OW = uint32_t(OWs);
  } else {
    const int64_t EffH = int64_t(KH - 1) * DilH + 1;
    const int64_t EffW = int64_t(KW - 1) * DilW + 1;
    padsBelowFilter(PadL, PadR, PadT, PadB, EffW, EffH);
    const int64_t PaddedH = int64_t(H) + PadT + PadB;
    const int64_t PaddedW = int64_t(W) + PadL + PadR;
    if (PaddedH < EffH || PaddedW < EffW)
      fail("the filter " + dimsString(Filter.Dims) +
           " is larger than the padded input " + dimsString(Input.Dims));
    OH = uint32_t((PaddedH - EffH) / StrideH + 1);
    OW = uint32_t((PaddedW - EffW) / StrideW + 1);
  }
  dims({N, OH, OW, OC});
}

void Checker::fullyConnected() {
  counts({4}, 1);
  const Operand &Input = in(0), &Weights = in(1), &Bias = in(2);
  activationType(Input, "the input");
  sameType(Input, out(), "the output");
  rankBetween(Input, "the input", 2, 4);
  rank(Weights, "the weights", 2);
  rank(Bias, "the bias", 1);
  if (Input.Type == TENSOR_FLOAT32) {
    type(Weights, "the weights", {TENSOR_FLOAT32});
    type(Bias, "the bias", {TENSOR_FLOAT32});
  } else {
    convQuant(Input, Weights, Bias, 0, false);
  }
  fuse(3);
  const uint32_t OC = Weights.Dims[0], K = Weights.Dims[1];
  const size_t Numel = Input.elementCount();
  if (K == 0 || Numel % K)
    fail("the input " + dimsString(Input.Dims) + " does not flatten to rows of " +
         std::to_string(K));
  if (Bias.Dims[0] != OC)
    fail("the bias has " + std::to_string(Bias.Dims[0]) + " elements for " +
         std::to_string(OC) + " outputs");
  dims({uint32_t(Numel / K), OC});
}

/// BATCH_MATMUL (feature level 6; AOSP's BatchMatmul.cpp validate and
/// prepare): float32 or int8 signed operands of one type and rank (2..4),
/// two BOOL adjoint flags, the output in the left operand's batch dims
/// (the right one's equal or 1), of the input type.
void Checker::batchMatmul() {
  counts({4}, 1);
  const Operand &A = in(0), &B = in(1);
  type(A, "the left operand", {TENSOR_FLOAT32, TENSOR_QUANT8_ASYMM_SIGNED});
  sameType(A, B, "the right operand");
  sameType(A, out(), "the output");
  rankBetween(A, "the left operand", 2, 4);
  rank(B, "the right operand", A.Dims.size());
  const bool AdjX = boolean(2, "adj_x"), AdjY = boolean(3, "adj_y");
  const size_t R = A.Dims.size();
  const uint32_t M = AdjX ? A.Dims[R - 1] : A.Dims[R - 2];
  const uint32_t K = AdjX ? A.Dims[R - 2] : A.Dims[R - 1];
  const uint32_t KB = AdjY ? B.Dims[R - 1] : B.Dims[R - 2];
  const uint32_t N = AdjY ? B.Dims[R - 2] : B.Dims[R - 1];
  if (M == 0 || K == 0 || N == 0 || K != KB)
    fail("operands " + dimsString(A.Dims) + " and " + dimsString(B.Dims) +
         " do not multiply");
  std::vector<uint32_t> D(A.Dims.begin(), A.Dims.end() - 2);
  for (size_t I = 0; I + 2 < R; ++I)
    if (B.Dims[I] != A.Dims[I] && B.Dims[I] != 1)
      fail("the right operand's batch dims " + dimsString(B.Dims) +
           " neither equal the left operand's " + dimsString(A.Dims) +
           " nor broadcast");
  D.push_back(M);
  D.push_back(N);
  dims(D);
}

void Checker::pool() {
  counts({10, 11}, 1);
  const Operand &Input = in(0);
  activationType(Input, "the input");
  sameType(Input, out(), "the output");
  sameQuant(Input, out(), "the output");
  rank(Input, "the input", 4);
  const int32_t PadL = nonNegative(1, "padding left");
  const int32_t PadR = nonNegative(2, "padding right");
  const int32_t PadT = nonNegative(3, "padding top");
  const int32_t PadB = nonNegative(4, "padding bottom");
  const int32_t StrideW = positive(5, "stride width");
  const int32_t StrideH = positive(6, "stride height");
  const int32_t FW = positive(7, "filter width");
  const int32_t FH = positive(8, "filter height");
  fuse(9);
  if (numIn() == 11)
    layout(10, true);
  padsBelowFilter(PadL, PadR, PadT, PadB, FW, FH);
  const int64_t PaddedH = int64_t(Input.Dims[1]) + PadT + PadB;
  const int64_t PaddedW = int64_t(Input.Dims[2]) + PadL + PadR;
  if (PaddedH < FH || PaddedW < FW)
    fail("the window is larger than the padded input");
  dims({Input.Dims[0], uint32_t((PaddedH - FH) / StrideH + 1),
        uint32_t((PaddedW - FW) / StrideW + 1), Input.Dims[3]});
}

void Checker::concatenation() {
  atLeastInputs(2);
  outputs(1);
  const size_t N = numIn() - 1;
  const Operand &First = in(0);
  activationType(First, "input 0");
  sameType(First, out(), "the output");
  rankBetween(First, "input 0", 1, 4);
  const int32_t Axis = axis(i32(N, "the axis"), First.Dims.size(), "axis");
  std::vector<uint32_t> D = First.Dims;
  D[size_t(Axis)] = 0;
  for (size_t I = 0; I < N; ++I) {
    const Operand &O = in(I);
    const std::string What = "input " + std::to_string(I);
    sameType(First, O, What);
    if (O.Dims.size() != First.Dims.size())
      fail(What + " has rank " + std::to_string(O.Dims.size()) +
           " (input 0 has " + std::to_string(First.Dims.size()) + ")");
    for (size_t J = 0; J < D.size(); ++J)
      if (J != size_t(Axis) && O.Dims[J] != First.Dims[J])
        fail(What + " " + dimsString(O.Dims) + " differs from input 0 " +
             dimsString(First.Dims) + " outside axis " + std::to_string(Axis));
    D[size_t(Axis)] += O.Dims[size_t(Axis)];
    if (O.isQuant() && Level < 29)
      sameQuant(out(), O, What);
  }
  dims(D);
}

void Checker::reshape() {
  counts({2}, 1);
  const Operand &Input = in(0);
  activationType(Input, "the input");
  sameType(Input, out(), "the output");
  sameQuant(Input, out(), "the output");
  rankBetween(Input, "the input", 1, 4);
  std::vector<int32_t> Shape = ints(1, "the shape");
  if (in(1).Dims.size() != 1)
    fail("the shape is not 1-D");
  const size_t Numel = Input.elementCount();
  size_t Known = 1;
  int Unknown = -1;
  for (size_t I = 0; I < Shape.size(); ++I) {
    if (Shape[I] == -1) {
      if (Unknown >= 0)
        fail("the shape has two -1 entries");
      Unknown = int(I);
    } else if (Shape[I] <= 0) {
      fail("the shape has entry " + std::to_string(Shape[I]));
    } else {
      Known *= size_t(Shape[I]);
    }
  }
  std::vector<uint32_t> D;
  for (int32_t S : Shape)
    D.push_back(uint32_t(S));
  if (Unknown >= 0) {
    if (Numel % Known)
      fail("the shape does not divide " + std::to_string(Numel) + " elements");
    D[size_t(Unknown)] = uint32_t(Numel / Known);
  } else if (Known != Numel) {
    fail("the shape has " + std::to_string(Known) + " elements; the input " +
         std::to_string(Numel));
  }
  dims(D);
}

void Checker::transpose() {
  counts({2}, 1);
  const Operand &Input = in(0);
  activationType(Input, "the input");
  sameType(Input, out(), "the output");
  sameQuant(Input, out(), "the output");
  rankBetween(Input, "the input", 1, 4);
  std::vector<int32_t> Perm = ints(1, "the permutation");
  if (Perm.size() != Input.Dims.size())
    fail("the permutation has " + std::to_string(Perm.size()) +
         " entries for rank " + std::to_string(Input.Dims.size()));
  std::vector<char> Seen(Perm.size(), 0);
  std::vector<uint32_t> D;
  for (int32_t P : Perm) {
    if (P < 0 || size_t(P) >= Perm.size() || Seen[size_t(P)])
      fail("the permutation is not one");
    Seen[size_t(P)] = 1;
    D.push_back(Input.Dims[size_t(P)]);
  }
  dims(D);
}

void Checker::softmax() {
  const Operand &Input = in(0);
  if (Op.Type == SOFTMAX) {
    counts({2, 3}, 1);
    activationType(Input, "the input");
    if (numIn() == 3 && Level < 29)
      fail("the axis input needs feature level 29; the device is at " +
           std::to_string(Level));
  } else {
    counts({3}, 1);
    activationType(Input, "the input", false);
  }
  sameType(Input, out(), "the output");
  if (Level < 29 && Input.Dims.size() != 2 && Input.Dims.size() != 4)
    fail("the input has rank " + std::to_string(Input.Dims.size()) +
         " (2 or 4 before feature level 29)");
  rankBetween(Input, "the input", 1, 4);
  const float Beta = f32(1, "beta");
  if (!(Beta > 0))
    fail("beta is " + std::to_string(Beta) + " (must be > 0)");
  if (numIn() == 3)
    axis(i32(2, "the axis"), Input.Dims.size(), "axis");
  if (Input.isQuant()) {
    const int32_t Zp = Input.Type == TENSOR_QUANT8_ASYMM ? 0 : -128;
    if (out().Scale != 1.0f / 256 || out().ZeroPoint != Zp)
      fail("the output must have scale 1/256 and zero point " +
           std::to_string(Zp));
  }
  dims(Input.Dims);
}

void Checker::stridedSlice() {
  counts({7}, 1);
  const Operand &Input = in(0);
  activationType(Input, "the input");
  sameType(Input, out(), "the output");
  sameQuant(Input, out(), "the output");
  rankBetween(Input, "the input", 1, 4);
  const size_t R = Input.Dims.size();
  std::vector<int32_t> Begin = ints(1, "begin"), End = ints(2, "end"),
                       Strides = ints(3, "strides");
  if (Begin.size() != R || End.size() != R || Strides.size() != R)
    fail("begin, end and strides must have " + std::to_string(R) + " entries");
  const int32_t BeginMask = i32(4, "the begin mask");
  const int32_t EndMask = i32(5, "the end mask");
  const int32_t ShrinkMask = i32(6, "the shrink mask");
  std::vector<uint32_t> D;
  for (size_t I = 0; I < R; ++I) {
    if (Strides[I] == 0)
      fail("stride " + std::to_string(I) + " is 0");
    const int32_t Dim = int32_t(Input.Dims[I]), S = Strides[I];
    auto Clamp = [&](int32_t V) {
      if (V < 0)
        V += Dim;
      return S > 0 ? std::clamp(V, 0, Dim) : std::clamp(V, -1, Dim - 1);
    };
    int32_t B = BeginMask & (1 << I) ? (S > 0 ? 0 : Dim - 1) : Clamp(Begin[I]);
    int32_t E = EndMask & (1 << I) ? (S > 0 ? Dim : -1) : Clamp(End[I]);
    if (ShrinkMask & (1 << I)) {
      B = Begin[I] < 0 ? Begin[I] + Dim : Begin[I];
      if (B < 0 || B >= Dim)
        fail("shrunk axis " + std::to_string(I) + " begins outside");
      continue;
    }
    int32_t Count = S > 0 ? (E - B + S - 1) / S : (B - E - S - 1) / (-S);
    D.push_back(uint32_t(std::max(Count, 0)));
  }
  if (D.empty() && out().Dims == std::vector<uint32_t>{1})
    D = {1};
  dims(D);
}

void Checker::pad() {
  counts({Op.Type == PAD ? size_t(2) : size_t(3)}, 1);
  const Operand &Input = in(0);
  activationType(Input, "the input");
  sameType(Input, out(), "the output");
  sameQuant(Input, out(), "the output");
  rankBetween(Input, "the input", 1, 4);
  std::vector<int32_t> P = ints(1, "the paddings");
  if (in(1).Dims != std::vector<uint32_t>{uint32_t(Input.Dims.size()), 2})
    fail("the paddings are " + dimsString(in(1).Dims) + " (expected [" +
         std::to_string(Input.Dims.size()) + ", 2])");
  if (Op.Type == PAD_V2) {
    if (Input.Type == TENSOR_FLOAT32)
      f32(2, "the pad value");
    else
      i32(2, "the pad value");
  }
  std::vector<uint32_t> D = Input.Dims;
  for (size_t I = 0; I < D.size(); ++I) {
    if (P[2 * I] < 0 || P[2 * I + 1] < 0)
      fail("negative padding");
    D[I] += uint32_t(P[2 * I] + P[2 * I + 1]);
  }
  dims(D);
}

void Checker::reduce() {
  counts({3}, 1);
  const Operand &Input = in(0);
  activationType(Input, "the input", Op.Type != REDUCE_SUM);
  sameType(Input, out(), "the output");
  // MEAN too: AOSP computes it on the raw values and sets the output's
  // parameters to the input's (the spec requires them equal).
  if (Op.Type == REDUCE_MAX || Op.Type == REDUCE_MIN || Op.Type == MEAN)
    sameQuant(Input, out(), "the output");
  rankBetween(Input, "the input", 1, 4);
  std::vector<int32_t> Axes = ints(1, "the axes");
  const bool Keep = Op.Type == MEAN ? i32(2, "keepDims") != 0
                                    : boolean(2, "keepDims");
  std::vector<char> Reduced(Input.Dims.size(), 0);
  for (int32_t A : Axes)
    Reduced[size_t(axis(A, Input.Dims.size(), "axis"))] = 1;
  std::vector<uint32_t> D;
  for (size_t I = 0; I < Input.Dims.size(); ++I) {
    if (!Reduced[I])
      D.push_back(Input.Dims[I]);
    else if (Keep)
      D.push_back(1);
  }
  if (D.empty() && out().Dims == std::vector<uint32_t>{1})
    D = {1};
  dims(D);
}

void Checker::gather() {
  counts({3}, 1);
  const Operand &Input = in(0);
  activationType(Input, "the input");
  sameType(Input, out(), "the output");
  sameQuant(Input, out(), "the output");
  rankBetween(Input, "the input", 1, 4);
  const size_t A = size_t(axis(i32(1, "the axis"), Input.Dims.size(), "axis"));
  type(in(2), "the indices", {TENSOR_INT32});
  std::vector<uint32_t> D(Input.Dims.begin(), Input.Dims.begin() + long(A));
  D.insert(D.end(), in(2).Dims.begin(), in(2).Dims.end());
  D.insert(D.end(), Input.Dims.begin() + long(A) + 1, Input.Dims.end());
  if (in(2).IsConstant) {
    const int32_t *Idx = reinterpret_cast<const int32_t *>(in(2).constData());
    for (size_t I = 0; I < in(2).elementCount(); ++I)
      if (Idx[I] < 0 || uint32_t(Idx[I]) >= Input.Dims[A])
        fail("index " + std::to_string(Idx[I]) + " out of range");
  }
  dims(D);
}

/// EQUAL, GREATER, LESS (level 29): two operands of one type, broadcast,
/// a TENSOR_BOOL8 result (the types kiln emits: int32 and float32).
void Checker::comparison() {
  counts({2}, 1);
  type(in(0), "input 0", {TENSOR_INT32, TENSOR_FLOAT32});
  sameType(in(0), in(1), "input 1");
  type(out(), "the output", {TENSOR_BOOL8});
  dims(broadcastInputs());
}

/// SELECT (level 29): a TENSOR_BOOL8 mask and two operands of one type,
/// all of the mask's shape (no broadcasting).
void Checker::select() {
  counts({3}, 1);
  type(in(0), "the mask", {TENSOR_BOOL8});
  type(in(1), "input 1", {TENSOR_INT32, TENSOR_FLOAT32});
  sameType(in(1), in(2), "input 2");
  sameType(in(1), out(), "the output");
  if (in(1).Dims != in(0).Dims || in(2).Dims != in(0).Dims)
    fail("inputs " + dimsString(in(1).Dims) + " and " + dimsString(in(2).Dims) +
         " are not the mask's shape " + dimsString(in(0).Dims));
  dims(in(0).Dims);
}

/// CAST (level 29) as kiln emits it: int32 to float32 (or to itself).
void Checker::cast() {
  counts({1}, 1);
  type(in(0), "the input", {TENSOR_INT32, TENSOR_FLOAT32});
  if (out().Type != in(0).Type)
    type(out(), "the output", {TENSOR_FLOAT32});
  dims(in(0).Dims);
}

void Checker::prelu() {
  counts({2}, 1);
  activationType(in(0), "the input");
  sameType(in(0), in(1), "alpha");
  sameType(in(0), out(), "the output");
  std::vector<uint32_t> D;
  if (!broadcastDims(in(0).Dims, in(1).Dims, D) || D != in(0).Dims)
    fail("alpha " + dimsString(in(1).Dims) + " does not broadcast to the input " +
         dimsString(in(0).Dims));
  dims(D);
}

void Checker::unary() {
  const int32_t T = Op.Type;
  counts({T == ELU ? size_t(2) : size_t(1)}, 1);
  const Operand &Input = in(0);
  const bool Quant = T == RELU || T == RELU1 || T == RELU6 || T == LOGISTIC ||
                     T == TANH || T == HARD_SWISH;
  activationType(Input, "the input", Quant);
  sameType(Input, out(), "the output");
  rankBetween(Input, "the input", 1, 4);
  if (T == ELU)
    f32(1, "alpha");
  if (T == RELU || T == RELU1 || T == RELU6)
    sameQuant(Input, out(), "the output");
  if (T == TANH && Input.isQuant() && Level < 29)
    fail("a quantized input needs feature level 29; the device is at " +
         std::to_string(Level));
  if (Input.isQuant() && (T == LOGISTIC || T == TANH)) {
    const bool U = Input.Type == TENSOR_QUANT8_ASYMM;
    const float Scale = T == LOGISTIC ? 1.0f / 256 : 1.0f / 128;
    const int32_t Zp = T == LOGISTIC ? (U ? 0 : -128) : (U ? 128 : 0);
    if (out().Scale != Scale || out().ZeroPoint != Zp)
      fail("the output must have scale " + std::to_string(Scale) +
           " and zero point " + std::to_string(Zp));
  }
  dims(Input.Dims);
}

void Checker::quantize() {
  counts({1}, 1);
  type(in(0), "the input", {TENSOR_FLOAT32});
  type(out(), "the output", {TENSOR_QUANT8_ASYMM, TENSOR_QUANT8_ASYMM_SIGNED});
  rankBetween(in(0), "the input", 1, 4);
  dims(in(0).Dims);
}

void Checker::dequantize() {
  counts({1}, 1);
  type(in(0), "the input", {TENSOR_QUANT8_ASYMM, TENSOR_QUANT8_ASYMM_SIGNED});
  type(out(), "the output", {TENSOR_FLOAT32});
  rankBetween(in(0), "the input", 1, 4);
  dims(in(0).Dims);
}

/// RESIZE_BILINEAR: [input, outputWidth, outputHeight] (27), + layout (29),
/// + alignCorners, halfPixelCenters (30). RESIZE_NEAREST_NEIGHBOR: [input,
/// outputWidth, outputHeight, layout] (29), + the same two (30). NNAPI
/// makes the last two optional one by one, so 5 inputs (alignCorners only)
/// is a form too.
void Checker::resize() {
  const bool Bilinear = Op.Type == RESIZE_BILINEAR;
  if (Bilinear)
    counts({3, 4, 5, 6}, 1);
  else
    counts({4, 5, 6}, 1);
  const Operand &Input = in(0);
  activationType(Input, "the input");
  if (Bilinear && Input.isQuant() && Level < 29)
    fail("a quantized input needs feature level 29; the device is at " +
         std::to_string(Level));
  sameType(Input, out(), "the output");
  sameQuant(Input, out(), "the output");
  rank(Input, "the input", 4);
  if (in(1).Type == FLOAT32 || in(2).Type == FLOAT32)
    fail("the output size given as FLOAT32 scales (not supported; give the "
         "output width and height as INT32)");
  const int32_t OW = positive(1, "the output width");
  const int32_t OH = positive(2, "the output height");
  if (numIn() >= 4)
    layout(3, Bilinear);
  if (numIn() >= 5) {
    if (Level < 30)
      fail("the alignCorners and halfPixelCenters inputs need feature level "
           "30; the device is at " + std::to_string(Level));
    const bool Align = boolean(4, "alignCorners");
    const bool Half = numIn() == 6 && boolean(5, "halfPixelCenters");
    if (Align && Half)
      fail("alignCorners and halfPixelCenters are both true");
  }
  dims({Input.Dims[0], uint32_t(OH), uint32_t(OW), Input.Dims[3]});
}

void Checker::run() {
  for (size_t I = 0; I < Op.Outputs.size(); ++I)
    if (isTensorType(out(I).Type))
      for (uint32_t D : out(I).Dims)
        if (D == 0)
          fail("output " + std::to_string(I) + " has unspecified dimensions " +
               dimsString(out(I).Dims));
  switch (Op.Type) {
  case ADD: case SUB: case MUL: case DIV: case MAXIMUM: case MINIMUM:
    return binary();
  case POW:
    counts({2}, 1);
    activationType(in(0), "the base", false);
    sameType(in(0), in(1), "the exponent");
    sameType(in(0), out(), "the output");
    {
      std::vector<uint32_t> D;
      if (!broadcastDims(in(0).Dims, in(1).Dims, D))
        fail("inputs do not broadcast");
      dims(D);
    }
    return;
  case CONV_2D: case DEPTHWISE_CONV_2D: case GROUPED_CONV_2D:
  case TRANSPOSE_CONV_2D:
    return conv();
  case FULLY_CONNECTED:
    return fullyConnected();
  case BATCH_MATMUL:
    return batchMatmul();
  case AVERAGE_POOL_2D: case MAX_POOL_2D:
    return pool();
  case CONCATENATION:
    return concatenation();
  case RESHAPE:
    return reshape();
  case TRANSPOSE:
    return transpose();
  case SOFTMAX: case LOG_SOFTMAX:
    return softmax();
  case STRIDED_SLICE:
    return stridedSlice();
  case PAD: case PAD_V2:
    return pad();
  case MEAN: case REDUCE_SUM: case REDUCE_MAX: case REDUCE_MIN:
    return reduce();
  case GATHER:
    return gather();
  case EQUAL: case GREATER: case LESS:
    return comparison();
  case SELECT:
    return select();
  case CAST:
    return cast();
  case PRELU:
    return prelu();
  case RELU: case RELU1: case RELU6: case LOGISTIC: case TANH: case FLOOR:
  case ABS: case EXP: case LOG: case NEG: case SQRT: case RSQRT:
  case HARD_SWISH: case ELU:
    return unary();
  case QUANTIZE:
    return quantize();
  case DEQUANTIZE:
    return dequantize();
  case RESIZE_BILINEAR: case RESIZE_NEAREST_NEIGHBOR:
    return resize();
  case UNIDIRECTIONAL_SEQUENCE_LSTM:
    return validateSequenceLstm(M, Op, Level);
  default:
    fail("not supported by this device");
  }
}

} // namespace

namespace kiln::nnapi::host {

void validateOperation(const ANeuralNetworksModel &M, size_t Index, int Level) {
  const Operation &Op = M.Operations[Index];
  const OperationInfo *Info = findOperation(Op.Type);
  if (!Info)
    throw Invalid("unknown operation code " + std::to_string(Op.Type));
  if (Info->Level > Level)
    throw Invalid("needs feature level " + std::to_string(Info->Level) +
                  "; the device is at " + std::to_string(Level));
  if (Op.Type != UNIDIRECTIONAL_SEQUENCE_LSTM)
    for (size_t I = 0; I < Op.Inputs.size(); ++I)
      if (M.Operands[Op.Inputs[I]].Omitted)
        throw Invalid("input " + std::to_string(I) + " is omitted (" +
                      std::string(Info->Name) + " has no optional inputs)");
  Checker{M, Op, Level}.run();
}

} // namespace kiln::nnapi::host

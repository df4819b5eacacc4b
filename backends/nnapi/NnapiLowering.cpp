#include "backends/nnapi/NnapiLowering.h"
#include "backends/common/DeviceRefusals.h"

#include "Support/Error.h"
#include "numerics/FloatConversions.h"
#include "schema/nnapi/NeuralNetworksApi.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstring>
#include <algorithm>
#include <limits>

namespace kiln::nnapi {

std::vector<bool> nnapiDroppedAxes(const std::vector<int64_t> &Shape) {
  std::vector<bool> Dropped(Shape.size(), false);
  size_t Rank = Shape.size();
  for (size_t A = 0; A < Shape.size() && Rank > 4 && Shape[A] == 1; ++A) {
    Dropped[A] = true;
    --Rank;
  }
  if (Rank > 4)
    for (size_t A = 0; A < Shape.size(); ++A)
      if (Shape[A] == 1)
        Dropped[A] = true;
  return Dropped;
}

std::vector<uint32_t> nnapiDims(const std::vector<int64_t> &Shape) {
  if (Shape.empty())
    return {1};
  std::vector<bool> Dropped = nnapiDroppedAxes(Shape);
  std::vector<uint32_t> Dims;
  for (size_t A = 0; A < Shape.size(); ++A)
    if (!Dropped[A])
      Dims.push_back(uint32_t(Shape[A]));
  if (Dims.empty())
    Dims.push_back(1);
  return Dims;
}

namespace {

uint64_t elementCount(const std::vector<uint32_t> &Dims) {
  uint64_t N = 1;
  for (uint32_t D : Dims)
    N *= D;
  return N;
}


bool isHostKind(const fb::ModelT &M, const fb::OperatorT &Op, bool Before) {
  fb::OpKind K = Op.kind;
  if (K == fb::OpKind::TRANSPOSE || K == fb::OpKind::RESHAPE)
    return true;
  // int64 token ids narrowed to int32 (narrow-index-inputs): NNAPI has no
  // 64-bit tensors.
  if (K == fb::OpKind::CAST)
    return Before &&
           M.tensors[size_t(Op.inputs[0])]->dtype == fb::DType::I64 &&
           M.tensors[size_t(Op.outputs[0])]->dtype == fb::DType::I32;
  // An image input's frame is converted by the host, in the pass that
  // stages the NNAPI model's input anyway.
  if (K == fb::OpKind::PIXELS_TO_TENSOR)
    return Before;
  return K == (Before ? fb::OpKind::QUANTIZE : fb::OpKind::DEQUANTIZE);
}

} // namespace

Lowering::Lowering(KilnModule &M, LoweringOptions O)
    : M(M), O(O), P(*[&]() -> fb::NnapiPayloadT * {
        M.Model.payload.Set(fb::NnapiPayloadT());
        return M.Model.payload.AsNnapiPayload();
      }()) {}

bool Lowering::quantized(int32_t T) const {
  const fb::TensorT &Tn = tensor(T);
  return Tn.dtype == fb::DType::I8 && Tn.quant;
}

void Lowering::fail(int32_t Op, const std::string &Why) {
  std::string Line = Why;
  if (Op >= 0) {
    const fb::OperatorT &Oper = *M.Model.operators[size_t(Op)];
    Line = "node '" + Oper.name + "' (" + fb::EnumNameOpKind(Oper.kind) +
           "): " + Why;
  }
  if (std::find(Errors.begin(), Errors.end(), Line) == Errors.end())
    Errors.push_back(std::move(Line));
}

bool Lowering::need(int32_t Level, const std::string &What, int32_t Op) {
  if (Level > O.FeatureLevel) {
    fail(Op, What + ": needs NNAPI feature level " + std::to_string(Level) +
                 " (this file may use " + std::to_string(O.FeatureLevel) +
                 "; --nnapi-feature-level)");
    return false;
  }
  Needed = std::max(Needed, Level);
  return true;
}

uint32_t Lowering::addOperand(std::unique_ptr<fb::NnapiOperandT> Operand) {
  P.operands.push_back(std::move(Operand));
  return uint32_t(P.operands.size() - 1);
}

void Lowering::fillTensorType(fb::NnapiOperandT &Operand,
                              const fb::TensorT &T) {
  Operand.dimensions = nnapiDims(T.shape);
  for (uint32_t D : Operand.dimensions)
    if (D == 0) {
      fail(CurrentOp, "tensor '" + T.name + "' is empty: NNAPI has no "
                      "empty tensors");
      break;
    }
  // The runtime's loader refuses denormal scales (drivers may flush them to
  // 0): a product of two tiny imported scales (a bias's) is refused here,
  // naming the tensor, rather than written into a file that never loads.
  if (T.quant)
    for (float Scale : T.quant->scale)
      if (Scale > 0 && Scale < std::numeric_limits<float>::min()) {
        fail(CurrentOp, "tensor '" + T.name + "' has the quantization scale " +
                            llvm::formatv("{0:e}", Scale).str() +
                            ", a denormal number, which NNAPI drivers may "
                            "flush to 0");
        return;
      }
  switch (T.dtype) {
  case fb::DType::F32:
  case fb::DType::F16: // constants only: widened (relaxed fp16 computes)
    Operand.type = TENSOR_FLOAT32;
    return;
  case fb::DType::I64:
  case fb::DType::I32:
    if (T.buffer < 0 && T.dtype == fb::DType::I64)
      break; // an int64 activation: NNAPI has no 64-bit tensors
    Operand.type = TENSOR_INT32;
    // A bias of per-channel weights has scale 0 (NNAPI's rule: the scale
    // of bias[c] is input scale * weight scale[c]).
    if (T.quant && T.quant->axis < 0 && !T.quant->scale.empty())
      Operand.scale = T.quant->scale[0];
    return;
  case fb::DType::BOOL:
    Operand.type = TENSOR_BOOL8;
    return;
  case fb::DType::I8:
    if (!T.quant || T.quant->scale.empty())
      break;
    if (T.quant->axis >= 0) {
      need(29, "per-channel int8 weights (TENSOR_QUANT8_SYMM_PER_CHANNEL)",
           CurrentOp);
      Operand.type = TENSOR_QUANT8_SYMM_PER_CHANNEL;
      Operand.channel_dim = uint32_t(T.quant->axis);
      Operand.channel_scales = T.quant->scale;
      return;
    }
    Operand.scale = T.quant->scale[0];
    Operand.zero_point =
        T.quant->zero_point.empty() ? 0 : int32_t(T.quant->zero_point[0]);
    if (int8Signed()) {
      Operand.type = TENSOR_QUANT8_ASYMM_SIGNED;
    } else {
      // Below level 30, int8 values travel as uint8 with the zero point
      // shifted by 128.
      need(29, "int8 activations", CurrentOp);
      Operand.type = TENSOR_QUANT8_ASYMM;
      Operand.zero_point += 128;
    }
    return;
  default:
    break;
  }
  fail(CurrentOp, std::string("tensor '") + T.name + "' of type " +
                      fb::EnumNameDType(T.dtype) +
                      " has no NNAPI operand type");
  Operand.type = TENSOR_FLOAT32;
}

uint32_t Lowering::operandOf(int32_t T) {
  auto It = TensorOperands.find(T);
  if (It != TensorOperands.end())
    return It->second;
  const fb::TensorT &Tn = tensor(T);
  auto Operand = std::make_unique<fb::NnapiOperandT>();
  fillTensorType(*Operand, Tn);
  Operand->tensor = T;
  if (Tn.buffer >= 0) {
    // A constant: the kiln segment itself where NNAPI's bytes are the
    // same, else a converted copy.
    Operand->tensor = -1;
    if (Tn.layout == fb::Layout::BLOCKED || Tn.layout == fb::Layout::PACKED)
      fail(CurrentOp, "constant '" + Tn.name + "' is in a packed layout");
    const Segment &S = M.Segments[size_t(Tn.buffer)];
    uint64_t Count = elementCount(Operand->dimensions);
    std::vector<uint8_t> Converted;
    bool Same = true;
    if (Tn.dtype == fb::DType::F16 || Tn.dtype == fb::DType::I64 ||
        (Operand->type == TENSOR_QUANT8_ASYMM)) {
      Same = false;
      const uint8_t *Src = S.bytes().data();
      if (Tn.dtype == fb::DType::F16) {
        std::vector<float> F(Count);
        for (uint64_t I = 0; I < Count; ++I) {
          uint16_t H;
          std::memcpy(&H, Src + 2 * I, 2);
          F[I] = halfToFloat(H);
        }
        Converted = bytesOf(F);
      } else if (Tn.dtype == fb::DType::I64) {
        std::vector<int32_t> V(Count);
        for (uint64_t I = 0; I < Count; ++I) {
          int64_t X;
          std::memcpy(&X, Src + 8 * I, 8);
          if (X < INT32_MIN || X > INT32_MAX)
            fail(CurrentOp, "constant '" + Tn.name + "' does not fit int32");
          V[I] = int32_t(X);
        }
        Converted = bytesOf(V);
      } else {
        Converted.assign(Src, Src + Count);
        for (uint8_t &B : Converted)
          B ^= 0x80;
      }
    }
    if (Same) {
      Operand->source = fb::NnapiValueSource::SEGMENT;
      Operand->segment = Tn.buffer;
      uint32_t I = addOperand(std::move(Operand));
      TensorOperands[T] = I;
      return I;
    }
    uint32_t I = constant(Operand->type, Operand->dimensions, Operand->scale,
                          Operand->zero_point, std::move(Converted));
    P.operands[I]->channel_dim = Operand->channel_dim;
    P.operands[I]->channel_scales = Operand->channel_scales;
    TensorOperands[T] = I;
    return I;
  }
  uint32_t I = addOperand(std::move(Operand));
  TensorOperands[T] = I;
  return I;
}

uint32_t Lowering::floatOperandOf(int32_t T) {
  const fb::TensorT &Tn = tensor(T);
  if (Tn.buffer < 0 || Tn.dtype == fb::DType::F32 ||
      Tn.dtype == fb::DType::F16 || !Tn.quant || Tn.quant->scale.empty())
    return operandOf(T);
  auto It = FloatConstants.find(T);
  if (It != FloatConstants.end())
    return It->second;
  std::vector<uint32_t> Dims = nnapiDims(Tn.shape);
  uint64_t Count = elementCount(Dims);
  const uint8_t *Src = segmentBytes(Tn.buffer);
  const fb::QuantParamsT &Q = *Tn.quant;
  // The stride of the quantized axis, to find each element's channel.
  uint64_t Inner = 1;
  if (Q.axis >= 0)
    for (size_t D = size_t(Q.axis) + 1; D < Tn.shape.size(); ++D)
      Inner *= uint64_t(Tn.shape[D]);
  std::vector<float> F(Count);
  for (uint64_t I = 0; I < Count; ++I) {
    size_t C = Q.axis >= 0 ? size_t((I / Inner) % uint64_t(Tn.shape[size_t(Q.axis)]))
                           : 0;
    double Scale = Q.scale[std::min(C, Q.scale.size() - 1)];
    int64_t Zero = Q.zero_point.empty()
                       ? 0
                       : Q.zero_point[std::min(C, Q.zero_point.size() - 1)];
    int64_t V;
    if (Tn.dtype == fb::DType::I8) {
      V = int8_t(Src[I]);
    } else if (Tn.dtype == fb::DType::I32) {
      int32_t X;
      std::memcpy(&X, Src + 4 * I, 4);
      V = X;
    } else {
      fail(CurrentOp, "constant '" + Tn.name + "' of type " +
                          fb::EnumNameDType(Tn.dtype) + " in a float layer");
      break;
    }
    F[I] = float(double(V - Zero) * Scale);
  }
  uint32_t I = constant(TENSOR_FLOAT32, Dims, 0, 0, bytesOf(F));
  FloatConstants[T] = I;
  return I;
}

uint32_t Lowering::activationLike(uint32_t Like, std::vector<uint32_t> Dims) {
  auto Operand = std::make_unique<fb::NnapiOperandT>();
  const fb::NnapiOperandT &L = *P.operands[Like];
  Operand->type = L.type;
  Operand->scale = L.scale;
  Operand->zero_point = L.zero_point;
  Operand->channel_dim = L.channel_dim;
  Operand->channel_scales = L.channel_scales;
  Operand->dimensions = std::move(Dims);
  if (L.source != fb::NnapiValueSource::NONE) { // a view of a constant
    Operand->source = L.source;
    Operand->segment = L.segment;
    Operand->value = L.value;
  }
  return addOperand(std::move(Operand));
}

uint32_t Lowering::constant(int32_t Type, std::vector<uint32_t> Dims,
                            float Scale, int32_t ZeroPoint,
                            std::vector<uint8_t> Bytes) {
  auto Operand = std::make_unique<fb::NnapiOperandT>();
  Operand->type = Type;
  Operand->dimensions = std::move(Dims);
  Operand->scale = Scale;
  Operand->zero_point = ZeroPoint;
  if (Bytes.size() <= MAX_SIZE_OF_IMMEDIATELY_COPIED_VALUES) { // copied by NNAPI
    Operand->source = fb::NnapiValueSource::INLINE;
    Operand->value = std::move(Bytes);
  } else {
    Operand->source = fb::NnapiValueSource::SEGMENT;
    Operand->segment = M.addSegment(Segment(Buffer::own(std::move(Bytes))));
  }
  return addOperand(std::move(Operand));
}

uint32_t Lowering::scalarI32(int32_t V) {
  auto Key = std::make_pair(int32_t(INT32), uint32_t(V));
  auto It = Scalars.find(Key);
  if (It != Scalars.end())
    return It->second;
  uint32_t I = constant(INT32, {}, 0, 0, bytesOf(std::vector<int32_t>{V}));
  Scalars[Key] = I;
  return I;
}

uint32_t Lowering::scalarF32(float V) {
  uint32_t Bits;
  std::memcpy(&Bits, &V, 4);
  auto Key = std::make_pair(int32_t(FLOAT32), Bits);
  auto It = Scalars.find(Key);
  if (It != Scalars.end())
    return It->second;
  uint32_t I = constant(FLOAT32, {}, 0, 0, bytesOf(std::vector<float>{V}));
  Scalars[Key] = I;
  return I;
}

uint32_t Lowering::scalarBool(bool V) {
  auto Key = std::make_pair(int32_t(BOOL), uint32_t(V));
  auto It = Scalars.find(Key);
  if (It != Scalars.end())
    return It->second;
  uint32_t I = constant(BOOL, {}, 0, 0, {uint8_t(V)});
  Scalars[Key] = I;
  return I;
}

uint32_t Lowering::tensorI32(const std::vector<int32_t> &Values,
                             std::vector<uint32_t> Dims) {
  if (Dims.empty())
    Dims = {uint32_t(Values.size())};
  return constant(TENSOR_INT32, std::move(Dims), 0, 0, bytesOf(Values));
}

void Lowering::emit(int32_t Code, std::vector<uint32_t> Inputs,
                    std::vector<uint32_t> Outputs, int32_t Op) {
  const OperationInfo *Info = findOperation(Code);
  if (!need(Info ? Info->Level : 99,
            std::string("NNAPI ") + (Info ? Info->Name : "?"), Op))
    return;
  auto Operation = std::make_unique<fb::NnapiOperationT>();
  Operation->type = Code;
  Operation->inputs = std::move(Inputs);
  Operation->outputs = std::move(Outputs);
  Operation->operator_ = Op;
  P.operations.push_back(std::move(Operation));
}

int32_t Lowering::fuseCode(float Min, float Max) {
  const float Inf = std::numeric_limits<float>::infinity();
  if (Min == -Inf && Max == Inf)
    return FUSED_NONE;
  if (Min == 0 && Max == Inf)
    return FUSED_RELU;
  if (Min == -1 && Max == 1)
    return FUSED_RELU1;
  if (Min == 0 && Max == 6)
    return FUSED_RELU6;
  return -1;
}

bool Lowering::emitWithClamp(int32_t Code, std::vector<uint32_t> Before,
                             std::vector<uint32_t> After, uint32_t Out,
                             float Min, float Max, int32_t Op) {
  int32_t Fuse = fuseCode(Min, Max);
  auto Inputs = [&](int32_t F) {
    std::vector<uint32_t> In = Before;
    In.push_back(scalarI32(F));
    In.insert(In.end(), After.begin(), After.end());
    return In;
  };
  if (Fuse >= 0) {
    emit(Code, Inputs(Fuse), {Out}, Op);
    return true;
  }
  if (operand(Out).type != TENSOR_FLOAT32 && saturatesWithin(Out, Min, Max)) {
    emit(Code, Inputs(FUSED_NONE), {Out}, Op);
    return true;
  }
  if (operand(Out).type != TENSOR_FLOAT32) {
    // int8 (level 29 already): the operation into Out's parameters, then
    // MAXIMUM and MINIMUM with quantized bounds.
    uint32_t Raw = activationLike(Out, operand(Out).dimensions);
    emit(Code, Inputs(FUSED_NONE), {Raw}, Op);
    clampQuantized(Raw, Out, Min, Max, Op);
    return true;
  }
  if (!need(29, "a clamp to [" + std::to_string(Min) + ", " +
                    std::to_string(Max) + "] (MAXIMUM, MINIMUM)",
            Op))
    return false;
  uint32_t Raw = activationLike(Out, operand(Out).dimensions);
  emit(Code, Inputs(FUSED_NONE), {Raw}, Op);
  uint32_t Lo = constant(TENSOR_FLOAT32, {1}, 0, 0,
                         bytesOf(std::vector<float>{Min}));
  uint32_t Hi = constant(TENSOR_FLOAT32, {1}, 0, 0,
                         bytesOf(std::vector<float>{Max}));
  uint32_t Mid = activationLike(Out, operand(Out).dimensions);
  emit(MAXIMUM, {Raw, Lo}, {Mid}, Op);
  emit(MINIMUM, {Mid, Hi}, {Out}, Op);
  return true;
}

uint32_t Lowering::outputLike(uint32_t In, int32_t T) {
  uint32_t Out = operandOf(T);
  const fb::NnapiOperandT &A = operand(In), &B = operand(Out);
  if (A.type != B.type || A.type == TENSOR_FLOAT32 || A.type == TENSOR_INT32 ||
      (A.scale == B.scale && A.zero_point == B.zero_point))
    return Out;
  auto Operand = std::make_unique<fb::NnapiOperandT>();
  Operand->type = A.type;
  Operand->scale = A.scale;
  Operand->zero_point = A.zero_point;
  Operand->dimensions = B.dimensions;
  return addOperand(std::move(Operand));
}

void Lowering::finishOutput(uint32_t Written, int32_t T, int32_t Op) {
  uint32_t Out = operandOf(T);
  if (Written == Out)
    return;
  // Requantize: an ADD of a zero in Written's own parameters.
  emit(ADD, {Written, zeroLike(Written), scalarI32(FUSED_NONE)}, {Out}, Op);
}

bool Lowering::saturatesWithin(uint32_t Out, double Min, double Max) const {
  const fb::NnapiOperandT &O = operand(Out);
  const int32_t QLo = O.type == TENSOR_QUANT8_ASYMM ? 0 : -128;
  const int32_t QHi = O.type == TENSOR_QUANT8_ASYMM ? 255 : 127;
  const double Half = 0.5 * double(O.scale);
  return double(O.scale) * double(QLo - O.zero_point) >= Min - Half &&
         double(O.scale) * double(QHi - O.zero_point) <= Max + Half;
}

uint32_t Lowering::quantScalar(int32_t Type, float V) {
  const float Scale = V == 0 ? 1.0f : std::fabs(V) / 127;
  const int32_t Zp = Type == TENSOR_QUANT8_ASYMM ? 128 : 0;
  const int32_t Q = int32_t(std::lround(V / Scale)) + Zp;
  return constant(Type, {1}, Scale, Zp, {uint8_t(Q)});
}

void Lowering::clampQuantized(uint32_t X, uint32_t Out, float Min, float Max,
                              int32_t Op) {
  const float Inf = std::numeric_limits<float>::infinity();
  const int32_t Type = operand(X).type;
  uint32_t From = X;
  if (Min != -Inf) {
    uint32_t To = Max == Inf ? Out : activationLike(Out, operand(Out).dimensions);
    emit(MAXIMUM, {From, quantScalar(Type, Min)}, {To}, Op);
    From = To;
  }
  if (Max != Inf)
    emit(MINIMUM, {From, quantScalar(Type, Max)}, {Out}, Op);
}

uint32_t Lowering::activation(int32_t Type, std::vector<uint32_t> Dims,
                              float Scale, int32_t ZeroPoint) {
  auto Operand = std::make_unique<fb::NnapiOperandT>();
  Operand->type = Type;
  Operand->scale = Scale;
  Operand->zero_point = ZeroPoint;
  Operand->dimensions = std::move(Dims);
  return addOperand(std::move(Operand));
}

void Lowering::noteFloatIsland(int32_t Op, const std::string &Why) {
  const fb::OperatorT &Oper = *M.Model.operators[size_t(Op)];
  Islands.push_back("node '" + Oper.name + "' (" +
                    fb::EnumNameOpKind(Oper.kind) + "): " + Why);
}

uint32_t Lowering::zeroLike(uint32_t Like) {
  const fb::NnapiOperandT &W = operand(Like);
  uint8_t Zero = uint8_t(W.zero_point);
  return constant(W.type, {1}, W.scale, W.zero_point, {Zero});
}

void Lowering::lowerOperator(int32_t Op) {
  CurrentOp = Op;
  // NNAPI's operations take tensors of rank 4 at most; a longer shape loses
  // its 1s (nnapiDims), and one still longer is refused here, by name, not
  // by the device when the model is finished.
  // Dropping axes renumbers the rest: RESHAPE, TRANSPOSE (which remaps its
  // perm), CONCAT and SLICE (which remap their axes, and check that every
  // operand lost the same 1s) take any such tensor; elementwise operations
  // take one that lost leading 1s only (broadcasting aligns the trailing
  // axes); other operations with axis attributes, which are not remapped,
  // take none.
  const fb::OperatorT &O = *M.Model.operators[size_t(Op)];
  bool Movement = O.kind == fb::OpKind::RESHAPE ||
                  O.kind == fb::OpKind::TRANSPOSE ||
                  O.kind == fb::OpKind::CONCAT || O.kind == fb::OpKind::SLICE;
  bool Elementwise = O.kind == fb::OpKind::BINARY ||
                     O.kind == fb::OpKind::UNARY || O.kind == fb::OpKind::PRELU ||
                     O.kind == fb::OpKind::QUANTIZE ||
                     O.kind == fb::OpKind::DEQUANTIZE;
  for (const std::vector<int32_t> *List : {&O.inputs, &O.outputs})
    for (int32_t T : *List) {
      if (T < 0)
        continue;
      const std::vector<int64_t> &Shape = tensor(T).shape;
      std::string Rank = "tensor '" + tensor(T).name + "' has rank " +
                         std::to_string(Shape.size());
      if (nnapiDims(Shape).size() > 4)
        return fail(Op, Rank + " (NNAPI tensors have rank 4 at most)");
      if (Shape.size() <= 4 || Movement)
        continue;
      std::vector<bool> Dropped = nnapiDroppedAxes(Shape);
      bool OnlyLeading = true;
      for (size_t A = 1; A < Dropped.size(); ++A)
        OnlyLeading = OnlyLeading && (!Dropped[A] || Dropped[A - 1]);
      if (!Elementwise || !OnlyLeading)
        return fail(Op, Rank + ", which NNAPI holds at rank 4 with its "
                               "axes renumbered, and this operation's axes "
                               "would not follow");
    }
  switch (O.kind) {
  case fb::OpKind::CONV_2D:
    return lowerConv(*this, Op);
  case fb::OpKind::DECONV_2D:
    return lowerDeconv(*this, Op);
  case fb::OpKind::FULLY_CONNECTED:
    return lowerFullyConnected(*this, Op);
  case fb::OpKind::MAX_POOL_2D:
  case fb::OpKind::AVERAGE_POOL_2D:
  case fb::OpKind::GLOBAL_AVERAGE_POOL_2D:
  case fb::OpKind::GLOBAL_MAX_POOL_2D:
    return lowerPool(*this, Op);
  case fb::OpKind::BINARY:
    return lowerBinary(*this, Op);
  case fb::OpKind::UNARY:
    return lowerUnary(*this, Op);
  case fb::OpKind::SOFTMAX:
    return lowerSoftmax(*this, Op);
  case fb::OpKind::PRELU:
    return lowerPrelu(*this, Op);
  case fb::OpKind::TRANSPOSE:
  case fb::OpKind::RESHAPE:
  case fb::OpKind::CONCAT:
  case fb::OpKind::SLICE:
  case fb::OpKind::PAD:
  case fb::OpKind::GATHER:
    return lowerMovement(*this, Op);
  case fb::OpKind::REDUCE:
    return lowerReduce(*this, Op);
  case fb::OpKind::RESIZE:
    return lowerResize(*this, Op);
  case fb::OpKind::QUANTIZE:
  case fb::OpKind::DEQUANTIZE:
    return lowerQuantize(*this, Op);
  case fb::OpKind::CAST:
    return lowerCast(*this, Op);
  case fb::OpKind::MATMUL:
    return lowerBatchMatmul(*this, Op);
  case fb::OpKind::LSTM:
    return lowerLstm(*this, Op);
  case fb::OpKind::BOX_NMS:
    return fail(Op, BoxNmsOnCpuOnly);
  default:
    return fail(Op, "no NNAPI lowering for this operator");
  }
}

void Lowering::splitHostOperators() {
  const auto &Ops = M.Model.operators;
  std::set<int32_t> HostValues(M.Model.inputs.begin(), M.Model.inputs.end());
  for (size_t I = 0; I < Ops.size(); ++I) {
    const fb::OperatorT &Op = *Ops[I];
    if (Op.inputs.empty() || !isHostKind(M.Model, Op, true))
      continue;
    if (!HostValues.count(Op.inputs[0]))
      continue;
    P.host_before.push_back(uint32_t(I));
    HostOperators.insert(int32_t(I));
    for (int32_t T : Op.outputs)
      HostValues.insert(T);
  }
  // From the end: an operator whose results only host operators after it
  // read (or the caller) runs on the host.
  std::set<int32_t> GraphOutputs(M.Model.outputs.begin(),
                                 M.Model.outputs.end());
  std::map<int32_t, std::vector<int32_t>> Readers;
  for (size_t I = 0; I < Ops.size(); ++I)
    for (int32_t T : Ops[I]->inputs)
      if (T >= 0)
        Readers[T].push_back(int32_t(I));
  std::vector<uint32_t> After;
  for (size_t I = Ops.size(); I-- > 0;) {
    const fb::OperatorT &Op = *Ops[I];
    if (HostOperators.count(int32_t(I)) || !isHostKind(M.Model, Op, false))
      continue;
    bool OnlyHost = true;
    for (int32_t T : Op.outputs) {
      for (int32_t R : Readers[T])
        OnlyHost &= HostOperators.count(R) && R > int32_t(I);
      OnlyHost &= GraphOutputs.count(T) || !Readers[T].empty();
    }
    if (!OnlyHost)
      continue;
    After.insert(After.begin(), uint32_t(I));
    HostOperators.insert(int32_t(I));
  }
  P.host_after = After;
  // A graph of nothing but such conversions runs on NNAPI whole.
  if (HostOperators.size() == Ops.size()) {
    HostOperators.clear();
    P.host_before.clear();
    P.host_after.clear();
  }
}

llvm::Error Lowering::run() {
  bool Int8 = false;
  for (const auto &T : M.Model.tensors)
    Int8 |= T->dtype == fb::DType::I8;
  if (Int8 && O.FeatureLevel < 29)
    return inputError(
        "the model cannot run on NNAPI at feature level {0}: int8 needs "
        "feature level 29 (per-channel weights, "
        "TENSOR_QUANT8_SYMM_PER_CHANNEL); convert with "
        "--nnapi-feature-level 29 or above, or without --quantize int8",
        O.FeatureLevel);
  splitHostOperators();
  const auto &Ops = M.Model.operators;
  for (size_t I = 0; I < Ops.size(); ++I)
    if (!HostOperators.count(int32_t(I)))
      lowerOperator(int32_t(I));
  if (O.RelaxFp16) {
    CurrentOp = -1;
    P.relax_fp32_to_fp16 = true;
    Needed = std::max(Needed, 28);
    if (O.FeatureLevel < 28)
      Errors.push_back("--quantize fp16 (relaxComputationFloat32toFloat16) "
                       "needs NNAPI feature level 28");
  }
  if (Errors.empty() && P.operations.empty())
    Errors.push_back("nothing is left for NNAPI to run (the graph is only "
                     "layout and quantize conversions)");
  if (!Errors.empty())
    return unsupportedError("the model cannot run on NNAPI at feature level {0} "
                      "({1} problem{2}):\n  {3}",
                      O.FeatureLevel, Errors.size(),
                      Errors.size() == 1 ? "" : "s",
                      llvm::join(Errors, "\n  "));
  // Model inputs: operands of kiln activations no operation writes;
  // outputs: graph outputs and what host_after reads, written here.
  std::set<uint32_t> Written;
  for (const auto &Op : P.operations)
    Written.insert(Op->outputs.begin(), Op->outputs.end());
  std::set<int32_t> Wanted(M.Model.outputs.begin(), M.Model.outputs.end());
  for (uint32_t H : P.host_after)
    for (int32_t T : Ops[H]->inputs)
      Wanted.insert(T);
  for (int32_t H : HostOperators)
    for (int32_t T : Ops[size_t(H)]->outputs)
      Wanted.erase(T);
  for (const auto &[T, Operand] : TensorOperands) {
    if (P.operands[Operand]->source != fb::NnapiValueSource::NONE)
      continue;
    if (!Written.count(Operand))
      P.inputs.push_back(Operand);
    else if (Wanted.count(T))
      P.outputs.push_back(Operand);
  }
  for (int32_t T : Wanted)
    if (!TensorOperands.count(T) ||
        !Written.count(TensorOperands.at(T)))
      return inputError("the model cannot run on NNAPI: its output '{0}' is "
                        "not computed by an NNAPI operation",
                        tensor(T).name);
  for (const auto &Operand : P.operands)
    if (const OperationInfo *T = findOperandType(Operand->type))
      Needed = std::max(Needed, T->Level);
  P.feature_level = Needed;
  return llvm::Error::success();
}

} // namespace kiln::nnapi

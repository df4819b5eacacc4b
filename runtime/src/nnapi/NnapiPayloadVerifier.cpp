#include "nnapi/NnapiPayloadVerifier.h"

#include "loader/Limits.h"
#include "loader/OpValidation.h"
#include "loader/TensorDesc.h"
#include "schema/nnapi/NeuralNetworksApi.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace kiln::rt {

namespace nn = kiln::nnapi;

namespace {

/// The feature levels the loader admits (Android 8.1 to 12, and feature
/// level 6 of Android 13; nn::isFeatureLevel picks them from the range).
constexpr int32_t MinLevel = 27, MaxLevel = nn::FeatureLevel6;

/// NNAPI's input signatures of the ops kiln emits (implicit and explicit
/// padding; optional layout and dilation), one letter an input: T a tensor,
/// I TENSOR_INT32, i INT32, b BOOL, f FLOAT32 or FLOAT16, s INT32, FLOAT32
/// or FLOAT16; space-separated. CONCATENATION is T... i. The types tell
/// apart signatures of one length (CONV_2D's explicit padding and implicit
/// padding with layout and dilation).
const char *signatures(int32_t Code) {
  switch (Code) {
  case nn::ADD: case nn::MUL: case nn::SUB: case nn::DIV:
    return "TTi";
  case nn::MEAN:
    return "TIi";
  case nn::REDUCE_MAX: case nn::REDUCE_MIN: case nn::REDUCE_SUM:
    return "TIb";
  case nn::PAD_V2:
    return "TIs";
  case nn::GATHER:
    return "TiI";
  case nn::LOG_SOFTMAX:
    return "Tfi";
  case nn::AVERAGE_POOL_2D: case nn::MAX_POOL_2D:
    return "Tiiiiiiiii Tiiiiiiiiib Tiiiiii Tiiiiiib";
  case nn::CONV_2D:
    return "TTTiiiiiii TTTiiiiiiib TTTiiiiiiibii TTTiiii TTTiiiib TTTiiiibii";
  case nn::DEPTHWISE_CONV_2D:
    return "TTTiiiiiiii TTTiiiiiiiib TTTiiiiiiiibii TTTiiiii TTTiiiiib "
           "TTTiiiiibii";
  case nn::GROUPED_CONV_2D:
    return "TTTiiiiiiiib TTTiiiiib";
  case nn::TRANSPOSE_CONV_2D:
    return "TTTiiiiiiib TTTIiiiib";
  case nn::FULLY_CONNECTED:
    return "TTTi";
  case nn::BATCH_MATMUL:
    return "TTbb";
  case nn::RESHAPE: case nn::TRANSPOSE: case nn::PAD:
    return "TI";
  case nn::MAXIMUM: case nn::MINIMUM: case nn::POW: case nn::PRELU:
  case nn::EQUAL: case nn::GREATER: case nn::LESS:
    return "TT";
  case nn::SELECT:
    return "TTT";
  case nn::ELU:
    return "Tf";
  case nn::SOFTMAX:
    return "Tf Tfi";
  case nn::STRIDED_SLICE:
    return "TIIIiii";
  case nn::RESIZE_BILINEAR:
    return "Tss Tssb Tssbb Tssbbb";
  case nn::RESIZE_NEAREST_NEIGHBOR:
    return "Tssb Tssbb Tssbbb";
  case nn::UNIDIRECTIONAL_SEQUENCE_LSTM: // without and with layer norm
    return "TTTTTTTTTTTTTTTTTTTTiffb TTTTTTTTTTTTTTTTTTTTiffbTTTT";
  default: // unary: FLOOR, LOGISTIC, RELU*, TANH, ABS, EXP, LOG, NEG, ...
    return "T";
  }
}

bool typeFits(char Want, int32_t T) {
  switch (Want) {
  case 'T': return nn::isTensorType(T);
  case 'I': return T == nn::TENSOR_INT32;
  case 'i': return T == nn::INT32;
  case 'b': return T == nn::BOOL;
  case 'f': return T == nn::FLOAT32 || T == nn::FLOAT16;
  default: return T == nn::INT32 || T == nn::FLOAT32 || T == nn::FLOAT16;
  }
}

/// Whether the inputs (indices already checked) fit a signature of Code.
bool signatureOk(const fb::NnapiPayload &P, const fb::NnapiOperation &Op) {
  const auto &In = *Op.inputs();
  auto TypeAt = [&](unsigned I) { return P.operands()->Get(In[I])->type(); };
  size_t N = In.size();
  if (Op.type() == nn::CONCATENATION) {
    if (N < 2 || N > limits::MaxOperatorInputs || !typeFits('i', TypeAt(N - 1)))
      return false;
    for (unsigned I = 0; I + 1 < N; ++I)
      if (!typeFits('T', TypeAt(I)))
        return false;
    return true;
  }
  for (const char *Sig = signatures(Op.type()); *Sig;) {
    size_t Len = std::strcspn(Sig, " ");
    bool Fits = Len == N;
    for (unsigned I = 0; I < N && Fits; ++I)
      Fits = typeFits(Sig[I], TypeAt(I));
    if (Fits)
      return true;
    Sig += Len + (Sig[Len] == ' ');
  }
  return false;
}

/// Whether input I of operation Code may be left out (an OMITTED operand):
/// UNIDIRECTIONAL_SEQUENCE_LSTM's input-gate (CIFG), peephole, projection
/// and layer-norm weights and its input-gate bias.
bool optionalInput(int32_t Code, unsigned I) {
  return Code == nn::UNIDIRECTIONAL_SEQUENCE_LSTM &&
         (I == 1 || I == 5 || I == 9 || I == 10 || I == 11 || I == 12 ||
          I == 16 || I == 17 || I >= 24);
}

/// Outputs operation Code may have at Level: UNIDIRECTIONAL_SEQUENCE_LSTM's
/// final states are outputs 1 and 2 from level 30.
bool outputCountOk(int32_t Code, size_t N, int32_t Level) {
  if (Code == nn::UNIDIRECTIONAL_SEQUENCE_LSTM)
    return N == 1 || (N == 3 && Level >= 30);
  return N == 1;
}

bool isQuant8(int32_t T) {
  return T == nn::TENSOR_QUANT8_ASYMM || T == nn::TENSOR_QUANT8_ASYMM_SIGNED ||
         T == nn::TENSOR_QUANT8_SYMM_PER_CHANNEL;
}

/// A scale below the smallest normal float: drivers that flush denormals
/// (most NPUs and GPUs) read it as 0, and 1/scale overflows.
Status denormalScale(const std::string &What, float S) {
  return invalidModel(What, " is ", S, ", a denormal number (below ",
                      std::numeric_limits<float>::min(),
                      "), which NNAPI drivers may flush to 0");
}

Status checkQuant(const fb::NnapiOperand &O) {
  int32_t T = O.type();
  size_t NumChannel = O.channel_scales() ? O.channel_scales()->size() : 0;
  if (T == nn::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
    const flatbuffers::Vector<uint32_t> *Dims = O.dimensions();
    size_t Rank = Dims ? Dims->size() : 0;
    if (O.channel_dim() >= Rank)
      return invalidModel("channel_dim ", O.channel_dim(), " of rank ", Rank);
    uint32_t Channels = flatbuffers::EndianScalar(Dims->data()[O.channel_dim()]);
    if (NumChannel != Channels)
      return invalidModel(NumChannel, " channel scales, expected ", Channels,
                          " (dim ", O.channel_dim(), ")");
    for (unsigned K = 0; K < NumChannel; ++K) {
      float S = O.channel_scales()->Get(K);
      if (!std::isfinite(S) || !(S > 0))
        return invalidModel("channel scale ", K, " is ", S,
                            ", expected a finite value > 0");
      if (S < std::numeric_limits<float>::min())
        return denormalScale(concat("channel scale ", K), S);
    }
    if (O.scale() != 0 || O.zero_point() != 0)
      return invalidModel("per-channel operand with scale ", O.scale(),
                          " and zero point ", O.zero_point(),
                          " (NNAPI wants 0 and 0)");
    return Status::ok();
  }
  if (NumChannel)
    return invalidModel("channel scales on a ", nn::findOperandType(T)->Name,
                        " operand");
  float S = O.scale();
  if (T == nn::TENSOR_QUANT8_ASYMM || T == nn::TENSOR_QUANT8_ASYMM_SIGNED) {
    if (!std::isfinite(S) || !(S > 0))
      return invalidModel("scale is ", S, ", expected a finite value > 0");
    if (S < std::numeric_limits<float>::min())
      return denormalScale("scale", S);
    int32_t Lo = T == nn::TENSOR_QUANT8_ASYMM ? 0 : -128;
    int32_t Hi = T == nn::TENSOR_QUANT8_ASYMM ? 255 : 127;
    if (O.zero_point() < Lo || O.zero_point() > Hi)
      return invalidModel("zero point ", O.zero_point(), " is outside [", Lo,
                          ", ", Hi, "]");
    return Status::ok();
  }
  if (!std::isfinite(S) || S < 0)
    return invalidModel("scale is ", S, ", expected a finite value >= 0");
  if (S != 0 && S < std::numeric_limits<float>::min())
    return denormalScale("scale", S);
  return Status::ok();
}

Status checkValue(const fb::Model &M, const fb::NnapiOperand &O) {
  size_t ValueBytes = O.value() ? O.value()->size() : 0;
  uint64_t Bytes = nnapiOperandBytes(O);
  switch (O.source()) {
  case fb::NnapiValueSource::NONE:
    if (ValueBytes || O.segment() != -1)
      return invalidModel("a computed operand (source NONE) with a value");
    return Status::ok();
  case fb::NnapiValueSource::INLINE:
    if (ValueBytes != Bytes)
      return invalidModel("inline value of ", ValueBytes,
                          " bytes, but the operand takes ", Bytes);
    if (O.segment() != -1)
      return invalidModel("inline value with segment ", O.segment());
    if (ValueBytes > nn::MAX_SIZE_OF_IMMEDIATELY_COPIED_VALUES)
      return invalidModel("inline value of ", ValueBytes, " bytes (NNAPI "
                          "copies at most ", nn::MAX_SIZE_OF_IMMEDIATELY_COPIED_VALUES,
                          " bytes of a value; a larger one is a segment)");
    return Status::ok();
  case fb::NnapiValueSource::OMITTED:
    if (ValueBytes || O.segment() != -1 || O.tensor() != -1)
      return invalidModel("an omitted operand with a value or a tensor");
    return Status::ok();
  case fb::NnapiValueSource::SEGMENT: {
    size_t NumSegments = M.buffers() ? M.buffers()->size() : 0;
    if (O.segment() < 0 || size_t(O.segment()) >= NumSegments)
      return invalidModel("segment ", O.segment(), " of ", NumSegments);
    if (ValueBytes)
      return invalidModel("segment value with inline bytes");
    uint64_t Stored = M.buffers()->Get(unsigned(O.segment()))->size();
    if (Stored != Bytes)
      return invalidModel("segment ", O.segment(), " holds ", Stored,
                          " bytes, but the operand takes ", Bytes);
    return Status::ok();
  }
  default:
    return invalidModel("unknown value source ", unsigned(O.source()));
  }
}

Status checkOperand(const fb::Model &M, const std::vector<TensorDesc> &Tensors,
                    int32_t Level, const fb::NnapiOperand &O) {
  const nn::OperationInfo *Type = nn::findOperandType(O.type());
  if (!Type)
    return invalidModel("unknown operand type ", O.type());
  if (Type->Level > Level)
    return invalidModel(Type->Name, " needs feature level ", Type->Level,
                        ", the payload's is ", Level);
  size_t Rank = O.dimensions() ? O.dimensions()->size() : 0;
  if (!nn::isTensorType(O.type())) {
    if (Rank)
      return invalidModel("scalar ", Type->Name, " with ", Rank, " dims");
  } else {
    if (Rank == 0 || Rank > limits::MaxRank)
      return invalidModel(Type->Name, " of rank ", Rank, " (1 to ",
                          limits::MaxRank, ")");
    uint64_t Elements = 1;
    for (uint32_t D : *O.dimensions()) {
      if (D == 0)
        return invalidModel(Type->Name, " with a dim 0");
      if (__builtin_mul_overflow(Elements, uint64_t(D), &Elements) ||
          Elements > limits::MaxTensorBytes)
        return invalidModel(Type->Name, " is too large");
    }
    if (Elements * nn::elementBytes(O.type()) > limits::MaxTensorBytes)
      return invalidModel(Type->Name, " is too large");
  }
  if (Status S = checkQuant(O))
    return S;
  if (Status S = checkValue(M, O))
    return S;
  int32_t T = O.tensor();
  if (T < -1 || (T >= 0 && size_t(T) >= Tensors.size()))
    return invalidModel("tensor ", T, " of ", Tensors.size());
  if (T >= 0) {
    const TensorDesc &D = Tensors[size_t(T)];
    if (D.Elements != nnapiOperandElements(O) ||
        dtypeSize(D.DType) != nn::elementBytes(O.type()) || D.Blocked)
      return invalidModel(Type->Name, " of ",
                          nnapiOperandElements(O), " elements does not match "
                          "tensor ", T, " '", D.Name, "' (",
                          dtypeName(D.DType), shapeString(D.Shape), ")");
    if (isQuant8(O.type()) && D.DType != fb::DType::I8 &&
        D.DType != fb::DType::U8)
      return invalidModel(Type->Name, " maps ", dtypeName(D.DType),
                          " tensor ", T);
  }
  return Status::ok();
}

/// Operand indices, the model's io and the order of the operations.
/// Written[i]: operand i has a value: 1 a constant or a model input, 2 an
/// earlier operation's output.
Status checkOperations(const fb::NnapiPayload &P, int32_t Level,
                       const std::vector<TensorDesc> &Tensors,
                       std::vector<char> &Written) {
  size_t NumOperands = Written.size();
  // The operand whose values each tensor holds: the model's inputs, then
  // operation outputs (each read back into its own host buffer).
  std::vector<int64_t> Holder(Tensors.size(), -1);
  for (uint32_t X : *P.inputs())
    Holder[size_t(P.operands()->Get(X)->tensor())] = X;
  size_t N = P.operations() ? P.operations()->size() : 0;
  if (N > limits::MaxOperators)
    return invalidModel("too many NNAPI operations (", N, ")");
  for (unsigned I = 0; I < N; ++I) {
    const fb::NnapiOperation *Op = P.operations()->Get(I);
    const nn::OperationInfo *Info = nn::findOperation(Op->type());
    if (!Info)
      return invalidModel("NNAPI operation ", I, ": unknown operation code ",
                          Op->type());
    std::string Where = concat("NNAPI operation ", I, " (", Info->Name, ")");
    if (Info->Level > Level)
      return invalidModel(Where, ": needs feature level ", Info->Level,
                          ", the payload's is ", Level);
    size_t NumIn = Op->inputs() ? Op->inputs()->size() : 0;
    size_t NumOut = Op->outputs() ? Op->outputs()->size() : 0;
    if (NumIn == 0 || NumIn > limits::MaxOperatorInputs)
      return invalidModel(Where, ": ", NumIn, " inputs");
    if (!outputCountOk(Op->type(), NumOut, Level))
      return invalidModel(Where, ": ", NumOut, " outputs at feature level ",
                          Level);
    for (unsigned K = 0; K < NumIn; ++K) {
      uint32_t X = Op->inputs()->Get(K);
      if (X >= NumOperands)
        return invalidModel(Where, ": input operand ", X, " of ", NumOperands);
      if (!Written[X])
        return invalidModel(Where, ": input operand ", X,
                            " is used before it is defined");
      if (P.operands()->Get(X)->source() == fb::NnapiValueSource::OMITTED &&
          !optionalInput(Op->type(), K))
        return invalidModel(Where, ": input ", K, " (operand ", X,
                            ") is omitted, but the operation needs it");
    }
    if (!signatureOk(P, *Op))
      return invalidModel(Where, ": ", NumIn, " inputs whose count or types "
                          "fit none of NNAPI's signatures");
    for (uint32_t X : *Op->outputs()) {
      if (X >= NumOperands)
        return invalidModel(Where, ": output operand ", X, " of ", NumOperands);
      if (!nn::isTensorType(P.operands()->Get(X)->type()))
        return invalidModel(Where, ": output operand ", X, " is a scalar");
      if (Written[X])
        return invalidModel(Where, ": output operand ", X, " already has a "
                            "value (a constant, a model input or another "
                            "operation's output)");
      Written[X] = 2; // computed
      int32_t T = P.operands()->Get(X)->tensor();
      if (T < 0)
        continue;
      if (Tensors[size_t(T)].isConstant())
        return invalidModel(Where, ": output operand ", X, " maps constant "
                            "tensor ", T);
      if (Holder[size_t(T)] >= 0)
        return invalidModel(Where, ": output operand ", X, " maps tensor ", T,
                            ", which operand ", Holder[size_t(T)],
                            " maps too");
      Holder[size_t(T)] = X;
    }
  }
  return Status::ok();
}

Status checkModelIo(const fb::NnapiPayload &P,
                    const std::vector<TensorDesc> &Tensors,
                    std::vector<char> &Written, bool Inputs) {
  const auto *V = Inputs ? P.inputs() : P.outputs();
  const char *What = Inputs ? "NNAPI model input " : "NNAPI model output ";
  size_t NumOperands = Written.size();
  std::vector<char> Seen(NumOperands, 0);
  if (!V || V->size() == 0)
    return invalidModel("the NNAPI model has no ",
                        Inputs ? "inputs" : "outputs");
  for (unsigned I = 0; I < V->size(); ++I) {
    uint32_t X = V->Get(I);
    if (X >= NumOperands)
      return invalidModel(What, I, ": operand ", X, " of ", NumOperands);
    if (Seen[X]++)
      return invalidModel(What, I, ": operand ", X, " is listed twice");
    const fb::NnapiOperand *O = P.operands()->Get(X);
    if (!nn::isTensorType(O->type()))
      return invalidModel(What, I, ": operand ", X, " is a scalar");
    if (O->tensor() < 0)
      return invalidModel(What, I, ": operand ", X, " maps no tensor");
    if (Tensors[size_t(O->tensor())].isConstant())
      return invalidModel(What, I, ": operand ", X, " maps constant tensor ",
                          O->tensor());
    if (Inputs) {
      if (O->source() != fb::NnapiValueSource::NONE)
        return invalidModel(What, I, ": operand ", X, " has a value");
      Written[X] = 1;
    }
  }
  return Status::ok();
}

/// The host steps and the tensors between them: graph inputs -> host_before
/// -> the model's inputs; its outputs -> host_after -> the graph outputs.
class HostFlow {
public:
  HostFlow(const fb::Model &M, const std::vector<TensorDesc> &Tensors)
      : M(M), Tensors(Tensors), Have(Tensors.size(), 0) {
    for (size_t T = 0; T < Tensors.size(); ++T)
      Have[T] = Tensors[T].isConstant();
    if (M.inputs())
      for (int32_t X : *M.inputs())
        Have[size_t(X)] = 1;
  }

  Status steps(const flatbuffers::Vector<uint32_t> *Ops, const char *List) {
    size_t NumOps = M.operators() ? M.operators()->size() : 0;
    if (!Ops)
      return Status::ok();
    for (unsigned I = 0; I < Ops->size(); ++I) {
      uint32_t K = Ops->Get(I);
      std::string Where = concat(List, " ", I);
      if (K >= NumOps)
        return invalidModel(Where, ": operator ", K, " of ", NumOps);
      const fb::Operator &Op = *M.operators()->Get(K);
      fb::OpKind Kind = Op.kind();
      Where += concat(" (operator ", K, ", ", opKindName(Kind), ")");
      if (Kind != fb::OpKind::TRANSPOSE && Kind != fb::OpKind::RESHAPE &&
          Kind != fb::OpKind::QUANTIZE && Kind != fb::OpKind::DEQUANTIZE &&
          Kind != fb::OpKind::PIXELS_TO_TENSOR && Kind != fb::OpKind::CAST)
        return invalidModel(Where, ": the host runs only TRANSPOSE, RESHAPE, "
                            "QUANTIZE, DEQUANTIZE, PIXELS_TO_TENSOR and "
                            "CAST (i64 to i32)");
      OpView View{Op, {}, {}};
      if (!Op.inputs() || !Op.outputs())
        return invalidModel(Where, ": no inputs or outputs");
      if (Kind == fb::OpKind::CAST &&
          (Op.inputs()->size() != 1 || Op.outputs()->size() != 1 ||
           Op.inputs()->Get(0) < 0 ||
           Tensors[size_t(Op.inputs()->Get(0))].DType != fb::DType::I64 ||
           Tensors[size_t(Op.outputs()->Get(0))].DType != fb::DType::I32))
        return invalidModel(Where, ": the host casts only i64 to i32");
      for (int32_t X : *Op.inputs()) { // indices checked by the loader
        if (X < 0)
          return invalidModel(Where, ": an absent input");
        if (!Have[size_t(X)])
          return invalidModel(Where, ": input tensor ", X,
                              " has no value yet");
        View.In.push_back(&Tensors[size_t(X)]);
      }
      for (int32_t X : *Op.outputs()) {
        if (Status S = produce(X))
          return S.withContext(Where);
        View.Out.push_back(&Tensors[size_t(X)]);
      }
      if (Status S = validateOperator(View))
        return S.withContext(Where);
    }
    return Status::ok();
  }

  Status modelIo(const fb::NnapiPayload &P) {
    for (uint32_t X : *P.inputs()) {
      int32_t T = P.operands()->Get(X)->tensor();
      if (!Have[size_t(T)])
        return invalidModel("NNAPI model input operand ", X, ": tensor ", T,
                            " is neither a graph input nor a host_before "
                            "result");
    }
    for (uint32_t X : *P.outputs())
      if (Status S = produce(P.operands()->Get(X)->tensor()))
        return S.withContext(concat("NNAPI model output operand ", X));
    return Status::ok();
  }

  Status graphOutputs() {
    if (M.outputs())
      for (int32_t X : *M.outputs())
        if (!Have[size_t(X)])
          return invalidModel("graph output tensor ", X, " '",
                              Tensors[size_t(X)].Name,
                              "' is computed by neither the NNAPI model nor "
                              "the host");
    return Status::ok();
  }

private:
  Status produce(int32_t T) {
    if (Have[size_t(T)]++)
      return invalidModel("tensor ", T, " '", Tensors[size_t(T)].Name,
                          "' is written twice");
    return Status::ok();
  }

  const fb::Model &M;
  const std::vector<TensorDesc> &Tensors;
  std::vector<char> Have;
};

} // namespace

uint64_t nnapiOperandElements(const fb::NnapiOperand &O) {
  uint64_t N = 1;
  if (O.dimensions())
    for (uint32_t D : *O.dimensions())
      N *= D;
  return N;
}

uint64_t nnapiOperandBytes(const fb::NnapiOperand &O) {
  return nnapiOperandElements(O) * nn::elementBytes(O.type());
}

Status verifyNnapiPayload(const fb::Model &M,
                          const std::vector<TensorDesc> &Tensors) {
  const fb::NnapiPayload *P = M.payload_as_NnapiPayload();
  if (!P)
    return invalidModel("the file has no nnapi payload");
  int32_t Level = P->feature_level();
  if (Level < MinLevel || Level > MaxLevel || !nn::isFeatureLevel(Level))
    return invalidModel("NNAPI feature level ", Level, " is not one of 27, "
                        "28, 29, 30, 31 and ", nn::FeatureLevel6);
  if (P->relax_fp32_to_fp16() && Level < 28)
    return invalidModel("relax_fp32_to_fp16 needs feature level 28");
  size_t NumOperands = P->operands() ? P->operands()->size() : 0;
  if (NumOperands > limits::MaxTensors)
    return invalidModel("too many NNAPI operands (", NumOperands, ")");
  std::vector<char> Written(NumOperands, 0);
  for (unsigned I = 0; I < NumOperands; ++I) {
    const fb::NnapiOperand &O = *P->operands()->Get(I);
    if (Status S = checkOperand(M, Tensors, Level, O))
      return S.withContext(concat("NNAPI operand ", I));
    Written[I] = O.source() != fb::NnapiValueSource::NONE;
  }
  if (Status S = checkModelIo(*P, Tensors, Written, true))
    return S;
  if (Status S = checkOperations(*P, Level, Tensors, Written))
    return S;
  if (Status S = checkModelIo(*P, Tensors, Written, false))
    return S;
  for (uint32_t X : *P->outputs())
    if (Written[X] != 2)
      return invalidModel("NNAPI model output operand ", X,
                          " is computed by no operation");
  size_t NumOps = M.operators() ? M.operators()->size() : 0;
  if (P->operations())
    for (unsigned I = 0; I < P->operations()->size(); ++I) {
      int32_t K = P->operations()->Get(I)->operator_();
      if (K < -1 || (K >= 0 && size_t(K) >= NumOps))
        return invalidModel("NNAPI operation ", I, ": operator ", K, " of ",
                            NumOps);
    }
  HostFlow Flow(M, Tensors);
  if (Status S = Flow.steps(P->host_before(), "host_before"))
    return S;
  if (Status S = Flow.modelIo(*P))
    return S;
  if (Status S = Flow.steps(P->host_after(), "host_after"))
    return S;
  return Flow.graphOutputs();
}

} // namespace kiln::rt

// LSTM (a forward LSTM over a whole sequence) as NNAPI's
// UNIDIRECTIONAL_SEQUENCE_LSTM, feature level 29. An LSTM reaches this
// lowering only where the NNAPI pipeline kept it whole
// (unroll-recurrence-keep-lstm at --nnapi-feature-level 29 and above);
// below that level unroll-recurrence has already written it as per-step
// FULLY_CONNECTED, LOGISTIC, TANH, MUL and ADD.
//
// kiln's LSTM holds w [4H, I] and r [4H, H] with gate rows i, o, f, c (as
// ONNX orders them) and one bias [4H] (ONNX's Wb + Rb); NNAPI takes one
// matrix and one bias per gate, in the order input, forget, cell, output.
// No peepholes and no projection (those inputs are OMITTED), sigmoid gates,
// tanh (activation 4) for the cell input and the output, no clipping. The
// initial states are operands (zeros when the graph gives none). y_h, the
// last step's hidden state, is a STRIDED_SLICE of the output (the
// operation's own final-state outputs need level 30). kiln's LSTM has no
// final cell state: an lstm whose y_c is read is unrolled.
#include "backends/nnapi/NnapiLowering.h"
#include "numerics/FloatConversions.h"
#include "schema/nnapi/NeuralNetworksApi.h"

#include <cstring>
#include <string>

namespace kiln::nnapi {

namespace {

/// The values of constant kiln tensor T as floats (F32 or F16), or an
/// empty vector when it is not such a constant.
std::vector<float> floatValues(const Lowering &L, int32_t T) {
  const fb::TensorT &Tn = L.tensor(T);
  if (Tn.buffer < 0 || Tn.quant)
    return {};
  size_t Count = 1;
  for (int64_t D : Tn.shape)
    Count *= size_t(D);
  std::vector<float> V(Count);
  const uint8_t *Src = L.segmentBytes(Tn.buffer);
  if (Tn.dtype == fb::DType::F32) {
    std::memcpy(V.data(), Src, Count * 4);
  } else if (Tn.dtype == fb::DType::F16) {
    for (size_t I = 0; I < Count; ++I) {
      uint16_t H;
      std::memcpy(&H, Src + 2 * I, 2);
      V[I] = halfToFloat(H);
    }
  } else {
    return {};
  }
  return V;
}

/// Rows [Gate * H, (Gate + 1) * H) of a [4H, Cols] matrix (or a [4H]
/// vector, Cols 1) as a TENSOR_FLOAT32 constant.
uint32_t gateRows(Lowering &L, const std::vector<float> &V, int64_t Gate,
                  int64_t H, int64_t Cols, bool Vector) {
  std::vector<float> Rows(V.begin() + Gate * H * Cols,
                          V.begin() + (Gate + 1) * H * Cols);
  std::vector<uint32_t> Dims = Vector
                                   ? std::vector<uint32_t>{uint32_t(H)}
                                   : std::vector<uint32_t>{uint32_t(H),
                                                           uint32_t(Cols)};
  return L.constant(TENSOR_FLOAT32, std::move(Dims), 0, 0, bytesOf(Rows));
}

/// An optional input left out (setOperandValue(NULL, 0)).
uint32_t omittedInput(Lowering &L, std::vector<uint32_t> Dims) {
  uint32_t I = L.constant(TENSOR_FLOAT32, std::move(Dims), 0, 0, {});
  L.markOmitted(I);
  return I;
}

/// The initial state input In of Op ([B, H]), or a zero constant.
uint32_t initialState(Lowering &L, const fb::OperatorT &O, size_t In,
                      uint32_t B, uint32_t H) {
  if (O.inputs.size() > In && O.inputs[In] >= 0)
    return L.operandOf(O.inputs[In]);
  return L.constant(TENSOR_FLOAT32, {B, H}, 0, 0,
                    bytesOf(std::vector<float>(size_t(B) * H, 0.0f)));
}

} // namespace

void lowerLstm(Lowering &L, int32_t Op) {
  const fb::OperatorT &O = L.op(Op);
  const fb::LstmOptionsT &Opts = *O.options.AsLstmOptions();
  if (!L.need(29, "UNIDIRECTIONAL_SEQUENCE_LSTM", Op))
    return;
  const bool TimeMajor = Opts.time_major;
  const int64_t H = Opts.hidden_size;
  const std::vector<int64_t> XShape = L.tensor(O.inputs[0]).shape;
  if (L.tensor(O.inputs[0]).dtype != fb::DType::F32)
    return L.fail(Op, "UNIDIRECTIONAL_SEQUENCE_LSTM runs float32 sequences "
                      "only here");
  const int64_t Steps = XShape[TimeMajor ? 0 : 1];
  const uint32_t Batch = uint32_t(XShape[TimeMajor ? 1 : 0]);
  const int64_t In = XShape[2];
  std::vector<float> W = floatValues(L, O.inputs[1]);
  std::vector<float> R = floatValues(L, O.inputs[2]);
  std::vector<float> B =
      O.inputs.size() > 3 && O.inputs[3] >= 0
          ? floatValues(L, O.inputs[3])
          : std::vector<float>(size_t(4 * H), 0.0f);
  if (W.size() != size_t(4 * H * In) || R.size() != size_t(4 * H * H) ||
      B.size() != size_t(4 * H))
    return L.fail(Op, "UNIDIRECTIONAL_SEQUENCE_LSTM needs constant float "
                      "weights and bias");
  // NNAPI's gate order (input, forget, cell, output) in kiln's rows
  // (i, o, f, c).
  const int64_t KilnGate[4] = {0, 2, 3, 1};
  std::vector<uint32_t> Inputs = {L.operandOf(O.inputs[0])};
  for (int64_t G : KilnGate)
    Inputs.push_back(gateRows(L, W, G, H, In, false));
  for (int64_t G : KilnGate)
    Inputs.push_back(gateRows(L, R, G, H, H, false));
  for (int K = 0; K < 3; ++K) // peepholes
    Inputs.push_back(omittedInput(L, {uint32_t(H)}));
  for (int64_t G : KilnGate)
    Inputs.push_back(gateRows(L, B, G, H, 1, true));
  Inputs.push_back(omittedInput(L, {uint32_t(H), uint32_t(H)})); // projection
  Inputs.push_back(omittedInput(L, {uint32_t(H)}));
  Inputs.push_back(initialState(L, O, 4, Batch, uint32_t(H)));
  Inputs.push_back(initialState(L, O, 5, Batch, uint32_t(H)));
  Inputs.push_back(L.scalarI32(4)); // tanh
  Inputs.push_back(L.scalarF32(0.0f));
  Inputs.push_back(L.scalarF32(0.0f));
  Inputs.push_back(L.scalarBool(TimeMajor));

  const uint32_t Y = L.operandOf(O.outputs[0]);
  L.emit(UNIDIRECTIONAL_SEQUENCE_LSTM, std::move(Inputs), {Y}, Op);
  if (O.outputs.size() > 1) {
    // y_h: the last step of y.
    std::vector<int32_t> Begin = {0, 0, 0}, End = {int32_t(XShape[0]),
                                                   int32_t(XShape[1]),
                                                   int32_t(H)};
    const size_t Time = TimeMajor ? 0 : 1;
    Begin[Time] = int32_t(Steps - 1);
    L.emit(STRIDED_SLICE,
           {Y, L.tensorI32(Begin), L.tensorI32(End),
            L.tensorI32({1, 1, 1}), L.scalarI32(0), L.scalarI32(0),
            L.scalarI32(1 << Time)},
           {L.operandOf(O.outputs[1])}, Op);
  }
}

} // namespace kiln::nnapi

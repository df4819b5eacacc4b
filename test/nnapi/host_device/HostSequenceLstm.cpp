// UNIDIRECTIONAL_SEQUENCE_LSTM on the host NNAPI device (feature level 29;
// the final states as outputs 1 and 2 from level 30), as the NDK reference
// and AOSP's UnidirectionalSequenceLSTM.cpp define it. Inputs:
//   0 input [maxTime, batch, inputSize] (time_major) or [batch, maxTime, ..]
//   1-4 input-to-{input, forget, cell, output} weights [units, inputSize]
//   5-8 recurrent-to-{input, forget, cell, output} weights [units, outputSize]
//   9-11 cell-to-{input, forget, output} (peephole) weights [units]
//   12-15 {input, forget, cell, output} gate biases [units]
//   16 projection weights [outputSize, units], 17 projection bias [outputSize]
//   18 output state in [batch, outputSize], 19 cell state in [batch, units]
//   20 activation (0 none, 1 relu, 3 relu6, 4 tanh, 6 sigmoid)
//   21 cell clip, 22 projection clip (0: none), 23 time_major
//   24-27 layer-norm weights (this device refuses them)
// AOSP's operation may leave out the input gate (CIFG), the peepholes and
// the projection; this device runs the form kiln writes (every gate, no
// peepholes, no projection, inputs 9-11 and 16-17 OMITTED) and refuses the
// others by name. Per step:
//   i, f, o = sigmoid(W x + R h + b), g = act(W x + R h + b),
//   c = clip(f * c + i * g), h = o * act(c).
#include "HostDevice.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

namespace kiln::nnapi::host {

namespace {

struct LstmShape {
  bool TimeMajor = true, Cifg = false, Peephole = false, Projection = false;
  uint32_t MaxTime = 0, Batch = 0, InputSize = 0, Units = 0, OutputSize = 0;
};

bool omitted(const ANeuralNetworksModel &M, const Operation &Op, size_t I) {
  return M.Operands[Op.Inputs[I]].Omitted;
}

float activate(int32_t Code, float X) {
  switch (Code) {
  case 1: return X > 0 ? X : 0;
  case 3: return X < 0 ? 0 : (X > 6 ? 6 : X);
  case 4: return std::tanh(X);
  case 6: return 1.0f / (1.0f + std::exp(-X));
  default: return X;
  }
}

float sigmoid(float X) { return 1.0f / (1.0f + std::exp(-X)); }

float clipTo(float X, float Clip) {
  return Clip > 0 ? std::fmin(std::fmax(X, -Clip), Clip) : X;
}

} // namespace

void validateSequenceLstm(const ANeuralNetworksModel &M, const Operation &Op,
                          int Level) {
  auto Fail = [](const std::string &S) { throw Invalid(S); };
  const size_t NumIn = Op.Inputs.size();
  if (NumIn != 24 && NumIn != 28)
    Fail(std::to_string(NumIn) + " inputs (expected 24 or 28)");
  if (NumIn == 28)
    for (size_t I = 24; I < 28; ++I)
      if (!omitted(M, Op, I))
        Fail("layer-normalization weights are not supported by this device");
  if (Op.Outputs.size() != 1 && Op.Outputs.size() != 3)
    Fail(std::to_string(Op.Outputs.size()) + " outputs (expected 1 or 3)");
  if (Op.Outputs.size() == 3 && Level < 30)
    Fail("the final states as outputs need feature level 30; the device is "
         "at " + std::to_string(Level));
  auto In = [&](size_t I) -> const Operand & {
    return M.Operands[Op.Inputs[I]];
  };
  auto Out = [&](size_t I) -> const Operand & {
    return M.Operands[Op.Outputs[I]];
  };
  auto Scalar = [&](size_t I, int32_t Type, const char *What) {
    const Operand &O = In(I);
    if (O.Type != Type || !O.IsConstant || O.Omitted)
      Fail(std::string(What) + " (input " + std::to_string(I) + ") must be a " +
           operandTypeName(Type) + " constant");
    return O.constData();
  };
  for (size_t I = 0; I < 20; ++I) {
    const Operand &O = In(I);
    if (O.Type != TENSOR_FLOAT32)
      Fail("input " + std::to_string(I) + " is " + operandTypeName(O.Type) +
           " (this device runs TENSOR_FLOAT32 only)");
    if (O.Omitted && !(I == 1 || I == 5 || I == 9 || I == 10 || I == 11 ||
                       I == 12 || I == 16 || I == 17))
      Fail("input " + std::to_string(I) + " is omitted, but it is required");
  }
  for (size_t I = 0; I < Op.Outputs.size(); ++I)
    if (Out(I).Type != TENSOR_FLOAT32)
      Fail("output " + std::to_string(I) + " is " +
           operandTypeName(Out(I).Type));
  int32_t Act;
  std::memcpy(&Act, Scalar(20, INT32, "the activation"), 4);
  if (Act != 0 && Act != 1 && Act != 3 && Act != 4 && Act != 6)
    Fail("activation " + std::to_string(Act) + " (expected 0, 1, 3, 4 or 6)");
  float CellClip, ProjClip;
  std::memcpy(&CellClip, Scalar(21, FLOAT32, "the cell clip"), 4);
  std::memcpy(&ProjClip, Scalar(22, FLOAT32, "the projection clip"), 4);
  if (!(CellClip >= 0) || !(ProjClip >= 0))
    Fail("a negative or NaN clip");
  const bool TimeMajor = Scalar(23, BOOL, "time_major")[0] != 0;

  const Operand &X = In(0);
  if (X.Dims.size() != 3)
    Fail("the input has rank " + std::to_string(X.Dims.size()) +
         " (expected 3)");
  const uint32_t MaxTime = TimeMajor ? X.Dims[0] : X.Dims[1];
  const uint32_t Batch = TimeMajor ? X.Dims[1] : X.Dims[0];
  const uint32_t InputSize = X.Dims[2];
  const Operand &ToOutput = In(4), &RecToOutput = In(8);
  if (ToOutput.Dims.size() != 2 || RecToOutput.Dims.size() != 2)
    Fail("the output gate's weights must have rank 2");
  const uint32_t Units = ToOutput.Dims[0];
  const uint32_t OutputSize = RecToOutput.Dims[1];
  auto Expect = [&](size_t I, std::vector<uint32_t> Dims, const char *What) {
    if (!In(I).Omitted && In(I).Dims != Dims)
      Fail(std::string(What) + " (input " + std::to_string(I) + ") is " +
           dimsString(In(I).Dims) + ", expected " + dimsString(Dims));
  };
  for (size_t I = 1; I <= 4; ++I)
    Expect(I, {Units, InputSize}, "an input weight");
  for (size_t I = 5; I <= 8; ++I)
    Expect(I, {Units, OutputSize}, "a recurrent weight");
  for (size_t I = 9; I <= 15; ++I)
    Expect(I, {Units}, I <= 11 ? "a peephole weight" : "a gate bias");
  // AOSP's kernel also takes CIFG (no input gate: i = 1 - f), peepholes
  // and a projection; this device runs the form kiln writes, without them,
  // and says so.
  for (size_t I : {1, 5, 12})
    if (omitted(M, Op, I))
      Fail("CIFG (input " + std::to_string(I) +
           " omitted) is not supported by this device");
  for (size_t I : {9, 10, 11, 16, 17})
    if (!omitted(M, Op, I))
      Fail("peephole and projection weights (input " + std::to_string(I) +
           ") are not supported by this device");
  if (OutputSize != Units)
    Fail("without a projection the output size " + std::to_string(OutputSize) +
         " must equal the units " + std::to_string(Units));
  Expect(18, {Batch, OutputSize}, "the output state");
  Expect(19, {Batch, Units}, "the cell state");
  auto ExpectOut = [&](size_t I, std::vector<uint32_t> Dims) {
    if (Out(I).Dims != Dims)
      Fail("output " + std::to_string(I) + " has dimensions " +
           dimsString(Out(I).Dims) + "; the operation computes " +
           dimsString(Dims));
  };
  ExpectOut(0, TimeMajor ? std::vector<uint32_t>{MaxTime, Batch, OutputSize}
                         : std::vector<uint32_t>{Batch, MaxTime, OutputSize});
  if (Op.Outputs.size() == 3) {
    ExpectOut(1, {Batch, OutputSize});
    ExpectOut(2, {Batch, Units});
  }
}

void sequenceLstmOp(const OpContext &C) {
  const bool TimeMajor = C.b(23);
  const int32_t Act = C.i32(20);
  const float CellClip = C.f32(21);
  const Operand &X = C.in(0);
  const size_t T = TimeMajor ? X.Dims[0] : X.Dims[1];
  const size_t B = TimeMajor ? X.Dims[1] : X.Dims[0];
  const size_t In = X.Dims[2], U = C.in(4).Dims[0], Out = C.in(8).Dims[1];
  const float *Wx[4] = {C.fin(1), C.fin(2), C.fin(3), C.fin(4)};
  const float *Wh[4] = {C.fin(5), C.fin(6), C.fin(7), C.fin(8)};
  const float *Bias[4] = {C.fin(12), C.fin(13), C.fin(14), C.fin(15)};
  std::vector<float> H(C.fin(18), C.fin(18) + B * Out);
  std::vector<float> Cell(C.fin(19), C.fin(19) + B * U);
  std::vector<float> Gate(4 * U);
  const float *Xs = C.fin(0);
  float *Ys = C.fout(0);
  for (size_t Step = 0; Step < T; ++Step)
    for (size_t N = 0; N < B; ++N) {
      const size_t Row = TimeMajor ? Step * B + N : N * T + Step;
      const float *Xt = Xs + Row * In;
      float *Ht = H.data() + N * Out, *Ct = Cell.data() + N * U;
      for (size_t G = 0; G < 4; ++G)
        for (size_t K = 0; K < U; ++K) {
          float Acc = Bias[G][K];
          for (size_t I = 0; I < In; ++I)
            Acc = C.mac(Acc, Wx[G][K * In + I], Xt[I]);
          for (size_t I = 0; I < Out; ++I)
            Acc = C.mac(Acc, Wh[G][K * Out + I], Ht[I]);
          Gate[G * U + K] = Acc;
        }
      for (size_t K = 0; K < U; ++K) {
        const float I = sigmoid(Gate[K]), F = sigmoid(Gate[U + K]);
        const float G = activate(Act, Gate[2 * U + K]);
        const float O = sigmoid(Gate[3 * U + K]);
        Ct[K] = clipTo(F * Ct[K] + I * G, CellClip);
        Ht[K] = O * activate(Act, Ct[K]);
      }
      std::copy(Ht, Ht + Out, Ys + Row * Out);
    }
  if (C.Op.Outputs.size() == 3) {
    std::copy(H.begin(), H.end(), C.fout(1));
    std::copy(Cell.begin(), Cell.end(), C.fout(2));
  }
}

} // namespace kiln::nnapi::host

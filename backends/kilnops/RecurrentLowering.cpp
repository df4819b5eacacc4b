// lstm and gru kept whole as one LSTM or GRU operator: an lstm that
// isSequenceLstm accepts (forward, constant weights, y_c unread), a gru
// that isSequenceGru accepts. The CPU's float pipeline keeps both
// (unroll-recurrence-keep-lstm-gru: oneDNN's LSTM and GRU primitives run
// them); NNAPI's from feature level 29 keeps the LSTMs
// (UNIDIRECTIONAL_SEQUENCE_LSTM); the other pipelines unroll them, and the
// CPU runs what they leave (sequences longer than unroll-recurrence
// unrolls, or --disable-pass unroll-recurrence).
//
// The IR's w [1, GH, I], r [1, GH, H] and b [1, 2GH] (Wb then Rb) become
// w [GH, I], r [GH, H] and the operator's bias, gate rows unchanged (lstm:
// i, o, f, c and b = Wb + Rb [4H]; gru: z, r, h and b = Wb + Rb [3H], or
// with linear_before_reset [Wb + Rb for z and r, Wbh, Rbh] [4H]); the
// states [1, B, H] (layout 1: [B, 1, H]) are [B, H], and y [T, 1, B, H] is
// the operator's [T, B, H] reshaped (layout 1: [B, T, H]).
#include "backends/kilnops/KilnOpRules.h"
#include "passes/UnrollRecurrence.h"

namespace kiln {

namespace {

KilnOpSupport checkLstm(const Node &N) {
  if (!isSequenceLstm(N))
    return notSupported(
        "an lstm runs whole only forward, with a static f32 input, constant "
        "f32 weights, no sequence_lens and its final cell state unread "
        "(unroll-recurrence unrolls the others)");
  // isSequenceLstm lets dead nodes read y_c (dce removes them after
  // unroll-recurrence-keep-lstm); the LSTM operator has no y_c to give them.
  if (N.numResults() > 2 && N.result(2)->hasUses())
    return notSupported("the lstm's final cell state is read by nodes that "
                        "compute nothing the graph returns (-O1 and above "
                        "remove them)");
  return supported();
}

KilnOpSupport checkGru(const Node &N) {
  if (!isSequenceGru(N))
    return notSupported(
        "a gru runs whole only forward, with a static f32 input, constant f32 "
        "weights and no sequence_lens (unroll-recurrence unrolls the others)");
  return supported();
}

std::vector<int64_t> sizesOf(const Value *V) {
  std::vector<int64_t> S;
  for (const Dim &D : V->type().Dims)
    S.push_back(D.size());
  return S;
}

/// The operator's bias from the IR's [Wb, Rb] of GH rows each: Wb + Rb,
/// or (gru with linear_before_reset) Wb + Rb for z and r, then Wbh and Rbh.
std::vector<float> operatorBias(const std::vector<float> &Both, int64_t GH,
                                int64_t H, bool SeparateCandidate) {
  std::vector<float> B(size_t(SeparateCandidate ? GH + H : GH));
  const int64_t Summed = SeparateCandidate ? GH - H : GH;
  for (int64_t I = 0; I < Summed; ++I)
    B[size_t(I)] = Both[size_t(I)] + Both[size_t(GH + I)];
  for (int64_t I = 0; SeparateCandidate && I < H; ++I) {
    B[size_t(Summed + I)] = Both[size_t(Summed + I)];
    B[size_t(GH + I)] = Both[size_t(GH + Summed + I)];
  }
  return B;
}

/// N (lstm: Gates 4, states h0 and c0; gru: 3, h0) as Kind with Options.
llvm::Error lowerRecurrent(const Node &N, LoweringContext &Ctx,
                           fb::OpKind Kind, int64_t Gates,
                           bool SeparateCandidate, fb::OpOptionsUnion Options) {
  const bool TimeMajor = N.getInt("layout") == 0;
  const int64_t H = N.getInt("hidden_size"), GH = Gates * H;
  const std::vector<int64_t> X = sizesOf(N.operand(0));
  const int64_t Batch = X[TimeMajor ? 1 : 0], Steps = X[TimeMajor ? 0 : 1];
  const std::string Name = N.displayName();
  int32_t In = Ctx.canonical(N.operand(0));
  int32_t W = Ctx.addFloatConstant(Name + ".w", {GH, X[2]}, fb::Layout::OI,
                                   floatsOf(*Ctx.constantOf(N.operand(1))));
  int32_t R = Ctx.addFloatConstant(Name + ".r", {GH, H}, fb::Layout::OI,
                                   floatsOf(*Ctx.constantOf(N.operand(2))));
  int32_t B = -1;
  if (N.numOperands() > 3 && N.operand(3)) {
    std::vector<float> Bias = operatorBias(
        floatsOf(*Ctx.constantOf(N.operand(3))), GH, H, SeparateCandidate);
    int64_t Size = int64_t(Bias.size());
    B = Ctx.addFloatConstant(Name + ".b", {Size}, fb::Layout::PLAIN,
                             std::move(Bias));
  }
  auto State = [&](unsigned I, const char *Suffix) -> int32_t {
    if (N.numOperands() <= I || !N.operand(I))
      return -1;
    return Ctx.reshape(Ctx.canonical(N.operand(I)), {Batch, H},
                       Name + Suffix, fb::Layout::PLAIN);
  };
  std::vector<int32_t> Inputs = {In, W, R, B, State(5, ".h0")};
  if (Kind == fb::OpKind::LSTM)
    Inputs.push_back(State(6, ".c0"));
  // y always; y_h when read (the operator's second result).
  const Value *Yh = N.numResults() > 1 ? N.result(1) : nullptr;
  bool WantYh = Yh && (Yh->hasUses() || N.graph()->isOutput(Yh));
  std::vector<int64_t> YShape = TimeMajor ? std::vector<int64_t>{Steps, Batch, H}
                                          : std::vector<int64_t>{Batch, Steps, H};
  int32_t Y = Ctx.addTensor(Name + ".y", ElementType::F32, YShape,
                            fb::Layout::PLAIN);
  std::vector<int32_t> Outputs = {Y};
  int32_t Hn = -1;
  if (WantYh) {
    Hn = Ctx.addTensor(Name + ".y_h", ElementType::F32, {Batch, H},
                       fb::Layout::PLAIN);
    Outputs.push_back(Hn);
  }
  Ctx.addOp(Kind, std::move(Inputs), std::move(Outputs), std::move(Options),
            fb::Engine::ANY);
  // The IR's shapes, one RESHAPE each (no data moves).
  auto Define = [&](const Value *V, int32_t T) {
    int32_t Out = Ctx.resultTensor(V, false);
    Ctx.addOp(fb::OpKind::RESHAPE, {T}, {Out}, optionsOf(fb::ReshapeOptionsT()),
              fb::Engine::REFERENCE);
    Ctx.define(V, Out, false);
  };
  Define(N.result(0), Y);
  if (WantYh)
    Define(Yh, Hn);
  return llvm::Error::success();
}

llvm::Error lowerLstm(const Node &N, LoweringContext &Ctx) {
  fb::LstmOptionsT O;
  O.hidden_size = int32_t(N.getInt("hidden_size"));
  O.time_major = N.getInt("layout") == 0;
  return lowerRecurrent(N, Ctx, fb::OpKind::LSTM, 4, false, optionsOf(O));
}

llvm::Error lowerGru(const Node &N, LoweringContext &Ctx) {
  fb::GruOptionsT O;
  O.hidden_size = int32_t(N.getInt("hidden_size"));
  O.time_major = N.getInt("layout") == 0;
  O.linear_before_reset = N.getInt("linear_before_reset") != 0;
  return lowerRecurrent(N, Ctx, fb::OpKind::GRU, 3, O.linear_before_reset,
                        optionsOf(O));
}

const CpuOpRule Rules[] = {{"gru", checkGru, lowerGru},
                           {"lstm", checkLstm, lowerLstm}};

} // namespace

llvm::ArrayRef<CpuOpRule> recurrentRules() { return Rules; }

} // namespace kiln

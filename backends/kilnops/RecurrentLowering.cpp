// lstm kept whole (isSequenceLstm: forward, constant weights, y_c unread)
// as one LSTM operator. The runtime targets' pipelines unroll every other
// recurrent layer (unroll-recurrence), and this one too unless the target
// runs it whole (NNAPI's UNIDIRECTIONAL_SEQUENCE_LSTM from feature level
// 29: unroll-recurrence-keep-lstm); the CPU runtime has a reference kernel
// for files that keep it (sequences longer than unroll-recurrence unrolls,
// or --disable-pass unroll-recurrence).
//
// The IR's w [1, 4H, I], r [1, 4H, H] and b [1, 8H] (Wb then Rb) become
// w [4H, I], r [4H, H] and b = Wb + Rb [4H], gate rows unchanged (i, o, f,
// c); the states [1, B, H] (layout 1: [B, 1, H]) are [B, H], and y
// [T, 1, B, H] is the operator's [T, B, H] reshaped (layout 1: [B, T, H]).
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

std::vector<int64_t> sizesOf(const Value *V) {
  std::vector<int64_t> S;
  for (const Dim &D : V->type().Dims)
    S.push_back(D.size());
  return S;
}

llvm::Error lowerLstm(const Node &N, LoweringContext &Ctx) {
  const bool TimeMajor = N.getInt("layout") == 0;
  const int64_t H = N.getInt("hidden_size");
  const std::vector<int64_t> X = sizesOf(N.operand(0));
  const int64_t Batch = X[TimeMajor ? 1 : 0], Steps = X[TimeMajor ? 0 : 1];
  const std::string Name = N.displayName();
  int32_t In = Ctx.canonical(N.operand(0));
  int32_t W = Ctx.addFloatConstant(Name + ".w", {4 * H, X[2]}, fb::Layout::OI,
                                   floatsOf(*Ctx.constantOf(N.operand(1))));
  int32_t R = Ctx.addFloatConstant(Name + ".r", {4 * H, H}, fb::Layout::OI,
                                   floatsOf(*Ctx.constantOf(N.operand(2))));
  int32_t B = -1;
  if (N.numOperands() > 3 && N.operand(3)) {
    std::vector<float> Both = floatsOf(*Ctx.constantOf(N.operand(3)));
    std::vector<float> Sum(size_t(4 * H));
    for (size_t I = 0; I < Sum.size(); ++I)
      Sum[I] = Both[I] + Both[I + Sum.size()];
    B = Ctx.addFloatConstant(Name + ".b", {4 * H}, fb::Layout::PLAIN,
                             std::move(Sum));
  }
  auto State = [&](unsigned I, const char *Suffix) -> int32_t {
    if (N.numOperands() <= I || !N.operand(I))
      return -1;
    return Ctx.reshape(Ctx.canonical(N.operand(I)), {Batch, H},
                       Name + Suffix, fb::Layout::PLAIN);
  };
  std::vector<int32_t> Inputs = {In, W, R, B, State(5, ".h0"),
                                 State(6, ".c0")};
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
  fb::LstmOptionsT O;
  O.hidden_size = int32_t(H);
  O.time_major = TimeMajor;
  Ctx.addOp(fb::OpKind::LSTM, std::move(Inputs), std::move(Outputs),
            optionsOf(O), fb::Engine::ANY);
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

const CpuOpRule Rules[] = {{"lstm", checkLstm, lowerLstm}};

} // namespace

llvm::ArrayRef<CpuOpRule> recurrentRules() { return Rules; }

} // namespace kiln

// ONNX LSTM, GRU and RNN -> the IR's lstm, gru and rnn, which share ONNX's operands,
// gate orders and layouts. What the IR does not model is refused by name:
// non-default activations, clip, input_forget and LSTM peepholes.
#include "frontends/onnx/OnnxNodeImporter.h"

#include "llvm/ADT/StringExtras.h"

#include <onnx/onnx_pb.h>

namespace kiln::onnx_import {

namespace {

/// The activations attribute, when given, must be the defaults repeated per
/// direction (case-insensitive, as ONNX Runtime reads them).
llvm::Error checkActivations(NodeImporter &N,
                             llvm::ArrayRef<llvm::StringRef> Default) {
  for (const auto &A : N.proto().attribute()) {
    if (A.name() != "activations")
      continue;
    for (int I = 0; I < A.strings_size(); ++I)
      if (!llvm::StringRef(A.strings(I))
               .equals_insensitive(Default[size_t(I) % Default.size()]))
        return N.fail("activation '{0}' is not supported (only {1})",
                      A.strings(I), llvm::join(Default, ", "));
  }
  return llvm::Error::success();
}

llvm::Error convertRecurrent(NodeImporter &N, llvm::StringRef Op,
                             unsigned MaxInputs,
                             llvm::ArrayRef<llvm::StringRef> Activations) {
  if (N.hasAttr("clip"))
    return N.fail("clip is not supported");
  if (N.attrInt("input_forget", 0) != 0)
    return N.fail("input_forget is not supported");
  if (N.numInputs() > MaxInputs && N.input(MaxInputs))
    return N.fail("peephole weights (P) are not supported");
  if (llvm::Error E = checkActivations(N, Activations))
    return E;
  std::vector<Value *> Operands;
  for (unsigned I = 0; I < std::min(N.numInputs(), MaxInputs); ++I) {
    if (I < 3) {
      auto V = N.required(I);
      if (!V)
        return V.takeError();
      Operands.push_back(*V);
    } else
      Operands.push_back(N.input(I));
  }
  if (!N.hasAttr("hidden_size"))
    return N.fail("the hidden_size attribute is required");
  AttrMap A = {{"hidden_size", N.attrInt("hidden_size", 0)},
               {"direction", N.attrString("direction", "forward")},
               {"layout", N.attrInt("layout", 0)}};
  if (Op == "gru")
    A["linear_before_reset"] = N.attrInt("linear_before_reset", 0);
  unsigned Results = 0;
  for (unsigned I = 0; I < N.numOutputs(); ++I)
    if (N.hasOutput(I))
      Results = I + 1;
  auto R = N.emitNode(Op, Operands, std::move(A), std::max(Results, 1u));
  return finish(N, std::move(R));
}

llvm::Error convertLSTM(NodeImporter &N) {
  return convertRecurrent(N, "lstm", 7, {"Sigmoid", "Tanh", "Tanh"});
}
llvm::Error convertGRU(NodeImporter &N) {
  return convertRecurrent(N, "gru", 6, {"Sigmoid", "Tanh"});
}

llvm::Error convertRNN(NodeImporter &N) {
  return convertRecurrent(N, "rnn", 6, {"Tanh"});
}

const OpConverter Converters[] = {
    {"RNN", convertRNN, 7},
    {"LSTM", convertLSTM, 7},
    {"GRU", convertGRU, 7},
};

} // namespace

llvm::ArrayRef<OpConverter> recurrentConverters() { return Converters; }

} // namespace kiln::onnx_import

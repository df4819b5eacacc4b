// What unroll-recurrence and its variants that keep sequence LSTMs (and
// GRUs) whole share with the lowerings that run them whole.
#pragma once
#include "IR/Graph.h"

namespace kiln {

/// An lstm that runs whole as one sequence-LSTM operator (kiln's LSTM, and
/// so NNAPI's UNIDIRECTIONAL_SEQUENCE_LSTM): forward, a static f32 input,
/// constant f32 weights and bias, no run-time sequence lengths, static
/// initial states, and its final cell state (y_c) reaching no graph output
/// (read by nothing, or only by nodes dce would remove).
bool isSequenceLstm(const Node &N);

/// A gru that runs whole as one sequence-GRU operator (kiln's GRU, on the
/// CPU through oneDNN's GRU primitives): forward, a static f32 input,
/// constant f32 weights and bias, no run-time sequence lengths, and a
/// static f32 initial state.
bool isSequenceGru(const Node &N);

} // namespace kiln

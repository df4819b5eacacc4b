// What unroll-recurrence and its variant that keeps sequence LSTMs whole
// share with the lowerings that run an LSTM whole.
#pragma once
#include "IR/Graph.h"

namespace kiln {

/// An lstm that runs whole as one sequence-LSTM operator (kiln's LSTM, and
/// so NNAPI's UNIDIRECTIONAL_SEQUENCE_LSTM): forward, a static f32 input,
/// constant f32 weights and bias, no run-time sequence lengths, static
/// initial states, and its final cell state (y_c) reaching no graph output
/// (read by nothing, or only by nodes dce would remove).
bool isSequenceLstm(const Node &N);

} // namespace kiln

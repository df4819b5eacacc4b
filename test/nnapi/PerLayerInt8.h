// kiln-nnapi-e2e's per-layer int8 check, teacher-forced: every int8 layer
// of a CPU int8 file is lowered for NNAPI alone, run on the CPU file's own
// int8 inputs of that layer, and its output compared with the CPU file's,
// element by element in quanta (int8 units). NNAPI's integer
// requantization (fixed-point multipliers, TFLite's double rounding) and
// kiln's float requantization differ by at most one quantum per layer;
// over a network such differences can grow, so this is where the
// one-quantum bar holds.
#pragma once

#include "backends/common/KilnModule.h"

#include "IR/Tensor.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kiln::testing {

/// Every tensor of a compiled file after one run on Inputs (a session with
/// keep_intermediates), its bytes by tensor index; empty for constants.
/// "" or what failed.
std::string runKeepingTensors(const std::string &Bytes,
                              llvm::ArrayRef<Tensor> Inputs,
                              std::vector<std::vector<uint8_t>> &Out);

struct PerLayerFigures {
  unsigned Checked = 0;
  /// RESHAPE and TRANSPOSE layers the lowering leaves to the host when
  /// they are alone ("nothing is left for NNAPI to run").
  unsigned Skipped = 0;
  /// The largest difference of any element, in quanta.
  int Worst = 0;
  /// Layers with some element one quantum off.
  unsigned OffByOne = 0;
  /// Per kind ("CONV_2D", "UNARY.SIGMOID", "BINARY.MUL"): the largest
  /// difference in quanta and the number of layers checked.
  std::map<std::string, std::pair<int, unsigned>> ByKind;
  /// "CONV_2D 1/12, UNARY.SIGMOID 0/3" (worst quanta / layers).
  std::string byKind() const;
};

/// Checks every int8 layer of Cpu (CONV_2D, FULLY_CONNECTED, BINARY, UNARY,
/// the pools, CONCAT, RESHAPE, TRANSPOSE with I8 activations in and out) at
/// NNAPI feature level Level against Tensors (runKeepingTensors of Cpu's
/// file). "" or the first layer more than one quantum off, or what failed.
std::string checkInt8PerLayer(const KilnModule &Cpu,
                              const std::vector<std::vector<uint8_t>> &Tensors,
                              int32_t Level, PerLayerFigures &Figures);

} // namespace kiln::testing

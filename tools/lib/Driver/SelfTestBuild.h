// kiln convert --self-test: the sample each graph input gets and the
// reference outputs kiln's interpreter computes for it on the graph the
// target lowers (optimized, and quantized if it was), with a tolerance per
// output by the file's precision (docs/self-test.md).
#pragma once

#include "backends/common/SelfTestRecord.h"
#include "passes/quant/QuantizeGraph.h"

#include "IR/Graph.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln {

struct SelfTestFlags {
  bool Enabled = false;
  /// --self-test-input NAME=FILE.npy (or FILE.npy for a one-input model,
  /// or FILE.npz with members named by input): the sample of that input.
  /// Inputs not given get generated values (floats and bytes only).
  std::vector<std::string> Inputs;
  /// --self-test-tolerance: relative to each float output's peak
  /// magnitude (and the fraction of integer outputs' elements that may
  /// differ); unset: the default of the file's precision.
  std::optional<double> Tolerance;
};

/// Usage errors in the flags (a sample or tolerance without --self-test, a
/// negative tolerance); call before anything slow.
llvm::Error checkSelfTestFlags(const SelfTestFlags &F);

/// The default relative tolerance of a file quantized by Mode, for the
/// float outputs (Integer: the fraction of differing elements).
double defaultSelfTestTolerance(QuantizeMode Mode, bool Integer);

/// Samples for G's inputs, G run by the interpreter, and the references.
/// Input names the model in errors.
llvm::Expected<SelfTestRecord> buildSelfTest(const Graph &G,
                                             const SelfTestFlags &F,
                                             QuantizeMode Mode,
                                             llvm::StringRef Input);

} // namespace kiln

// A file's self-test as the driver computed it (kiln convert --self-test):
// the sample for each graph input, and for each graph output the reference
// values, the tolerance and the reference's peak magnitude. Every .kiln
// target writes it the same way (attachSelfTest), as segments of the file
// and the schema's Model.self_test (1.14).
#pragma once

#include "IR/Tensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln {

struct KilnModule;

struct SelfTestRecord {
  /// One per graph input, in binding order: the sample's bytes as the
  /// caller sets them.
  std::vector<Buffer> Inputs;
  struct Output {
    /// Elements 0, Stride, 2 * Stride, ... of the reference, as floats.
    std::vector<float> Reference;
    uint64_t Stride = 1;
    float Tolerance = 0;
    float Peak = 0;
  };
  std::vector<Output> Outputs;
  /// How the references and samples were made (SelfTest.reference).
  std::string Description;
};

/// Adds the record's samples and references to M as segments and sets
/// M.Model.self_test. M's graph inputs and outputs must be the record's.
void attachSelfTest(KilnModule &M, const SelfTestRecord &R);

} // namespace kiln

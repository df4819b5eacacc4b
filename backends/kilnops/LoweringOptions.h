// What a target chooses about the kiln-operator lowering (lowerToKilnOps,
// KilnOps.h), passed down as a value.
#pragma once

namespace kiln {

/// What the targets choose about the lowering, passed down explicitly (no
/// hidden switches: two conversions on two threads never see each other's).
struct LoweringOptions {
  /// Schema 1.8's int8 extensions: MUL and the unary activations (a
  /// 256-entry table, I8 UNARY) as int8 operators.
  bool Int8Elementwise = true;
  /// Int8 biases without stored scales (1.8: the loader derives them, input
  /// scale x weight scale). NNAPI keeps them: its bias operands carry them.
  bool OmitInt8BiasScales = true;
};

} // namespace kiln

// The constants the kiln-operator lowering reads: a value's own constant, or
// the f32 constant that a cast or dequantize of one folds to (quantized
// models keep their weights narrow behind such nodes: QuantLowering.h).
// Folding allocates, so it happens once per value and only where a
// lowering needs the values; checks ask whether a value is constant, or
// for a scalar, without folding whole tensors.
// Defined in QuantLowering.cpp, beside the rules for which cast and
// dequantize nodes fold (narrowingNode).
#pragma once

#include "IR/Graph.h"

#include "llvm/ADT/Optional.h"

#include <map>
#include <memory>

namespace kiln {

/// Whether V is a constant (its own, or the one an identity chain passes
/// on: exporters wrap shared weights in Identity), or a cast/dequantize of
/// one (which the lowering folds), without folding it.
bool isConstantOrFolded(const Value *V);

/// V's only element when V is a one-element constant, or a cast/dequantize
/// of one (folded on the spot: one element); None otherwise.
llvm::Optional<double> constantScalar(const Value *V);

/// The folded constants of one lowering (LoweringContext owns one): the
/// constant behind each value, a cast/dequantize of a constant folded to f32
/// the first time it is asked for and kept while this lives.
class ConstantFolds {
public:
  const Tensor *constantOf(const Value *V);

private:
  std::map<const Value *, std::unique_ptr<Tensor>> Folded;
};

} // namespace kiln

// The quantize rewrites as functions, for quantizeGraph, which passes the
// nodes to keep in float; the registered passes (Passes.def) call them with
// none kept.
#pragma once

#include "passes/Pass.h"

#include <set>

namespace kiln {

using NodeSet = std::set<const Node *>;

/// convert-weights-f16 (ConvertWeightsToF16.cpp). Counts "converted" and
/// "kept-f32-out-of-range".
void convertWeightsToF16(Graph &G, const NodeSet &KeepFloat, PassStats &Stats);

/// quantize-dynamic-int8 (InsertDynamicQuant.cpp). Counts "quantized" and
/// "weights".
void insertDynamicQuant(Graph &G, const NodeSet &KeepFloat, PassStats &Stats);

/// Symmetric per-channel int8 for weight W of node N (P from
/// planWeightQuant): an i8 constant and a dequantize before N, reused for
/// another node with the same W and P through Cache.
struct WeightCacheEntry {
  Value *Float;
  QuantParams Params;
  Value *Dequantized;
};
Value *quantizeWeightFor(Graph &G, Node &N, unsigned Operand,
                         const QuantParams &P,
                         std::vector<WeightCacheEntry> &Cache);

} // namespace kiln

// What `kiln inspect` and `kiln diff` count in an IR graph: the op
// histogram, parameters by element type, and multiply-accumulates per node.
#pragma once

#include "IR/Graph.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kiln {

struct ParamTotals {
  int64_t Count = 0; // elements
  int64_t Bytes = 0;
};

struct NodeStats {
  const Node *N = nullptr;
  int64_t Macs = 0;   // multiply-accumulates (0 where not meaningful)
  int64_t Params = 0; // elements of the node's constant operands
};

struct GraphStats {
  /// Op name -> count, constants excluded.
  std::map<std::string, int64_t> OpHistogram;
  /// Element type name -> totals over `const` nodes.
  std::map<std::string, ParamTotals> ParamsByType;
  std::vector<NodeStats> Nodes; // non-const nodes, in graph order
  int64_t TotalMacs = 0;
};

/// Multiply-accumulates of N: conv and conv_transpose (per output element,
/// C/group * kernel), linear/gemm/matmul (M*N*K), and one per output element
/// for pooling and normalizations. Dims that are not static count as 1.
int64_t estimateMacs(const Node &N);

GraphStats computeGraphStats(const Graph &G);

} // namespace kiln

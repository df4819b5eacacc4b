// Placement for `kiln convert --fallback cpu`: which nodes of the optimized
// graph run on the device target and which on the CPU, grouped into parts
// that run one after another.
//
//  1. Each node is asked of the device target alone: a graph of that node,
//     its constants, and its other operands and results as graph inputs and
//     outputs (so a node whose result the device cannot hand back, an i64
//     shape, is refused too). `--on-cpu` patterns pin op kinds or node names.
//     Constants, and casts or dequantizes of constants, belong to no part:
//     every part that reads one gets its own copy.
//  2. The placeable nodes are ordered topologically, staying on one target
//     as long as a node of that target is ready: each run of one target is
//     a part, so the parts are acyclic by construction and as large as the
//     dependencies allow.
//  3. Each device part is costed (PlacementCost.h): one that does not pay for
//     its launch and boundary copies moves to the CPU with its reason, and
//     steps 2-3 repeat until every device part pays.
#pragma once

#include "IR/Graph.h"
#include "backends/Target.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <vector>

namespace kiln {

enum class PlacementReason {
  Device,      // the device target runs it
  Unsupported, // the device target cannot run it
  Pinned,      // --on-cpu
  TooSmall,    // its device part would not pay for its transfers
  Follows,     // a quantize or dequantize with its producer or consumer
};
llvm::StringRef placementReasonName(PlacementReason R);

struct PlacedPart {
  const Target *On = nullptr;
  /// The part's nodes, in the order they run (constants excluded).
  std::vector<const Node *> Nodes;
  /// Values read from outside the part (graph inputs and other parts'
  /// outputs), and values it gives to later parts or as graph outputs, in
  /// first-use order.
  std::vector<const Value *> Inputs, Outputs;
  /// The cost model's estimates for one run (microseconds): the part on its
  /// target, the same nodes on the CPU, and its boundary copies.
  double EstimatedUs = 0, CpuUs = 0, TransferUs = 0;
  /// Why a CPU part is on the CPU ("" for a device part): its nodes'
  /// reasons, summarized.
  std::string Reason;
};

struct NodePlacement {
  PlacementReason Reason = PlacementReason::Device;
  std::string Why; // the device target's refusal, or the pattern
};

struct Placement {
  const Target *Device = nullptr;
  std::vector<PlacedPart> Parts; // in schedule order
  std::map<const Node *, NodePlacement> Nodes;
  /// Every node on the CPU (the estimate the report compares against).
  double AllCpuUs = 0;
  /// The name each part output has in the file: its own, or, when it has
  /// none or another value has it, "<producer node>:<result index>". The
  /// outer file binds the parts' inputs and outputs by these.
  llvm::DenseMap<const Value *, std::string> Names;
  std::string nameOf(const Value *V) const {
    auto It = Names.find(V);
    return It == Names.end() ? V->name() : It->second;
  }
};

struct PlacementOptions {
  const Target *Device = nullptr;
  /// --on-cpu: globs (*, ?, [..]) over op names ("linear") and node names.
  std::vector<std::string> OnCpu;
  /// --placement greedy: every node the device runs stays on it, however
  /// small its part (step 3 skipped).
  bool Costed = true;
};

/// Whether N's op or display name matches one of Patterns.
bool matchesOnCpu(const Node &N, const std::vector<std::string> &Patterns);

/// The placement of G's nodes (a graph output no node computes makes it one
/// part: the device's when it runs the whole graph, else the CPU's).
llvm::Expected<Placement> planPlacement(const Graph &G,
                                        const PlacementOptions &O);

/// int8 under --fallback cpu: a dequantize whose readers P put in several
/// parts gets a copy for each further part's readers, so that the cut
/// carries the int8 value, never a float dequantization shared by two parts
/// (which NNAPI's int8 lowering folds away and cannot hand over). Returns
/// the number of dequantize nodes added: when any, G is placed again.
size_t splitSharedDequantizes(Graph &G, const Placement &P);

/// Whether V is a constant or a value computed from constants only by a
/// cast or dequantize (cloned into every part that reads it).
bool isPartOfNoPart(const Value *V);

} // namespace kiln

#include "Driver/Placement.h"

#include "Driver/PartGraph.h"
#include "Driver/PlacementCost.h"

#include "Support/Error.h"
#include "backends/kilnops/ConstantFolds.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/GlobPattern.h"

#include <set>

namespace kiln {

llvm::StringRef placementReasonName(PlacementReason R) {
  switch (R) {
  case PlacementReason::Device:
    return "device";
  case PlacementReason::Unsupported:
    return "unsupported";
  case PlacementReason::Pinned:
    return "pinned";
  case PlacementReason::TooSmall:
    return "too-small";
  case PlacementReason::Follows:
    return "follows";
  }
  return "device";
}

bool isPartOfNoPart(const Value *V) {
  return V && (V->constant() || isConstantOrFolded(V));
}

namespace {

/// The text itself, or a glob (*, ?, [a-z]) over the whole text (so a
/// node named "a[0]" is pinned by its own name too).
bool matchesPattern(llvm::StringRef Text, llvm::StringRef Pattern) {
  if (Text == Pattern)
    return true;
  auto Glob = llvm::GlobPattern::create(Pattern);
  if (!Glob) {
    llvm::consumeError(Glob.takeError());
    return false;
  }
  return Glob->match(Text);
}

/// The first line of a target's refusal of a one-node graph, without the
/// "cannot run 1 part(s) of this model:" preamble.
std::string refusalReason(llvm::Error E) {
  std::string Message = llvm::toString(std::move(E));
  llvm::StringRef M(Message);
  // "...:\n  node 'x' (KIND): reason" -> "reason"
  size_t Line = M.find("\n  ");
  if (Line != llvm::StringRef::npos) {
    llvm::StringRef First = M.drop_front(Line + 3);
    First = First.take_until([](char C) { return C == '\n'; });
    size_t Colon = First.find("): ");
    if (First.startswith("node '") && Colon != llvm::StringRef::npos)
      return First.drop_front(Colon + 3).str();
    return First.str();
  }
  return M.take_until([](char C) { return C == '\n'; }).str();
}

/// Whether the device target runs N on its own (with its constants, its
/// other operands as graph inputs and its results as graph outputs).
NodePlacement askDevice(const Graph &G, const Node &N, const Target &Device) {
  std::vector<const Value *> Inputs, Outputs;
  llvm::DenseSet<const Value *> Seen;
  for (const Value *V : N.operands())
    if (V && !isPartOfNoPart(V) && Seen.insert(V).second)
      Inputs.push_back(V);
  for (const Value *R : N.results())
    if (R->hasUses() || G.isOutput(R))
      Outputs.push_back(R);
  if (Outputs.empty() && N.numResults())
    Outputs.push_back(N.result(0));
  auto One = extractPartGraph(G, {&N}, Inputs, Outputs);
  if (llvm::Error E = Device.Check(*One))
    return {PlacementReason::Unsupported, refusalReason(std::move(E))};
  return {};
}

struct Planner {
  Planner(const Graph &G, const PlacementOptions &O)
      : G(G), O(O), Cpu(findTarget("cpu")), CpuCost(targetCost("cpu")) {}

  const Graph &G;
  const PlacementOptions &O;
  const Target *Cpu;
  const TargetCost &CpuCost;
  Placement P;
  std::vector<const Node *> Placeable; // graph order
  llvm::DenseMap<const Node *, size_t> Index;

  bool onDevice(const Node *N) const {
    return P.Nodes.at(N).Reason == PlacementReason::Device;
  }

  /// Step 2: a topological order that stays on one target while it can,
  /// cut into runs.
  std::vector<PlacedPart> group() const {
    size_t Count = Placeable.size();
    std::vector<unsigned> Pending(Count, 0);
    std::vector<std::vector<size_t>> Users(Count);
    for (size_t I = 0; I < Count; ++I) {
      std::set<size_t> From;
      for (const Value *V : Placeable[I]->operands())
        if (V && V->producer() && Index.count(V->producer()))
          From.insert(Index.lookup(V->producer()));
      Pending[I] = unsigned(From.size());
      for (size_t F : From)
        Users[F].push_back(I);
    }
    std::set<size_t> Ready[2]; // [0] cpu, [1] device; by graph order
    for (size_t I = 0; I < Count; ++I)
      if (!Pending[I])
        Ready[onDevice(Placeable[I])].insert(I);
    std::vector<PlacedPart> Parts;
    int Current = -1;
    while (!Ready[0].empty() || !Ready[1].empty()) {
      if (Current < 0 || Ready[Current].empty()) {
        // Switch to the target whose first ready node comes first.
        if (Ready[0].empty())
          Current = 1;
        else if (Ready[1].empty())
          Current = 0;
        else
          Current = *Ready[1].begin() < *Ready[0].begin() ? 1 : 0;
        Parts.emplace_back();
        Parts.back().On = Current ? O.Device : Cpu;
      }
      size_t I = *Ready[Current].begin();
      Ready[Current].erase(Ready[Current].begin());
      Parts.back().Nodes.push_back(Placeable[I]);
      for (size_t U : Users[I])
        if (--Pending[U] == 0)
          Ready[onDevice(Placeable[U])].insert(U);
    }
    return Parts;
  }

  /// Each part's boundary values and cost.
  void describe(PlacedPart &Part) const {
    llvm::DenseSet<const Node *> In(Part.Nodes.begin(), Part.Nodes.end());
    llvm::DenseSet<const Value *> Seen;
    const TargetCost &Cost = targetCost(Part.On->Name);
    double Bytes = 0;
    for (const Node *N : Part.Nodes) {
      for (const Value *V : N->operands())
        if (V && !isPartOfNoPart(V) && !In.count(V->producer()) &&
            Seen.insert(V).second) {
          Part.Inputs.push_back(V);
          Bytes += valueBytes(*V);
        }
      Part.EstimatedUs += nodeCostUs(*N, Cost);
      Part.CpuUs += nodeCostUs(*N, CpuCost);
    }
    for (const Node *N : Part.Nodes)
      for (const Value *R : N->results()) {
        bool Leaves = G.isOutput(R);
        for (const Use &U : R->uses())
          Leaves |= !In.count(U.User);
        if (Leaves) {
          Part.Outputs.push_back(R);
          Bytes += valueBytes(*R);
        }
      }
    if (Part.On != Cpu) {
      Part.TransferUs = Bytes / Cost.CopyBytesPerUs;
      Part.EstimatedUs += Cost.LaunchUs + Part.TransferUs;
    }
  }

  /// A CPU part's reason: its nodes' reasons, most frequent first.
  std::string summarize(const PlacedPart &Part) const {
    std::map<std::string, int> Count;
    for (const Node *N : Part.Nodes) {
      const NodePlacement &NP = P.Nodes.at(N);
      std::string Line;
      switch (NP.Reason) {
      case PlacementReason::Device:
        continue;
      case PlacementReason::Unsupported:
        Line = "the " + std::string(O.Device->Name) + " target cannot run " +
               N->opName().str() + ": " + NP.Why;
        break;
      case PlacementReason::Pinned:
        Line = "pinned by --on-cpu " + NP.Why;
        break;
      case PlacementReason::TooSmall:
      case PlacementReason::Follows:
        Line = NP.Why;
        break;
      }
      ++Count[Line];
    }
    std::vector<std::pair<int, std::string>> Sorted;
    for (auto &[Line, N] : Count)
      Sorted.emplace_back(-N, Line);
    std::sort(Sorted.begin(), Sorted.end());
    std::vector<std::string> Lines;
    for (auto &[N, Line] : Sorted)
      Lines.push_back(Line + (N < -1 ? " (" + std::to_string(-N) + " nodes)"
                                     : std::string()));
    return llvm::join(Lines, "; ");
  }
};

/// One part for every node: the device's when it runs the whole graph
/// (and nothing is pinned), else the CPU's.
llvm::Expected<Placement> wholeGraphPlacement(const Graph &G,
                                              const PlacementOptions &O,
                                              Planner &Pl,
                                              const std::string &Output) {
  bool Pinned = false;
  for (const Node *N : Pl.Placeable)
    Pinned |= matchesOnCpu(*N, O.OnCpu);
  llvm::Error E = Pinned ? llvm::Error::success() : O.Device->Check(G);
  bool OnDevice = !Pinned && !E;
  std::string Why;
  if (E)
    Why = refusalReason(std::move(E));
  PlacedPart Part;
  Part.On = OnDevice ? O.Device : Pl.Cpu;
  Part.Nodes = Pl.Placeable;
  const TargetCost &Cost = targetCost(Part.On->Name);
  for (const Node *N : Pl.Placeable) {
    Part.CpuUs += nodeCostUs(*N, Pl.CpuCost);
    Part.EstimatedUs += nodeCostUs(*N, Cost);
  }
  if (!OnDevice) {
    Part.Reason = "the graph output '" + Output +
                  "' is a constant or a graph input, which only a file of "
                  "one partition can give, and the " + O.Device->Name +
                  " target cannot run the whole graph" +
                  (Why.empty() ? std::string(" (nodes are pinned)")
                               : ": " + Why);
    for (const Node *N : Pl.Placeable)
      Pl.P.Nodes[N] = {PlacementReason::Unsupported, Part.Reason};
  } else {
    for (const Node *N : Pl.Placeable)
      Pl.P.Nodes[N] = {};
  }
  Pl.P.Parts.push_back(std::move(Part));
  return std::move(Pl.P);
}

} // namespace

bool matchesOnCpu(const Node &N, const std::vector<std::string> &Patterns) {
  for (const std::string &Pat : Patterns) {
    if (matchesPattern(N.opName(), Pat) || matchesPattern(N.displayName(), Pat))
      return true;
    for (const std::string &S : N.sources())
      if (matchesPattern(S, Pat))
        return true;
  }
  return false;
}

size_t splitSharedDequantizes(Graph &G, const Placement &P) {
  llvm::DenseMap<const Node *, size_t> PartOf;
  for (size_t I = 0; I < P.Parts.size(); ++I)
    for (const Node *N : P.Parts[I].Nodes)
      PartOf[N] = I;
  std::vector<Node *> Shared;
  for (Node &N : G.nodes())
    if (N.isOp("dequantize") && !isPartOfNoPart(N.result()) &&
        N.result()->numUses() > 1)
      Shared.push_back(&N);
  size_t Added = 0;
  for (Node *N : Shared) {
    // The readers in each part other than the first reader's.
    std::map<size_t, std::vector<Node *>> Elsewhere;
    size_t First = PartOf.lookup(N->result()->uses().front().User);
    for (const Use &U : N->result()->uses()) {
      size_t Part = PartOf.lookup(U.User);
      auto &Readers = Elsewhere[Part];
      if (Part != First &&
          std::find(Readers.begin(), Readers.end(), U.User) == Readers.end())
        Readers.push_back(U.User);
    }
    for (auto &[Part, Readers] : Elsewhere) {
      if (Readers.empty())
        continue;
      Node *Copy = G.createNode(N->def(), N->operands(),
                                {N->result()->type()}, N->attrs(), Readers[0]);
      Copy->setSources(N->sources());
      Copy->result()->setName(N->result()->name() + ".p" +
                              std::to_string(Part));
      for (Node *R : Readers)
        for (unsigned I = 0; I < R->numOperands(); ++I)
          if (R->operand(I) == N->result())
            R->setOperand(I, Copy->result());
      ++Added;
    }
  }
  return Added;
}

llvm::Expected<Placement> planPlacement(const Graph &G,
                                        const PlacementOptions &O) {
  Planner Pl(G, O);
  Pl.P.Device = O.Device;
  for (const Node &N : G.nodes()) {
    if (N.numResults() == 1 && isPartOfNoPart(N.result()))
      continue;
    Pl.Index[&N] = Pl.Placeable.size();
    Pl.Placeable.push_back(&N);
    Pl.P.AllCpuUs += nodeCostUs(N, Pl.CpuCost);
  }
  // A graph output that is a constant or a graph input (a shape folded at
  // -O2) is computed by no node, so no part could hand it over: the file
  // is then one target's whole, the device's if it runs every node.
  for (const Value *Out : G.outputs())
    if (!Out->producer() || !Pl.Index.count(Out->producer()))
      return wholeGraphPlacement(G, O, Pl, Out->name());

  for (const Node *N : Pl.Placeable) {
    if (matchesOnCpu(*N, O.OnCpu)) {
      std::string Pattern;
      for (const std::string &Pat : O.OnCpu)
        if (matchesOnCpu(*N, {Pat})) {
          Pattern = Pat;
          break;
        }
      Pl.P.Nodes[N] = {PlacementReason::Pinned, Pattern};
      continue;
    }
    Pl.P.Nodes[N] = askDevice(G, *N, *O.Device);
  }
  // int8: a quantize goes where its producer is, a dequantize where its
  // first consumer is, so that cuts land on int8 values and every int8
  // layer keeps its pattern (DQ -> op -> Q) whole in one part.
  // On the CPU, they say whom they follow rather than repeat its reason.
  auto Follow = [&](const Node *N, const Node *Of, const char *Role) {
    NodePlacement NP = Pl.P.Nodes[Of];
    if (NP.Reason != PlacementReason::Device)
      NP = {PlacementReason::Follows,
            llvm::formatv("a {0} goes with its {1} ({2} '{3}', on the cpu)",
                          N->opName(), Role, Of->opName(), Of->displayName())
                .str()};
    Pl.P.Nodes[N] = NP;
  };
  for (const Node *N : Pl.Placeable)
    if (N->isOp("quantize") && N->operand(0)->producer() &&
        Pl.Index.count(N->operand(0)->producer()))
      Follow(N, N->operand(0)->producer(), "producer");
  for (auto It = Pl.Placeable.rbegin(); It != Pl.Placeable.rend(); ++It) {
    const Node *N = *It;
    if (!N->isOp("dequantize"))
      continue;
    const Node *Next = nullptr;
    for (const Use &U : N->result()->uses())
      if (Pl.Index.count(U.User) &&
          (!Next || Pl.Index.lookup(U.User) < Pl.Index.lookup(Next)))
        Next = U.User;
    if (Next)
      Follow(N, Next, "consumer");
  }
  // Steps 2 and 3 until every device part pays.
  for (;;) {
    Pl.P.Parts = Pl.group();
    bool Moved = false;
    for (PlacedPart &Part : Pl.P.Parts) {
      Pl.describe(Part);
      if (Part.On == Pl.Cpu || Part.EstimatedUs < Part.CpuUs ||
          !O.Costed)
        continue;
      std::string Why = llvm::formatv(
          "too small to pay for its transfers: its {0} part of {1} node(s) "
          "would take about {2} us with launch and copies, {3} us on the CPU",
          O.Device->Name, Part.Nodes.size(),
          llvm::format("%.0f", Part.EstimatedUs),
          llvm::format("%.0f", Part.CpuUs));
      for (const Node *N : Part.Nodes)
        Pl.P.Nodes[N] = {PlacementReason::TooSmall, Why};
      Moved = true;
    }
    if (!Moved)
      break;
  }
  for (PlacedPart &Part : Pl.P.Parts)
    if (Part.On == Pl.Cpu)
      Part.Reason = Pl.summarize(Part);
  // Graph inputs and outputs keep their names (apps bind them by name);
  // other boundary values keep theirs unless taken or empty.
  std::set<std::string> Taken;
  for (const Value *In : G.inputs())
    Taken.insert(In->name());
  for (const Value *Out : G.outputs())
    if (Taken.insert(Out->name()).second)
      Pl.P.Names[Out] = Out->name();
  for (const PlacedPart &Part : Pl.P.Parts)
    for (const Value *V : Part.Outputs) {
      if (Pl.P.Names.count(V))
        continue;
      std::string Name = V->name();
      if (Name.empty() || Taken.count(Name)) {
        std::string Base = V->producer()->displayName() + ":" +
                           std::to_string(V->resultIndex());
        Name = Base;
        for (int K = 1; Taken.count(Name); ++K)
          Name = Base + "." + std::to_string(K);
      }
      Taken.insert(Name);
      Pl.P.Names[V] = Name;
    }
  return std::move(Pl.P);
}

} // namespace kiln

#include "IR/Verifier.h"

#include "IR/OpRegistry.h"
#include "Support/Error.h"

#include "llvm/ADT/DenseSet.h"

namespace kiln {

static std::string nodeLabel(const Node &N) {
  return "node '" + N.displayName() + "' (" + N.opName().str() + ")";
}

llvm::Error verifyNode(const Node &N) {
  llvm::Error E = checkSchema(N);
  if (!E) {
    auto Types = inferTypes(N);
    if (!Types) {
      E = Types.takeError();
    } else {
      for (unsigned I = 0; I < N.numResults(); ++I) {
        const TensorType &Declared = N.result(I)->type();
        if (!isCompatible(Declared, (*Types)[I])) {
          E = inputError("result {0} is declared {1} but the operands give {2}",
                         I, toString(Declared), toString((*Types)[I]));
          break;
        }
      }
    }
  }
  return addContext(std::move(E), nodeLabel(N));
}

namespace {
constexpr size_t MaxReported = 20;

class GraphVerifier {
public:
  explicit GraphVerifier(const Graph &G) : G(G) {}

  llvm::Error run() {
    for (const auto &In : G.inputPtrs())
      Defined.insert(In.get());
    for (const Node &N : G.nodes()) {
      checkStructure(N);
      if (StructureOk)
        add(verifyNode(N));
      for (unsigned I = 0; I < N.numResults(); ++I)
        Defined.insert(N.result(I));
    }
    for (size_t I = 0; I < G.outputs().size(); ++I) {
      const Value *V = G.outputs()[I];
      if (!V || !Defined.count(V))
        report("graph output " + std::to_string(I) +
               " is not a value defined in the graph");
    }
    if (Problems.empty())
      return llvm::Error::success();
    std::string Msg;
    for (size_t I = 0; I < Problems.size(); ++I)
      Msg += (I ? "\n" : "") + Problems[I];
    if (Dropped)
      Msg += "\n... and " + std::to_string(Dropped) + " more problem(s)";
    return inputError("{0}", Msg);
  }

private:
  void checkStructure(const Node &N) {
    StructureOk = true;
    if (N.graph() != &G) {
      fail(N, "belongs to another graph");
      return;
    }
    for (unsigned I = 0; I < N.numOperands(); ++I) {
      const Value *V = N.operand(I);
      if (!V)
        continue;
      if (!Defined.count(V)) {
        fail(N, "operand " + std::to_string(I) +
                    " is not defined before this node (dangling or out of "
                    "topological order)");
        continue;
      }
      bool Listed = false;
      for (const Use &U : V->uses())
        Listed |= U.User == &N && U.Index == I;
      if (!Listed)
        fail(N, "operand " + std::to_string(I) +
                    " is missing from its value's use-list");
    }
    for (unsigned R = 0; R < N.numResults(); ++R)
      for (const Use &U : N.result(R)->uses())
        if (U.Index >= U.User->numOperands() ||
            U.User->operand(U.Index) != N.result(R))
          fail(N, "result " + std::to_string(R) + " has a stale use");
  }

  void fail(const Node &N, const std::string &Msg) {
    StructureOk = false;
    report(nodeLabel(N) + ": " + Msg);
  }

  void report(std::string Msg) {
    if (Problems.size() < MaxReported)
      Problems.push_back(std::move(Msg));
    else
      ++Dropped;
  }

  void add(llvm::Error E) {
    if (E)
      report(toString(std::move(E)));
  }

  const Graph &G;
  llvm::DenseSet<const Value *> Defined;
  std::vector<std::string> Problems;
  size_t Dropped = 0;
  bool StructureOk = true;
};
} // namespace

llvm::Error verifyGraph(const Graph &G) { return GraphVerifier(G).run(); }

} // namespace kiln

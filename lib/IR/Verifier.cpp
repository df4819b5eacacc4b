#include "IR/Verifier.h"

#include "IR/OpRegistry.h"
#include "Support/Error.h"

#include "llvm/ADT/DenseSet.h"

#include <algorithm>
#include <iterator>

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
    for (const auto &In : G.inputPtrs()) {
      Defined.insert(In.get());
      if (exceedsElementLimit(In->type().Dims))
        report("graph input '" + In->name() + "' " + toString(In->type()) +
               " has more elements than the limit of 2^34");
    }
    for (const Node &N : G.nodes()) {
      checkStructure(N);
      if (StructureOk) {
        add(verifyNode(N));
        checkNotEmptied(N);
      }
      for (unsigned I = 0; I < N.numResults(); ++I) {
        Defined.insert(N.result(I));
        // The .kir parser refuses such a type, so the graph must not get past
        // here and be written (kiln opt) as a file kiln cannot read back.
        if (exceedsElementLimit(N.result(I)->type().Dims))
          fail(N, "result " + std::to_string(I) + " " +
                      toString(N.result(I)->type()) +
                      " has more elements than the limit of 2^34");
      }
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

  /// A window or scale op that turns non-empty operands into an empty
  /// result (a window larger than its input, a zero scale) is a bad model:
  /// the backends' kernels assert on empty windows instead of reporting
  /// them. Other ops may make empty tensors (an ONNX slice past the end, an
  /// expanded layer norm's empty axes list): those are valid models.
  void checkNotEmptied(const Node &N) {
    static const char *const WindowOps[] = {
        "conv", "conv_transpose", "max_pool", "avg_pool", "lp_pool",
        "global_avg_pool", "global_max_pool", "resize"};
    if (std::none_of(std::begin(WindowOps), std::end(WindowOps),
                     [&](const char *Op) { return N.isOp(Op); }))
      return;
    for (unsigned I = 0; I < N.numOperands(); ++I)
      if (const Value *V = N.operand(I))
        if (auto Count = numElements(V->type().Dims); Count && *Count == 0)
          return;
    for (unsigned R = 0; R < N.numResults(); ++R)
      for (const Dim &D : N.result(R)->type().Dims)
        if (D.isStatic() && D.size() == 0) {
          fail(N, "result " + std::to_string(R) + " " +
                      toString(N.result(R)->type()) +
                      " would be empty; kiln refuses ops that produce empty "
                      "tensors from non-empty inputs");
          return;
        }
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

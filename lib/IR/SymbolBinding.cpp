#include "IR/SymbolBinding.h"

#include "IR/OpRegistry.h"
#include "Support/Error.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>

namespace kiln {

namespace {

bool hasUnknownDim(const TensorType &T) {
  return std::any_of(T.Dims.begin(), T.Dims.end(),
                     [](const Dim &D) { return D.isUnknown(); });
}

std::string symbolsOf(const Node &N) {
  std::vector<std::string> Names;
  for (const Value *V : N.operands())
    if (V)
      for (const Dim &D : V->type().Dims)
        if (D.isSymbolic() &&
            std::find(Names.begin(), Names.end(), D.symbol()) == Names.end())
          Names.push_back(D.symbol());
  std::string Out;
  for (const std::string &S : Names)
    Out += (Out.empty() ? "'" : ", '") + S + "'";
  return Out;
}

} // namespace

std::vector<std::string> graphSymbols(const Graph &G) {
  std::vector<std::string> Out;
  for (const Value *In : G.inputs())
    for (const Dim &D : In->type().Dims)
      if (D.isSymbolic() &&
          std::find(Out.begin(), Out.end(), D.symbol()) == Out.end())
        Out.push_back(D.symbol());
  return Out;
}

llvm::Error checkSymbolsCarried(const Graph &G) {
  for (const Value *In : G.inputs())
    if (hasUnknownDim(In->type()))
      return inputError("input '{0}' has the type {1}: a dim with neither a "
                        "size nor a name; fix it with --input-shape",
                        In->name(), toString(In->type()));
  for (const Node &N : G.nodes()) {
    if (std::any_of(N.operands().begin(), N.operands().end(),
                    [](const Value *V) { return V && hasUnknownDim(V->type()); }))
      continue; // reported at the node that lost the dim
    for (const Value *R : N.results())
      if (hasUnknownDim(R->type()))
        return inputError(
            "node '{0}' ({1}): its result {2} has a dim that depends on the "
            "symbolic dim(s) {3} in a way the file cannot keep (a .kiln file "
            "keeps dims that are a symbol times a size); fix the input shapes "
            "with --input-shape",
            N.displayName(), N.opName(), toString(R->type()), symbolsOf(N));
  }
  return llvm::Error::success();
}

std::unique_ptr<Graph>
cloneGraph(const Graph &G, llvm::DenseMap<const Value *, Value *> *MapOut) {
  auto Copy = std::make_unique<Graph>();
  Copy->setName(G.name());
  llvm::DenseMap<const Value *, Value *> Map;
  for (const Value *In : G.inputs())
    Map[In] = Copy->addInput(In->type(), In->name());
  for (const Node &N : G.nodes()) {
    std::vector<Value *> Operands;
    for (const Value *V : N.operands())
      Operands.push_back(V ? Map.lookup(V) : nullptr);
    std::vector<TensorType> Types;
    for (const Value *R : N.results())
      Types.push_back(R->type());
    Node *C = Copy->createNode(N.def(), Operands, Types, N.attrs());
    C->setSources(N.sources());
    for (unsigned I = 0; I < N.numResults(); ++I) {
      C->result(I)->setName(N.result(I)->name());
      Map[N.result(I)] = C->result(I);
    }
  }
  for (const Value *Out : G.outputs())
    Copy->addOutput(Map.lookup(Out));
  if (MapOut)
    *MapOut = std::move(Map);
  return Copy;
}

llvm::Error bindSymbols(Graph &G, const std::map<std::string, int64_t> &Sizes) {
  for (Value *In : G.inputs()) {
    TensorType T = In->type();
    for (Dim &D : T.Dims)
      if (D.isSymbolic()) {
        auto It = Sizes.find(D.symbol());
        if (It == Sizes.end())
          return internalError("no size for the symbolic dim '{0}'", D.symbol());
        D = Dim(It->second);
      }
    In->setType(T);
  }
  // Only dims change: element types and quantization parameters stay.
  return reinferTypes(G, /*DimsOnly=*/true);
}

} // namespace kiln

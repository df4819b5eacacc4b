#include "Driver/PartGraph.h"

#include "llvm/ADT/DenseMap.h"

#include <cassert>

namespace kiln {

namespace {

class PartBuilder {
public:
  PartBuilder(const Graph &G,
              const llvm::DenseMap<const Value *, std::string> *Names)
      : Out(std::make_unique<Graph>(G.name())), Names(Names) {}

  void addInput(const Value *V) { Map[V] = Out->addInput(V->type(), nameOf(V)); }

  /// Clones N after the operands it reads (constants cloned on demand).
  void clone(const Node &N) {
    std::vector<Value *> Operands;
    for (Value *V : N.operands())
      Operands.push_back(V ? mapped(V) : nullptr);
    std::vector<TensorType> Types;
    for (const Value *R : N.results())
      Types.push_back(R->type());
    Node *C = Out->createNode(N.def(), Operands, Types, N.attrs());
    C->setSources(N.sources());
    for (unsigned I = 0; I < N.numResults(); ++I) {
      C->result(I)->setName(nameOf(N.result(I)));
      Map[N.result(I)] = C->result(I);
    }
  }

  void addOutput(const Value *V) { Out->addOutput(mapped(V)); }

  std::unique_ptr<Graph> take() { return std::move(Out); }

private:
  /// V in the new graph; a constant expression not yet there is cloned.
  Value *mapped(const Value *V) {
    auto It = Map.find(V);
    if (It != Map.end())
      return It->second;
    assert(V->producer() && "a graph input outside the part's inputs");
    clone(*V->producer());
    return Map.lookup(V);
  }

  std::string nameOf(const Value *V) const {
    if (Names) {
      auto It = Names->find(V);
      if (It != Names->end())
        return It->second;
    }
    return V->name();
  }

  std::unique_ptr<Graph> Out;
  const llvm::DenseMap<const Value *, std::string> *Names;
  llvm::DenseMap<const Value *, Value *> Map;
};

} // namespace

std::unique_ptr<Graph>
extractPartGraph(const Graph &G, llvm::ArrayRef<const Node *> Nodes,
                 llvm::ArrayRef<const Value *> Inputs,
                 llvm::ArrayRef<const Value *> Outputs,
                 const llvm::DenseMap<const Value *, std::string> *Names) {
  PartBuilder B(G, Names);
  for (const Value *V : Inputs)
    B.addInput(V);
  for (const Node *N : Nodes)
    B.clone(*N);
  for (const Value *V : Outputs)
    B.addOutput(V);
  return B.take();
}

} // namespace kiln

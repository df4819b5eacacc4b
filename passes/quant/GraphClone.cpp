#include "passes/quant/GraphClone.h"


namespace kiln {

GraphCopy cloneGraph(const Graph &G) {
  GraphCopy C;
  C.G = std::make_unique<Graph>(G.name());
  llvm::DenseMap<const Value *, Value *> Map;
  for (const Value *In : G.inputs())
    Map[In] = C.G->addInput(In->type(), In->name());
  for (const Node &N : G.nodes()) {
    std::vector<Value *> Operands;
    for (const Value *V : N.operands())
      Operands.push_back(V ? Map.lookup(V) : nullptr);
    std::vector<TensorType> Types;
    for (unsigned R = 0; R < N.numResults(); ++R)
      Types.push_back(N.result(R)->type());
    Node *Copy = C.G->createNode(N.def(), Operands, Types, N.attrs());
    Copy->setSources(N.sources());
    for (unsigned R = 0; R < N.numResults(); ++R) {
      Copy->result(R)->setName(N.result(R)->name());
      Map[N.result(R)] = Copy->result(R);
    }
    C.NodeMap[&N] = Copy;
  }
  for (const Value *Out : G.outputs())
    C.G->addOutput(Map.lookup(Out));
  return C;
}

} // namespace kiln

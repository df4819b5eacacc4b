#include "IR/Graph.h"

#include "IR/OpRegistry.h"

#include <algorithm>
#include <cassert>

namespace kiln {

//===-- Value --------------------------------------------------------------===//

const Tensor *Value::constant() const {
  if (!Producer || !Producer->isOp("const"))
    return nullptr;
  return &Producer->getTensor("value");
}

//===-- Node ---------------------------------------------------------------===//

Node::~Node() { dropOperands(); }

llvm::StringRef Node::opName() const { return Def->Name; }

void Node::removeUse(Value *V, Node *User, unsigned Index) {
  if (!V)
    return;
  auto &Uses = V->Uses;
  auto It = std::find(Uses.begin(), Uses.end(), Use{User, Index});
  assert(It != Uses.end() && "use-list out of sync");
  Uses.erase(It);
}

void Node::setOperand(unsigned I, Value *V) {
  removeUse(Operands[I], this, I);
  Operands[I] = V;
  if (V)
    V->Uses.push_back({this, I});
}

void Node::addOperand(Value *V) {
  Operands.push_back(nullptr);
  setOperand(unsigned(Operands.size() - 1), V);
}

void Node::dropOperands() {
  for (unsigned I = 0; I < Operands.size(); ++I)
    removeUse(Operands[I], this, I);
  Operands.clear();
}

std::vector<Value *> Node::results() const {
  std::vector<Value *> R;
  for (const auto &V : Results)
    R.push_back(V.get());
  return R;
}

void Node::removeAttr(llvm::StringRef Name) {
  auto It = Attrs.find(Name);
  if (It != Attrs.end())
    Attrs.erase(It);
}

const AttrValue *Node::attrOrDefault(llvm::StringRef Name) const {
  auto It = Attrs.find(Name);
  if (It != Attrs.end())
    return &It->second;
  if (const AttrSpec *Spec = Def->findAttr(Name))
    if (Spec->Default)
      return &*Spec->Default;
  return nullptr;
}

template <typename T>
static const T &getAttrAs(const Node &N, llvm::StringRef Name) {
  const AttrValue *V = N.attrOrDefault(Name);
  assert(V && "attribute missing; the verifier should have caught this");
  const T *P = std::get_if<T>(V);
  assert(P && "attribute of the wrong kind; the verifier should catch this");
  return *P;
}

int64_t Node::getInt(llvm::StringRef Name) const {
  return getAttrAs<int64_t>(*this, Name);
}
double Node::getFloat(llvm::StringRef Name) const {
  return getAttrAs<double>(*this, Name);
}
const std::string &Node::getString(llvm::StringRef Name) const {
  return getAttrAs<std::string>(*this, Name);
}
const std::vector<int64_t> &Node::getInts(llvm::StringRef Name) const {
  return getAttrAs<std::vector<int64_t>>(*this, Name);
}
const std::vector<double> &Node::getFloats(llvm::StringRef Name) const {
  return getAttrAs<std::vector<double>>(*this, Name);
}
const Tensor &Node::getTensor(llvm::StringRef Name) const {
  return getAttrAs<Tensor>(*this, Name);
}

void Node::addSources(const Node &From) {
  for (const std::string &S : From.Sources)
    if (std::find(Sources.begin(), Sources.end(), S) == Sources.end())
      Sources.push_back(S);
}

std::string Node::displayName() const {
  if (!Sources.empty())
    return Sources.front();
  if (!Results.empty() && !Results[0]->name().empty())
    return "%" + Results[0]->name();
  return "<" + opName().str() + ">";
}

//===-- Graph --------------------------------------------------------------===//

Graph::~Graph() {
  // Drop every operand first so no node outlives a value it points to.
  for (Node &N : Nodes)
    N.dropOperands();
  Nodes.clear();
}

Value *Graph::addInput(TensorType Type, std::string InputName) {
  Inputs.push_back(std::unique_ptr<Value>(
      new Value(std::move(Type), nullptr, unsigned(Inputs.size()))));
  Inputs.back()->setName(std::move(InputName));
  return Inputs.back().get();
}

std::vector<Value *> Graph::inputs() const {
  std::vector<Value *> R;
  for (const auto &V : Inputs)
    R.push_back(V.get());
  return R;
}

bool Graph::isOutput(const Value *V) const {
  return std::find(Outputs.begin(), Outputs.end(), V) != Outputs.end();
}

Node *Graph::createNode(const OpDef &Def, llvm::ArrayRef<Value *> Operands,
                        llvm::ArrayRef<TensorType> ResultTypes, AttrMap Attrs,
                        Node *Before) {
  Node *N = new Node(Def, this);
  for (Value *V : Operands)
    N->addOperand(V);
  for (unsigned I = 0; I < ResultTypes.size(); ++I)
    N->Results.push_back(
        std::unique_ptr<Value>(new Value(ResultTypes[I], N, I)));
  N->Attrs = std::move(Attrs);
  if (Before)
    Nodes.insert(Before->getIterator(), N);
  else
    Nodes.push_back(N);
  return N;
}

Value *Graph::createConstant(Tensor T, std::string ValueName, Node *Before) {
  TensorType Type = T.type();
  AttrMap Attrs;
  Attrs["value"] = Tensor::spilledIfLarge(std::move(T));
  Node *N = createNode(OpRegistry::instance().get("const"), {}, {Type},
                       std::move(Attrs), Before);
  N->result()->setName(std::move(ValueName));
  return N->result();
}

void Graph::moveBefore(Node *N, Node *Anchor) {
  Nodes.splice(Anchor->getIterator(), Nodes, N->getIterator());
}

void Graph::moveAfter(Node *N, Node *Anchor) {
  Nodes.splice(std::next(Anchor->getIterator()), Nodes, N->getIterator());
}

void Graph::replaceAllUsesWith(Value *From, Value *To) {
  assert(From != To && "replacing a value with itself");
  // Copy: setOperand edits From's use-list while we walk it.
  std::vector<Use> Uses(From->uses().begin(), From->uses().end());
  for (const Use &U : Uses)
    U.User->setOperand(U.Index, To);
  for (Value *&Out : Outputs)
    if (Out == From)
      Out = To;
}

void Graph::erase(Node *N) {
#ifndef NDEBUG
  for (const auto &R : N->Results)
    assert(!R->hasUses() && !isOutput(R.get()) &&
           "erasing a node whose results are still used");
#endif
  N->dropOperands();
  Nodes.erase(N->getIterator());
}

} // namespace kiln

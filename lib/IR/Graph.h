// The SSA graph: Values, Nodes and the Graph that owns them.
//
// Every Value has exactly one producer (a node result or a graph input) and a
// use-list. Nodes live in an intrusive list kept in topological order. Rewrites
// create the new node, replace all uses, then erase the old one.
#pragma once

#include "IR/Attribute.h"
#include "IR/Type.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Optional.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/ilist.h"
#include "llvm/ADT/ilist_node.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln {

class Graph;
class Node;
struct OpDef;

/// One use of a value: operand Index of node User.
struct Use {
  Node *User;
  unsigned Index;
  bool operator==(const Use &O) const {
    return User == O.User && Index == O.Index;
  }
};

class Value {
public:
  const TensorType &type() const { return Type; }
  void setType(TensorType T) { Type = std::move(T); }

  /// Source name (ONNX tensor name, .kir name); may be empty.
  const std::string &name() const { return Name; }
  void setName(std::string N) { Name = std::move(N); }

  /// The producing node, or null for a graph input.
  Node *producer() const { return Producer; }
  unsigned resultIndex() const { return ResultIndex; }
  bool isGraphInput() const { return Producer == nullptr; }

  llvm::ArrayRef<Use> uses() const { return Uses; }
  bool hasUses() const { return !Uses.empty(); }
  size_t numUses() const { return Uses.size(); }

  /// Non-null when the producer is a `const` node.
  const Tensor *constant() const;

private:
  friend class Node;
  friend class Graph;
  Value(TensorType Type, Node *Producer, unsigned ResultIndex)
      : Type(std::move(Type)), Producer(Producer), ResultIndex(ResultIndex) {}

  TensorType Type;
  std::string Name;
  Node *Producer;
  unsigned ResultIndex;
  std::vector<Use> Uses;
};

class Node : public llvm::ilist_node<Node> {
public:
  ~Node();
  Node(const Node &) = delete;
  Node &operator=(const Node &) = delete;

  const OpDef &def() const { return *Def; }
  llvm::StringRef opName() const;
  bool isOp(llvm::StringRef Name) const { return opName() == Name; }
  Graph *graph() const { return Parent; }

  // Operands. An absent optional operand is a null Value*.
  unsigned numOperands() const { return unsigned(Operands.size()); }
  Value *operand(unsigned I) const { return Operands[I]; }
  llvm::ArrayRef<Value *> operands() const { return Operands; }
  void setOperand(unsigned I, Value *V);
  void addOperand(Value *V);

  // Results, owned by the node.
  unsigned numResults() const { return unsigned(Results.size()); }
  Value *result(unsigned I = 0) const { return Results[I].get(); }
  std::vector<Value *> results() const;

  // Attributes, validated against the op's schema by the verifier.
  const AttrMap &attrs() const { return Attrs; }
  bool hasAttr(llvm::StringRef Name) const { return Attrs.count(Name) != 0; }
  void setAttr(llvm::StringRef Name, AttrValue V) {
    Attrs[Name.str()] = std::move(V);
  }
  void removeAttr(llvm::StringRef Name);
  /// The explicit attribute or, failing that, the schema default (if any).
  const AttrValue *attrOrDefault(llvm::StringRef Name) const;
  int64_t getInt(llvm::StringRef Name) const;
  double getFloat(llvm::StringRef Name) const;
  const std::string &getString(llvm::StringRef Name) const;
  const std::vector<int64_t> &getInts(llvm::StringRef Name) const;
  const std::vector<double> &getFloats(llvm::StringRef Name) const;
  const Tensor &getTensor(llvm::StringRef Name) const;

  /// Provenance: the source nodes this node stands for (ONNX node names...).
  /// The first entry is the node's display name in errors and reports. A
  /// rewrite that merges nodes gives the result the union of their sources.
  const std::vector<std::string> &sources() const { return Sources; }
  void setSources(std::vector<std::string> S) { Sources = std::move(S); }
  void addSources(const Node &From);
  /// First source name, or "<opname>" when the node has none.
  std::string displayName() const;

private:
  friend class Graph;
  Node(const OpDef &Def, Graph *Parent) : Def(&Def), Parent(Parent) {}
  void dropOperands();
  static void removeUse(Value *V, Node *User, unsigned Index);

  const OpDef *Def;
  Graph *Parent;
  std::vector<Value *> Operands;
  std::vector<std::unique_ptr<Value>> Results;
  AttrMap Attrs;
  std::vector<std::string> Sources;
};

class Graph {
public:
  using NodeList = llvm::iplist<Node>;

  explicit Graph(std::string Name = "main") : Name(std::move(Name)) {}
  ~Graph();
  Graph(const Graph &) = delete;
  Graph &operator=(const Graph &) = delete;

  const std::string &name() const { return Name; }
  void setName(std::string N) { Name = std::move(N); }

  // Inputs and outputs.
  Value *addInput(TensorType Type, std::string Name);
  llvm::ArrayRef<std::unique_ptr<Value>> inputPtrs() const { return Inputs; }
  std::vector<Value *> inputs() const;
  Value *input(unsigned I) const { return Inputs[I].get(); }
  unsigned numInputs() const { return unsigned(Inputs.size()); }
  void addOutput(Value *V) { Outputs.push_back(V); }
  llvm::ArrayRef<Value *> outputs() const { return Outputs; }
  void setOutput(unsigned I, Value *V) { Outputs[I] = V; }
  bool isOutput(const Value *V) const;

  // Nodes, in topological order.
  NodeList &nodes() { return Nodes; }
  const NodeList &nodes() const { return Nodes; }
  size_t numNodes() const { return Nodes.size(); }

  /// Creates a node of Def, inserted before Before (null: at the end). Result
  /// types are given explicitly; use inferAndCreate (OpRegistry.h) to infer.
  Node *createNode(const OpDef &Def, llvm::ArrayRef<Value *> Operands,
                   llvm::ArrayRef<TensorType> ResultTypes, AttrMap Attrs = {},
                   Node *Before = nullptr);
  /// Creates a `const` node holding T, inserted before Before (or at the end).
  Value *createConstant(Tensor T, std::string Name = "", Node *Before = nullptr);

  /// Moves N so it sits just before / after Anchor.
  void moveBefore(Node *N, Node *Anchor);
  void moveAfter(Node *N, Node *Anchor);

  /// Every use of From (node operands and graph outputs) becomes To.
  void replaceAllUsesWith(Value *From, Value *To);
  /// Removes N. Its results must have no uses left.
  void erase(Node *N);

private:
  std::string Name;
  std::vector<std::unique_ptr<Value>> Inputs;
  std::vector<Value *> Outputs;
  NodeList Nodes;
};

} // namespace kiln

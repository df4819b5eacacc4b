// The op registry: every canonical IR op is defined once, with its operands,
// result count, attribute schema (kinds and defaults), an op-specific verifier
// and type/shape inference. Frontends map their op sets onto these ops; nothing
// downstream sees ONNX or aten names. The reference kernels live in
// lib/Interpreter (keyed by the same names) so that IR stays free of numerics;
// a unit test checks that every op here has one.
#pragma once

#include "IR/Attribute.h"
#include "IR/Type.h"

#include "llvm/ADT/Optional.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kiln {

class Graph;
class Node;
class Value;

struct OperandSpec {
  std::string Name;
  bool Optional = false; // may be absent (a null operand)
  bool Variadic = false; // last operand only: zero or more of it
};

struct AttrSpec {
  std::string Name;
  AttrKind Kind;
  llvm::Optional<AttrValue> Default; // None: the attribute is required
  std::string Doc;
};

/// Extra checks beyond the schema. Returns a plain message; the verifier adds
/// the node name and op.
using VerifyFn = llvm::Error (*)(const Node &);
/// Computes the result types from the operand types, attributes and any
/// constant operands. Returns one type per result of the node.
using InferFn = llvm::Expected<std::vector<TensorType>> (*)(const Node &);

struct OpDef {
  std::string Name;
  std::string Summary;
  std::string Category;
  std::vector<OperandSpec> Operands;
  unsigned MinResults = 1;
  unsigned MaxResults = 1;
  std::vector<AttrSpec> Attrs;
  VerifyFn Verify = nullptr;
  InferFn Infer = nullptr;

  const AttrSpec *findAttr(llvm::StringRef AttrName) const;
  unsigned minOperands() const;
  /// UINT_MAX when the last operand is variadic.
  unsigned maxOperands() const;
};

class OpRegistry {
public:
  static const OpRegistry &instance();

  const OpDef *lookup(llvm::StringRef Name) const;
  /// Looks up an op that must exist (a typo in kiln's own code is a bug).
  const OpDef &get(llvm::StringRef Name) const;
  /// All ops, sorted by name.
  std::vector<const OpDef *> all() const;

  void add(OpDef Def);

private:
  OpRegistry();
  std::map<std::string, std::unique_ptr<OpDef>, std::less<>> Ops;
};

/// Creates a node of op Name with NumResults results whose types are inferred,
/// inserted before Before (null: at the end). Errors name the op.
llvm::Expected<Node *> createInferred(Graph &G, llvm::StringRef Name,
                                      llvm::ArrayRef<Value *> Operands,
                                      AttrMap Attrs = {}, unsigned NumResults = 1,
                                      Node *Before = nullptr);

/// Runs the op's inference for N (schema and arity must already hold).
llvm::Expected<std::vector<TensorType>> inferTypes(const Node &N);

/// Infers every node's result types again, in graph order, after an input's
/// type changed (--input-shape, a symbol bound to a size). With DimsOnly a
/// result keeps its element type and quantization, which inference does not
/// recover for a quantize node, and takes only the inferred dims. A failure
/// names the node.
llvm::Error reinferTypes(Graph &G, bool DimsOnly);

/// Schema checks: operand count and presence, result count, attribute names
/// and kinds. Plain messages; callers add the node context.
llvm::Error checkSchema(const Node &N);

// Registration entry points, one per op family (lib/IR/ops/*.cpp).
void registerConstantOps(OpRegistry &R);
void registerConvOps(OpRegistry &R);
void registerElementwiseOps(OpRegistry &R);
void registerShapeOps(OpRegistry &R);
void registerImageOps(OpRegistry &R);
void registerDetectionOps(OpRegistry &R);
void registerRecurrentOps(OpRegistry &R);
void registerReductionOps(OpRegistry &R);
void registerQuantOps(OpRegistry &R);

} // namespace kiln

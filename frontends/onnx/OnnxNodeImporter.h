// What an ONNX op converter sees: one NodeProto, its operands as IR values,
// typed attribute getters and helpers to emit canonical ops. Converters are
// plain functions listed in per-family tables (OnnxNNOps.cpp,
// OnnxElementwiseOps.cpp, OnnxShapeOps.cpp, OnnxMiscOps.cpp); the importer
// looks them up by op type, so adding an op is one table row.
#pragma once

#include "IR/Graph.h"
#include "IR/OpRegistry.h"
#include "Support/Error.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"

#include <memory>
#include <string>
#include <vector>

namespace onnx {
class NodeProto;
class AttributeProto;
class TensorProto;
class ValueInfoProto;
} // namespace onnx

namespace kiln::onnx_import {

class ExternalDataResolver;

/// State shared by all converters of one import.
struct ImportState {
  ImportState(Graph &G, std::string FileName)
      : G(G), FileName(std::move(FileName)) {}
  Graph &G;
  std::string FileName;
  int64_t Opset = 0; // of the default domain
  llvm::StringMap<Value *> Values; // ONNX tensor name -> IR value
  /// ONNX shape inference results, by tensor name (used to refine dims).
  llvm::StringMap<const onnx::ValueInfoProto *> Inferred;
  /// Values of small i64 shape tensors that ONNX data propagation computed
  /// (Shape -> Slice -> Concat chains over static dims), by tensor name.
  llvm::StringMap<std::vector<int64_t>> KnownShapeValues;
  std::shared_ptr<const void> Owner; // keeps the ModelProto alive
  ExternalDataResolver *Resolver = nullptr;
};

class NodeImporter {
public:
  NodeImporter(ImportState &S, const onnx::NodeProto &P, std::string Name);
  ~NodeImporter();

  const onnx::NodeProto &proto() const { return P; }
  const std::string &name() const { return Name; }
  const std::string &opType() const;
  int64_t opset() const { return S.Opset; }
  Graph &graph() { return S.G; }

  // Operands. Absent (past the end or an empty name) gives null.
  unsigned numInputs() const;
  Value *input(unsigned I) const;
  /// input(I), or an error naming the missing operand.
  llvm::Expected<Value *> required(unsigned I) const;
  unsigned numOutputs() const;
  bool hasOutput(unsigned I) const;

  // Attributes. A wrong kind records an error (see takeError) and gives the
  // default, so converters read attributes without checking each one.
  bool hasAttr(llvm::StringRef Name) const;
  int64_t attrInt(llvm::StringRef Name, int64_t Default);
  double attrFloat(llvm::StringRef Name, double Default);
  std::string attrString(llvm::StringRef Name, llvm::StringRef Default);
  std::vector<int64_t> attrInts(llvm::StringRef Name,
                                std::vector<int64_t> Default = {});
  std::vector<double> attrFloats(llvm::StringRef Name,
                                 std::vector<double> Default = {});
  /// The tensor attribute decoded (copied), or an error.
  llvm::Expected<Tensor> attrTensor(llvm::StringRef Name);
  /// Decodes any TensorProto (Constant values, ConstantOfShape).
  llvm::Expected<Tensor> decode(const onnx::TensorProto &T);

  // Emitting canonical ops; each gets this node's name as its source.
  llvm::Expected<Node *> emitNode(llvm::StringRef Op,
                                  llvm::ArrayRef<Value *> Operands,
                                  AttrMap Attrs = {}, unsigned NumResults = 1);
  llvm::Expected<Value *> emit(llvm::StringRef Op,
                               llvm::ArrayRef<Value *> Operands,
                               AttrMap Attrs = {});
  Value *constant(Tensor T);
  Value *constInts(llvm::ArrayRef<int64_t> V); // 1-D i64
  /// A rank-0 constant of element type E holding V.
  Value *constScalar(ElementType E, double V);

  /// Binds output I of the ONNX node to V: names it and, where ONNX shape
  /// inference knows a dim that kiln left unknown, refines V's type.
  void bind(unsigned I, Value *V);
  Value *foldShapeArithmetic(Value *V);
  /// Binds every present output to N's results in order.
  void bindAll(Node *N);

  /// "FILE: node 'NAME' (OP)" for messages.
  std::string context() const;
  template <typename... Ts>
  llvm::Error fail(const char *Fmt, Ts &&...Vals) const {
    return addContext(inputError(Fmt, std::forward<Ts>(Vals)...), context());
  }
  /// The first attribute error recorded, if any.
  llvm::Error takeError();

private:
  const onnx::AttributeProto *findAttr(llvm::StringRef Name) const;
  bool expectKind(const onnx::AttributeProto *A, int Kind, const char *Want);

  ImportState &S;
  const onnx::NodeProto &P;
  std::string Name;
  std::string PendingError;
};

/// Binds R's results as N's outputs, then N's first attribute error if
/// any: how a converter ends.
llvm::Error finish(NodeImporter &N, llvm::Expected<Node *> R);

using ConvertFn = llvm::Error (*)(NodeImporter &);

/// One table row: ONNX op type (default domain) and its converter. MinOpset
/// is the oldest default-domain opset whose semantics the converter knows.
struct OpConverter {
  const char *OpType;
  ConvertFn Convert;
  int MinOpset = 7;
};

llvm::ArrayRef<OpConverter> elementwiseConverters();
llvm::ArrayRef<OpConverter> nnConverters();
llvm::ArrayRef<OpConverter> shapeConverters();
llvm::ArrayRef<OpConverter> miscConverters();
llvm::ArrayRef<OpConverter> quantConverters();
llvm::ArrayRef<OpConverter> recurrentConverters();

/// Conv's attributes (kernel_shape, strides, dilations, pads, auto_pad,
/// group) on N, checked against X and W, as a conv of X, W and B.
llvm::Expected<Node *> emitConv(NodeImporter &N, Value *X, Value *W, Value *B);

/// The converter for (Domain, OpType), or null.
const OpConverter *findConverter(llvm::StringRef Domain, llvm::StringRef OpType);

/// Highest default-domain opset kiln knows the semantics of.
constexpr int64_t MaxKnownOpset = 17;

} // namespace kiln::onnx_import

// What a TorchScript op converter sees. The importer walks the frozen graph
// as an abstract interpreter: every TorchScript value is either known at
// compile time (a c10::IValue: ints, lists, weights...), a runtime tensor (an
// IR value), or a container holding runtime tensors (the list given to cat,
// the tuple a model returns). Nodes whose inputs are all known run on
// libtorch's own kernels; the rest are mapped onto canonical IR ops by the
// converters in the per-family tables (TsNNOps.cpp, TsElementwiseOps.cpp,
// TsShapeOps.cpp), looked up by aten op name.
//
// This header includes libtorch; only files of this library include it.
#pragma once

#include "IR/Graph.h"
#include "IR/OpRegistry.h"
#include "Support/Error.h"

#include <torch/csrc/jit/ir/ir.h>

#include "llvm/ADT/ArrayRef.h"

#include <memory>
#include <optional>
#include <unordered_map>
#include <string>
#include <vector>

namespace kiln::ts_import {

struct TsValue;
/// Containers have reference semantics, as in Python: aten::append on a list
/// is seen by every holder of it.
using TsItems = std::shared_ptr<std::vector<TsValue>>;

struct TsValue {
  enum class Kind { Unknown, Const, Tensor, List, Tuple, Dict };
  Kind K = Kind::Unknown;
  c10::IValue C;              // Const
  Value *T = nullptr;         // Tensor
  TsItems Items;              // List, Tuple, Dict (values)
  /// Dict keys (constants), parallel to Items; shared like Items.
  std::shared_ptr<std::vector<c10::IValue>> Keys;

  static TsValue constant(c10::IValue V) {
    TsValue R;
    R.K = Kind::Const;
    R.C = std::move(V);
    return R;
  }
  static TsValue tensor(Value *V) {
    TsValue R;
    R.K = Kind::Tensor;
    R.T = V;
    return R;
  }
  static TsValue container(Kind K, std::vector<TsValue> Elems) {
    TsValue R;
    R.K = K;
    R.Items = std::make_shared<std::vector<TsValue>>(std::move(Elems));
    R.Keys = std::make_shared<std::vector<c10::IValue>>();
    return R;
  }
  bool isConst() const { return K == Kind::Const; }
  bool isTensor() const { return K == Kind::Tensor; }
  bool isUnknown() const { return K == Kind::Unknown; }
};

/// Where a TorchScript node came from in the user's Python source:
/// "model.py:12" (and the line's text when TorchScript kept it), or "".
std::string pythonLocation(const torch::jit::Node *N);

/// at::ScalarType <-> kiln element types.
std::optional<ElementType> toElementType(c10::ScalarType S);
c10::ScalarType toScalarType(ElementType E);

/// A copy-free kiln Tensor over a contiguous at::Tensor (the at::Tensor is
/// kept alive by the buffer).
llvm::Expected<Tensor> toKilnTensor(const at::Tensor &T);

struct ImportState {
  ImportState(Graph &G, std::string FileName)
      : G(G), FileName(std::move(FileName)) {}
  Graph &G;
  std::string FileName;
  /// Source names handed out so far (to keep them unique).
  std::unordered_map<std::string, unsigned> NameUses;
};

/// A stable, readable source name for N: the module path TorchScript kept
/// when it inlined the submodules' forward() ("features.3.conv.1") and the
/// op ("features.3.conv.1/batch_norm"); made unique with "#2", "#3"...
/// Falls back to the output's debug name.
std::string sourceName(ImportState &S, const torch::jit::Node *N);

class NodeConverter {
public:
  NodeConverter(ImportState &S, const torch::jit::Node *N,
                std::vector<TsValue> Inputs);

  const torch::jit::Node *node() const { return N; }
  std::string kind() const { return N->kind().toQualString(); }
  unsigned numInputs() const { return unsigned(Inputs.size()); }
  const TsValue &in(unsigned I) const { return Inputs[I]; }
  bool isNone(unsigned I) const;

  // Operand accessors: a wrong kind records an error (see takeError) and
  // gives a default, so converters read operands without checking each one.
  /// A runtime tensor, or a known tensor turned into an IR constant.
  Value *tensor(unsigned I);
  /// Like tensor(), or null when the operand is None.
  Value *optionalTensor(unsigned I);
  int64_t getInt(unsigned I);
  double getDouble(unsigned I);
  bool getBool(unsigned I);
  std::string getString(unsigned I);
  std::vector<int64_t> getInts(unsigned I);
  /// An int list operand, or Default when it is None.
  std::vector<int64_t> getOptionalInts(unsigned I,
                                       std::vector<int64_t> Default = {});
  std::optional<double> getOptionalDouble(unsigned I);
  /// The elements of a list operand (known or runtime).
  std::vector<TsValue> getList(unsigned I);

  // Emitting canonical ops; each gets this node's name as its source.
  llvm::Expected<Node *> emitNode(llvm::StringRef Op,
                                  llvm::ArrayRef<Value *> Operands,
                                  AttrMap Attrs = {}, unsigned NumResults = 1);
  llvm::Expected<Value *> emit(llvm::StringRef Op,
                               llvm::ArrayRef<Value *> Operands,
                               AttrMap Attrs = {});
  Value *constant(Tensor T);
  Value *constInts(llvm::ArrayRef<int64_t> V);
  /// A rank-0 constant of element type E holding V.
  Value *constScalar(ElementType E, double V);
  /// A scalar operand (Python number or 0-d tensor) as a constant matching
  /// Like's element type, or a runtime tensor operand as is.
  Value *scalarOrTensor(unsigned I, const Value *Like);

  /// The static dims of V, or an error naming the op.
  llvm::Expected<std::vector<int64_t>> staticDims(const Value *V);

  /// Replaces operand I (a quantized tensor by its dequantized value).
  void replaceInput(unsigned I, TsValue V) { Inputs[I] = std::move(V); }

  // Results.
  const TsValue &output(unsigned I) const { return Outputs[I]; }
  unsigned numOutputs() const { return unsigned(Outputs.size()); }
  void setOutput(unsigned I, TsValue V);
  void setTensorOutput(unsigned I, Value *V) { setOutput(I, TsValue::tensor(V)); }
  std::vector<TsValue> takeOutputs() { return std::move(Outputs); }

  /// Source name of the emitted nodes (the first output's debug name).
  const std::string &name() const { return Name; }
  /// "FILE: node 'NAME' (aten::op) at model.py:12" for messages.
  std::string context() const;
  template <typename... Ts>
  llvm::Error fail(const char *Fmt, Ts &&...Vals) const {
    return addContext(inputError(Fmt, std::forward<Ts>(Vals)...), context());
  }
  llvm::Error takeError();

private:
  void recordError(std::string Msg);

  ImportState &S;
  const torch::jit::Node *N;
  std::vector<TsValue> Inputs;
  std::vector<TsValue> Outputs;
  std::string Name;
  std::string PendingError;
};

/// Sets V as C's output 0, then C's first operand error if any: how a
/// converter of a one-result op ends.
llvm::Error finish(NodeConverter &C, llvm::Expected<Value *> V);

using ConvertFn = llvm::Error (*)(NodeConverter &);

/// One table row: the aten op (e.g. "aten::conv2d", covering every overload)
/// and its converter.
struct OpConverter {
  const char *Kind;
  ConvertFn Convert;
};

/// A convolution's operands and PyTorch arguments (per spatial axis, or
/// one value for all).
struct ConvArgs {
  Value *X = nullptr, *W = nullptr, *B = nullptr;
  std::vector<int64_t> Stride, Padding, Dilation, OutputPadding;
  std::string PaddingMode; // "same"/"valid" for conv2d.padding
  bool Transposed = false;
  int64_t Groups = 1;
};
/// Emits conv or conv_transpose for A as C's output 0.
llvm::Error emitConv(NodeConverter &C, ConvArgs A);

llvm::ArrayRef<OpConverter> nnConverters();
llvm::ArrayRef<OpConverter> quantizedConverters();
/// True for the ops quantizedConverters() converts (they read and write
/// quantized tensors themselves).
bool isQuantizedOpKind(llvm::StringRef Kind);

/// A quantized tensor operand: an IR value of u8 (quint8) or i8 (qint8)
/// whose type carries its scale and zero point.
bool isQuantizedValue(const Value *V);

/// Runs libtorch's op Name (one overload-less schema) on Args, boxed; a
/// failure names the op (TsQuantizedOps.cpp).
llvm::Expected<torch::jit::Stack> callTorchOp(NodeConverter &C, const char *Name,
                                              torch::jit::Stack Args);
/// Before a float converter runs on a node that reads quantized tensors
/// (aten::relu, max_pool2d, flatten... on them): those operands become
/// their dequantized values. Returns the first one, or null.
llvm::Expected<const Value *> dequantizeOperands(NodeConverter &C);
/// After it: its float tensor results quantized again with the parameters
/// PyTorch's quantized kernel gives them (sigmoid and hardsigmoid 1/256,
/// tanh 2/256 at the middle zero point, the others In's).
llvm::Error requantizeOutputs(NodeConverter &C, const Value *In);
llvm::ArrayRef<OpConverter> elementwiseConverters();
llvm::ArrayRef<OpConverter> shapeConverters();
llvm::ArrayRef<OpConverter> recurrentConverters();

/// The converter for an op kind ("aten::relu_"), or null.
const OpConverter *findConverter(llvm::StringRef Kind);

} // namespace kiln::ts_import

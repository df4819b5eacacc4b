// NodeImporter: operand lookup, typed attribute reads and op emission for the
// ONNX op converters, plus the table that maps op types to converters.
#include "frontends/onnx/OnnxNodeImporter.h"

#include "frontends/onnx/OnnxTensors.h"
#include "Interpreter/NodeEvaluator.h"

#include "llvm/ADT/StringMap.h"

#include <onnx/onnx_pb.h>

namespace kiln::onnx_import {

using onnx::AttributeProto;

NodeImporter::NodeImporter(ImportState &S, const onnx::NodeProto &P,
                           std::string Name)
    : S(S), P(P), Name(std::move(Name)) {}
NodeImporter::~NodeImporter() = default;

const std::string &NodeImporter::opType() const { return P.op_type(); }

unsigned NodeImporter::numInputs() const { return unsigned(P.input_size()); }

Value *NodeImporter::input(unsigned I) const {
  if (I >= unsigned(P.input_size()) || P.input(int(I)).empty())
    return nullptr;
  return S.Values.lookup(P.input(int(I)));
}

llvm::Expected<Value *> NodeImporter::required(unsigned I) const {
  if (Value *V = input(I))
    return V;
  return fail("input {0} is required but absent", I);
}

unsigned NodeImporter::numOutputs() const { return unsigned(P.output_size()); }

bool NodeImporter::hasOutput(unsigned I) const {
  return I < unsigned(P.output_size()) && !P.output(int(I)).empty();
}

std::string NodeImporter::context() const {
  return S.FileName + ": node '" + Name + "' (" + P.op_type() + ")";
}

llvm::Error NodeImporter::takeError() {
  if (PendingError.empty())
    return llvm::Error::success();
  return fail("{0}", PendingError);
}

//===-- Attributes ---------------------------------------------------------===//

const AttributeProto *NodeImporter::findAttr(llvm::StringRef AttrName) const {
  for (const AttributeProto &A : P.attribute())
    if (A.name() == AttrName)
      return &A;
  return nullptr;
}

bool NodeImporter::hasAttr(llvm::StringRef AttrName) const {
  return findAttr(AttrName) != nullptr;
}

bool NodeImporter::expectKind(const AttributeProto *A, int Kind,
                              const char *Want) {
  if (A->type() == Kind)
    return true;
  if (PendingError.empty())
    PendingError = "attribute '" + A->name() + "' must be " + Want + ", got " +
                   AttributeProto::AttributeType_Name(A->type());
  return false;
}

int64_t NodeImporter::attrInt(llvm::StringRef N, int64_t Default) {
  const AttributeProto *A = findAttr(N);
  if (!A || !expectKind(A, AttributeProto::INT, "an int"))
    return Default;
  return A->i();
}

double NodeImporter::attrFloat(llvm::StringRef N, double Default) {
  const AttributeProto *A = findAttr(N);
  if (!A || !expectKind(A, AttributeProto::FLOAT, "a float"))
    return Default;
  return A->f();
}

std::string NodeImporter::attrString(llvm::StringRef N,
                                     llvm::StringRef Default) {
  const AttributeProto *A = findAttr(N);
  if (!A || !expectKind(A, AttributeProto::STRING, "a string"))
    return Default.str();
  return A->s();
}

std::vector<int64_t> NodeImporter::attrInts(llvm::StringRef N,
                                            std::vector<int64_t> Default) {
  const AttributeProto *A = findAttr(N);
  if (!A || !expectKind(A, AttributeProto::INTS, "a list of ints"))
    return Default;
  return {A->ints().begin(), A->ints().end()};
}

std::vector<double> NodeImporter::attrFloats(llvm::StringRef N,
                                             std::vector<double> Default) {
  const AttributeProto *A = findAttr(N);
  if (!A || !expectKind(A, AttributeProto::FLOATS, "a list of floats"))
    return Default;
  return {A->floats().begin(), A->floats().end()};
}

llvm::Expected<Tensor> NodeImporter::decode(const onnx::TensorProto &T) {
  auto R = decodeTensor(T, S.Owner, S.Resolver);
  if (!R)
    return addContext(R.takeError(), context());
  return R;
}

llvm::Expected<Tensor> NodeImporter::attrTensor(llvm::StringRef N) {
  const AttributeProto *A = findAttr(N);
  if (!A)
    return fail("attribute '{0}' is required", N);
  if (!expectKind(A, AttributeProto::TENSOR, "a tensor"))
    return takeError();
  return decode(A->t());
}

//===-- Emission -----------------------------------------------------------===//

llvm::Expected<Node *> NodeImporter::emitNode(llvm::StringRef Op,
                                              llvm::ArrayRef<Value *> Operands,
                                              AttrMap Attrs,
                                              unsigned NumResults) {
  // Absent trailing optional operands are simply left off.
  while (!Operands.empty() && !Operands.back())
    Operands = Operands.drop_back();
  auto N = createInferred(S.G, Op, Operands, std::move(Attrs), NumResults);
  if (!N)
    return addContext(N.takeError(), context());
  (*N)->setSources({Name});
  return *N;
}

llvm::Expected<Value *> NodeImporter::emit(llvm::StringRef Op,
                                           llvm::ArrayRef<Value *> Operands,
                                           AttrMap Attrs) {
  auto N = emitNode(Op, Operands, std::move(Attrs), 1);
  if (!N)
    return N.takeError();
  return (*N)->result(0);
}

Value *NodeImporter::constant(Tensor T) {
  Value *V = S.G.createConstant(std::move(T));
  V->producer()->setSources({Name});
  return V;
}

Value *NodeImporter::constInts(llvm::ArrayRef<int64_t> V) {
  return constant(Tensor::fromValues<int64_t>(
      ElementType::I64, {Dim(int64_t(V.size()))}, V));
}

Value *NodeImporter::constScalar(ElementType E, double V) {
  return constant(Tensor::scalar(E, V));
}

/// Small integer results computed only from constants (the shape arithmetic
/// of exported graphs: shape -> gather -> concat -> reshape) are evaluated
/// now with the interpreter's kernels, so the ops that consume them see
/// static shapes. Booleans count (exporters select shapes with Equal -> Where:
/// ViT's class-token Expand), and so do small matrices (pads computed as
/// [n, 2] -> reverse -> transpose -> flatten: Swin's window padding). The
/// nodes that computed them are left for dce.
Value *NodeImporter::foldShapeArithmetic(Value *V) {
  Node *N = V->producer();
  ElementType E = V->type().Elem;
  if (!N || N->isOp("const") ||
      !(isIntegerType(E) || E == ElementType::Bool) || V->type().rank() > 2)
    return V;
  constexpr int64_t MaxFolded = 1024;
  auto Count = numElements(V->type().Dims);
  if (Count && *Count > MaxFolded)
    return V;
  auto R = tryEvaluateConstantNode(*N);
  if (!R) { // not foldable here; the interpreter reports it at run time
    llvm::consumeError(R.takeError());
    return V;
  }
  if (!*R || (**R)[V->resultIndex()].numElements() > MaxFolded)
    return V;
  return constant(std::move((**R)[V->resultIndex()]));
}

void NodeImporter::bind(unsigned I, Value *V) {
  if (!hasOutput(I))
    return;
  V = foldShapeArithmetic(V);
  const std::string &Out = P.output(int(I));
  // A shape computation whose value ONNX data propagation knows becomes a
  // constant, so reshape/expand/... downstream get static shapes. (The nodes
  // that computed it are left for dead-code elimination.)
  auto Known = S.KnownShapeValues.find(Out);
  if (Known != S.KnownShapeValues.end() && !V->constant() &&
      V->type().Elem == ElementType::I64 && V->type().rank() <= 1) {
    const std::vector<int64_t> &Vals = Known->second;
    Shape Dims = V->type().rank() == 0 ? Shape() : Shape{Dim(int64_t(Vals.size()))};
    if (isCompatible(V->type(), TensorType(ElementType::I64, Dims)) &&
        (V->type().rank() == 1 || Vals.size() == 1))
      V = constant(Tensor::fromValues<int64_t>(ElementType::I64, Dims, Vals));
  }
  S.Values[Out] = V;
  if (V->name().empty())
    V->setName(Out);
  // Refine dims kiln could not infer with what ONNX shape inference knows.
  const onnx::ValueInfoProto *VI = S.Inferred.lookup(Out);
  if (!VI || !V->producer() || V->producer()->isOp("const"))
    return;
  auto T = typeFromOnnx(VI->type());
  if (!T) {
    llvm::consumeError(T.takeError());
    return;
  }
  TensorType Cur = V->type();
  if (T->Elem != Cur.Elem || T->rank() != Cur.rank())
    return;
  bool Changed = false;
  for (size_t D = 0; D < Cur.Dims.size(); ++D)
    if (Cur.Dims[D].isUnknown() && T->Dims[D].isStatic()) {
      Cur.Dims[D] = T->Dims[D];
      Changed = true;
    }
  if (Changed)
    V->setType(std::move(Cur));
}

void NodeImporter::bindAll(Node *N) {
  for (unsigned I = 0; I < N->numResults(); ++I)
    bind(I, N->result(I));
}

llvm::Error finish(NodeImporter &N, llvm::Expected<Node *> R) {
  if (!R)
    return R.takeError();
  N.bindAll(*R);
  return N.takeError();
}

//===-- Converter table ----------------------------------------------------===//

const OpConverter *findConverter(llvm::StringRef Domain,
                                 llvm::StringRef OpType) {
  static const llvm::StringMap<const OpConverter *> Table = [] {
    llvm::StringMap<const OpConverter *> T;
    for (auto Family : {elementwiseConverters(), nnConverters(),
                        shapeConverters(), miscConverters(), quantConverters(),
                         recurrentConverters()})
      for (const OpConverter &C : Family)
        T[C.OpType] = &C;
    return T;
  }();
  if (!Domain.empty() && Domain != "ai.onnx")
    return nullptr;
  return Table.lookup(OpType);
}

} // namespace kiln::onnx_import

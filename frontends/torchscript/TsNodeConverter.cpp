// NodeConverter: typed access to a TorchScript node's abstract operands and
// helpers to emit canonical IR ops, shared by every aten converter.
#include "frontends/torchscript/TsConverter.h"

#include "llvm/ADT/STLExtras.h"

namespace kiln::ts_import {

NodeConverter::NodeConverter(ImportState &S, const torch::jit::Node *N,
                             std::vector<TsValue> Inputs)
    : S(S), N(N), Inputs(std::move(Inputs)), Outputs(N->outputs().size()) {
  Name = sourceName(S, N);
}

std::string sourceName(ImportState &S, const torch::jit::Node *N) {
  std::string Path;
  if (auto CS = N->callstack())
    for (const auto &Entry : (*CS)->vec())
      if (const auto &Info = std::get<2>(Entry)) {
        // "SELF" marks a method calling another method of the same module.
        if (Info->instance_name() == "SELF")
          continue;
        if (!Path.empty())
          Path += ".";
        Path += Info->instance_name();
      }
  std::string Base;
  if (Path.empty())
    Base = N->outputs().empty() ? std::string(N->kind().toUnqualString())
                                : N->output(0)->debugName();
  else
    Base = Path + "/" + N->kind().toUnqualString();
  unsigned Uses = ++S.NameUses[Base];
  return Uses == 1 ? Base : Base + "#" + std::to_string(Uses);
}

std::string NodeConverter::context() const {
  std::string C = S.FileName + ": node '" + Name + "' (" + kind() + ")";
  std::string Loc = pythonLocation(N);
  if (!Loc.empty())
    C += " at " + Loc;
  return C;
}

void NodeConverter::recordError(std::string Msg) {
  if (PendingError.empty())
    PendingError = std::move(Msg);
}

llvm::Error NodeConverter::takeError() {
  if (PendingError.empty())
    return llvm::Error::success();
  std::string M = std::move(PendingError);
  PendingError.clear();
  return fail("{0}", M);
}

bool NodeConverter::isNone(unsigned I) const {
  return I >= Inputs.size() ||
         (Inputs[I].isConst() && Inputs[I].C.isNone());
}

Value *NodeConverter::tensor(unsigned I) {
  if (I >= Inputs.size()) {
    recordError("operand " + std::to_string(I) + " is missing");
    return nullptr;
  }
  const TsValue &V = Inputs[I];
  if (V.isTensor())
    return V.T;
  if (V.isConst() && V.C.isTensor()) {
    auto T = toKilnTensor(V.C.toTensor());
    if (!T) {
      recordError(llvm::toString(T.takeError()));
      return nullptr;
    }
    return constant(std::move(*T));
  }
  recordError("operand " + std::to_string(I) + " is not a tensor");
  return nullptr;
}

Value *NodeConverter::optionalTensor(unsigned I) {
  return isNone(I) ? nullptr : tensor(I);
}

int64_t NodeConverter::getInt(unsigned I) {
  if (I < Inputs.size() && Inputs[I].isConst()) {
    const c10::IValue &C = Inputs[I].C;
    if (C.isInt())
      return C.toInt();
    if (C.isBool())
      return C.toBool();
  }
  recordError("operand " + std::to_string(I) +
              " must be an int known at compile time");
  return 0;
}

double NodeConverter::getDouble(unsigned I) {
  if (I < Inputs.size() && Inputs[I].isConst()) {
    const c10::IValue &C = Inputs[I].C;
    if (C.isDouble())
      return C.toDouble();
    if (C.isInt())
      return double(C.toInt());
    if (C.isBool())
      return C.toBool();
    if (C.isTensor() && C.toTensor().numel() == 1)
      return C.toTensor().item<double>();
  }
  recordError("operand " + std::to_string(I) +
              " must be a number known at compile time");
  return 0;
}

bool NodeConverter::getBool(unsigned I) { return getInt(I) != 0; }

std::string NodeConverter::getString(unsigned I) {
  if (I < Inputs.size() && Inputs[I].isConst() && Inputs[I].C.isString())
    return Inputs[I].C.toStringRef();
  recordError("operand " + std::to_string(I) +
              " must be a string known at compile time");
  return "";
}

std::vector<int64_t> NodeConverter::getInts(unsigned I) {
  if (I < Inputs.size() && Inputs[I].isConst()) {
    const c10::IValue &C = Inputs[I].C;
    if (C.isIntList())
      return C.toIntVector();
    if (C.isInt())
      return {C.toInt()};
  }
  if (I < Inputs.size() && Inputs[I].K == TsValue::Kind::List) {
    std::vector<int64_t> R;
    for (const TsValue &E : *Inputs[I].Items) {
      if (!E.isConst() || !E.C.isInt()) {
        recordError("operand " + std::to_string(I) +
                    " must be a list of ints known at compile time (a size "
                    "that depends on data is not supported)");
        return {};
      }
      R.push_back(E.C.toInt());
    }
    return R;
  }
  recordError("operand " + std::to_string(I) +
              " must be a list of ints known at compile time");
  return {};
}

std::vector<int64_t> NodeConverter::getOptionalInts(unsigned I,
                                                    std::vector<int64_t> Default) {
  return isNone(I) ? Default : getInts(I);
}

std::optional<double> NodeConverter::getOptionalDouble(unsigned I) {
  if (isNone(I))
    return std::nullopt;
  return getDouble(I);
}

std::vector<TsValue> NodeConverter::getList(unsigned I) {
  if (I < Inputs.size()) {
    const TsValue &V = Inputs[I];
    if (V.K == TsValue::Kind::List || V.K == TsValue::Kind::Tuple)
      return *V.Items;
    if (V.isConst() && V.C.isList()) {
      std::vector<TsValue> R;
      for (const c10::IValue &E : V.C.toListRef())
        R.push_back(TsValue::constant(E));
      return R;
    }
    if (V.isConst() && V.C.isTuple()) {
      std::vector<TsValue> R;
      for (const c10::IValue &E : V.C.toTupleRef().elements())
        R.push_back(TsValue::constant(E));
      return R;
    }
  }
  recordError("operand " + std::to_string(I) + " must be a list");
  return {};
}

llvm::Expected<Node *> NodeConverter::emitNode(llvm::StringRef Op,
                                               llvm::ArrayRef<Value *> Operands,
                                               AttrMap Attrs,
                                               unsigned NumResults) {
  if (llvm::Error E = takeError())
    return E;
  while (!Operands.empty() && !Operands.back())
    Operands = Operands.drop_back();
  auto R = createInferred(S.G, Op, Operands, std::move(Attrs), NumResults);
  if (!R)
    return addContext(R.takeError(), context());
  (*R)->setSources({Name});
  return *R;
}

llvm::Expected<Value *> NodeConverter::emit(llvm::StringRef Op,
                                            llvm::ArrayRef<Value *> Operands,
                                            AttrMap Attrs) {
  auto R = emitNode(Op, Operands, std::move(Attrs), 1);
  if (!R)
    return R.takeError();
  return (*R)->result(0);
}

Value *NodeConverter::constant(Tensor T) {
  Value *V = S.G.createConstant(std::move(T));
  V->producer()->setSources({Name});
  return V;
}

Value *NodeConverter::constInts(llvm::ArrayRef<int64_t> V) {
  return constant(
      Tensor::fromValues<int64_t>(ElementType::I64, {Dim(int64_t(V.size()))}, V));
}

Value *NodeConverter::constScalar(ElementType E, double V) {
  return constant(Tensor::scalar(E, V));
}

Value *NodeConverter::scalarOrTensor(unsigned I, const Value *Like) {
  if (I < Inputs.size() && Inputs[I].isConst()) {
    const c10::IValue &C = Inputs[I].C;
    // Python numbers and 0-d tensors take the other operand's type, as in
    // PyTorch's type promotion for a tensor and a scalar.
    bool Scalar = C.isInt() || C.isDouble() || C.isBool() ||
                  (C.isTensor() && C.toTensor().dim() == 0);
    if (Scalar && Like)
      return constScalar(Like->type().Elem, getDouble(I));
  }
  return tensor(I);
}

llvm::Expected<std::vector<int64_t>> NodeConverter::staticDims(const Value *V) {
  std::vector<int64_t> D;
  for (const Dim &X : V->type().Dims) {
    if (!X.isStatic())
      return fail("needs static dims, the operand is {0}; fix the input "
                  "shapes with --input-shape",
                  toString(V->type()));
    D.push_back(X.size());
  }
  return D;
}

void NodeConverter::setOutput(unsigned I, TsValue V) {
  if (I < Outputs.size())
    Outputs[I] = std::move(V);
}

llvm::Error finish(NodeConverter &C, llvm::Expected<Value *> V) {
  if (!V)
    return V.takeError();
  C.setTensorOutput(0, *V);
  return C.takeError();
}

const OpConverter *findConverter(llvm::StringRef Kind) {
  for (auto Table : {nnConverters(), elementwiseConverters(), shapeConverters(),
                     quantizedConverters(), recurrentConverters()})
    for (const OpConverter &C : Table)
      if (Kind == C.Kind)
        return &C;
  return nullptr;
}

} // namespace kiln::ts_import

#include "IR/OpRegistry.h"

#include "IR/Graph.h"
#include "Support/Error.h"

#include <cassert>
#include <climits>

namespace kiln {

const AttrSpec *OpDef::findAttr(llvm::StringRef AttrName) const {
  for (const AttrSpec &A : Attrs)
    if (A.Name == AttrName)
      return &A;
  return nullptr;
}

unsigned OpDef::minOperands() const {
  unsigned N = 0;
  for (const OperandSpec &O : Operands)
    if (!O.Optional && !O.Variadic)
      ++N;
  return N;
}

unsigned OpDef::maxOperands() const {
  if (!Operands.empty() && Operands.back().Variadic)
    return UINT_MAX;
  return unsigned(Operands.size());
}

OpRegistry::OpRegistry() {
  registerConstantOps(*this);
  registerConvOps(*this);
  registerElementwiseOps(*this);
  registerShapeOps(*this);
  registerReductionOps(*this);
  registerQuantOps(*this);
  registerImageOps(*this);
  registerDetectionOps(*this);
  registerRecurrentOps(*this);
}

const OpRegistry &OpRegistry::instance() {
  static const OpRegistry R;
  return R;
}

const OpDef *OpRegistry::lookup(llvm::StringRef Name) const {
  auto It = Ops.find(Name);
  return It == Ops.end() ? nullptr : It->second.get();
}

const OpDef &OpRegistry::get(llvm::StringRef Name) const {
  const OpDef *D = lookup(Name);
  assert(D && "unknown op name in kiln's own code");
  return *D;
}

std::vector<const OpDef *> OpRegistry::all() const {
  std::vector<const OpDef *> R;
  for (const auto &KV : Ops)
    R.push_back(KV.second.get());
  return R;
}

void OpRegistry::add(OpDef Def) {
  assert(!Ops.count(Def.Name) && "op registered twice");
  std::string Name = Def.Name;
  Ops.emplace(std::move(Name), std::make_unique<OpDef>(std::move(Def)));
}

llvm::Error checkSchema(const Node &N) {
  const OpDef &D = N.def();
  unsigned NumOps = N.numOperands();
  if (NumOps < D.minOperands() || NumOps > D.maxOperands()) {
    std::string Expected =
        D.maxOperands() == UINT_MAX
            ? "at least " + std::to_string(D.minOperands())
        : D.minOperands() == D.maxOperands()
            ? std::to_string(D.minOperands())
            : std::to_string(D.minOperands()) + " to " +
                  std::to_string(D.maxOperands());
    return inputError("takes {0} operand(s), got {1}", Expected, NumOps);
  }
  for (unsigned I = 0; I < NumOps; ++I) {
    const OperandSpec &Spec =
        I < D.Operands.size() ? D.Operands[I] : D.Operands.back();
    if (!N.operand(I) && !Spec.Optional)
      return inputError("operand {0} ('{1}') is required but absent", I,
                        Spec.Name);
  }
  if (N.numResults() < D.MinResults || N.numResults() > D.MaxResults)
    return inputError("has {0} result(s), expected {1}{2}", N.numResults(),
                      D.MinResults,
                      D.MaxResults == D.MinResults
                          ? std::string()
                          : " to " + (D.MaxResults == UINT_MAX
                                          ? std::string("any")
                                          : std::to_string(D.MaxResults)));
  for (const auto &KV : N.attrs()) {
    const AttrSpec *Spec = D.findAttr(KV.first);
    if (!Spec)
      return inputError("has no attribute '{0}'", KV.first);
    if (kindOf(KV.second) != Spec->Kind)
      return inputError("attribute '{0}' must be {1}, got {2}", KV.first,
                        attrKindName(Spec->Kind), attrKindName(kindOf(KV.second)));
  }
  for (const AttrSpec &Spec : D.Attrs)
    if (!Spec.Default && !N.hasAttr(Spec.Name))
      return inputError("required attribute '{0}' is missing", Spec.Name);
  return llvm::Error::success();
}

llvm::Expected<std::vector<TensorType>> inferTypes(const Node &N) {
  const OpDef &D = N.def();
  if (D.Verify)
    if (llvm::Error E = D.Verify(N))
      return E;
  if (!D.Infer)
    return internalError("op '{0}' has no type inference", D.Name);
  llvm::Expected<std::vector<TensorType>> Types = D.Infer(N);
  if (!Types)
    return Types.takeError();
  if (Types->size() != N.numResults())
    return internalError("inference for '{0}' gave {1} types for {2} results",
                         D.Name, Types->size(), N.numResults());
  return Types;
}

llvm::Error reinferTypes(Graph &G, bool DimsOnly) {
  for (Node &N : G.nodes()) {
    auto Types = inferTypes(N);
    if (!Types)
      return addContext(Types.takeError(), "node '" + N.displayName() + "' (" +
                                               N.opName().str() + ")");
    for (unsigned I = 0; I < N.numResults(); ++I) {
      TensorType T = DimsOnly ? N.result(I)->type() : (*Types)[I];
      T.Dims = (*Types)[I].Dims;
      N.result(I)->setType(std::move(T));
    }
  }
  return llvm::Error::success();
}

llvm::Expected<Node *> createInferred(Graph &G, llvm::StringRef Name,
                                      llvm::ArrayRef<Value *> Operands,
                                      AttrMap Attrs, unsigned NumResults,
                                      Node *Before) {
  const OpDef *D = OpRegistry::instance().lookup(Name);
  if (!D)
    return inputError("unknown op '{0}'", Name);
  std::vector<TensorType> Placeholder(NumResults);
  Node *N = G.createNode(*D, Operands, Placeholder, std::move(Attrs), Before);
  llvm::Error E = checkSchema(*N);
  if (!E) {
    auto Types = inferTypes(*N);
    if (Types) {
      for (unsigned I = 0; I < NumResults; ++I)
        N->result(I)->setType((*Types)[I]);
      return N;
    }
    E = Types.takeError();
  }
  G.erase(N);
  return addContext(std::move(E), "op '" + Name.str() + "'");
}

} // namespace kiln

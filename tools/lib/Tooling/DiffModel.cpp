// Loading and running either side of `kiln diff`.
#include "Tooling/DiffModel.h"

#include "Driver/ModelLoader.h"

#include "Interpreter/Interpreter.h"
#include "passes/quant/ImportedQDQ.h"
#include "Support/Error.h"

#include "llvm/ADT/StringExtras.h"

namespace kiln {

namespace {

bool isLayoutOnly(fb::OpKind K) {
  return K == fb::OpKind::TRANSPOSE || K == fb::OpKind::RESHAPE;
}

/// Operators lowered from one IR node share its name and sources and are
/// adjacent; each group becomes one DiffNode named after its main (not a
/// layout-only) operator.
std::vector<DiffNode> groupOperators(const KilnFileStats &S) {
  std::vector<DiffNode> Nodes;
  bool LastLayoutOnly = false;
  for (const KilnOperatorStats &O : S.Operators) {
    const fb::OperatorT &Op = *O.Op;
    std::string Kind = llvm::StringRef(O.Kind).lower();
    if (!Nodes.empty() && Nodes.back().Name == Op.name &&
        Nodes.back().Sources == Op.sources) {
      if (LastLayoutOnly && !isLayoutOnly(Op.kind)) {
        Nodes.back().Op = Kind;
        LastLayoutOnly = false;
      }
      continue;
    }
    Nodes.push_back({Kind, Op.name, Op.sources, nullptr});
    LastLayoutOnly = isLayoutOnly(Op.kind);
  }
  return Nodes;
}

} // namespace

llvm::Expected<DiffModel> DiffModel::load(llvm::StringRef Path,
                                          const InputShapeMap &Shapes) {
  DiffModel M;
  M.Path = Path.str();
  if (Path.endswith_insensitive(".kiln")) {
    auto Stats = readKilnFileStats(Path);
    if (!Stats)
      return Stats.takeError();
    auto C = CompiledModel::load(Path);
    if (!C)
      return C.takeError();
    M.Compiled.emplace(std::move(*C));
    M.Nodes = groupOperators(*Stats);
    for (const KilnOperatorStats &O : Stats->Operators) {
      ++M.Ops[llvm::StringRef(O.Kind).lower()];
      M.Operators.push_back(
          {O.Op->name, llvm::StringRef(O.Kind).lower(), O.Op->sources});
    }
    M.Inputs = M.Compiled->inputs();
    for (const CompiledIo &Out : M.Compiled->outputs())
      M.OutputNames.push_back(Out.Name);
    return M;
  }
  ModelLoadOptions LO;
  LO.InputShapes = Shapes;
  auto G = loadModel(Path, LO);
  if (!G)
    return G.takeError();
  M.G = std::move(*G);
  for (const Node &N : M.G->nodes()) {
    if (N.isOp("const"))
      continue;
    M.Nodes.push_back({N.opName().str(), N.displayName(), N.sources(), &N});
    ++M.Ops[N.opName().str()];
  }
  for (const Value *In : M.G->inputs())
    M.Inputs.push_back({In->name(), In->type()});
  for (const Value *Out : M.G->outputs())
    M.OutputNames.push_back(Out->name());
  return M;
}

std::vector<std::vector<std::string>> DiffModel::operatorSources() const {
  std::vector<std::vector<std::string>> Sources;
  for (const CompiledOperator &C : Operators)
    Sources.push_back(C.Sources);
  return Sources;
}

llvm::Expected<std::vector<Tensor>> DiffModel::run(llvm::ArrayRef<Tensor> In,
                                                   LayerObserver Observe,
                                                   LayerSubstitute Substitute) {
  if (Substitute && !Compiled)
    return usageError("{0}: only a .kiln file's layers can run on another "
                      "model's values",
                      Path);
  if (Compiled) {
    if (In.size() != Inputs.size())
      return inputError("{0}: takes {1} inputs, given {2}", Path, Inputs.size(),
                        In.size());
    // A batch-polymorphic file's open dims take any size.
    auto Fits = [&](size_t I) {
      if (!Inputs[I].Type.isStatic())
        return isCompatible(Inputs[I].Type, In[I].type());
      return In[I].numElements() ==
             numElements(Inputs[I].Type.Dims).getValueOr(-1);
    };
    for (size_t I = 0; I < In.size(); ++I)
      if (In[I].type().Elem != Inputs[I].Type.Elem || !Fits(I))
        return inputError("{0}: input '{1}' is {2}, given {3}", Path,
                          Inputs[I].Name, toString(Inputs[I].Type),
                          toString(In[I].type()));
    if (!SessionCreated) {
      CompiledModel::SessionSettings S = Settings;
      S.KeepIntermediates = Observe || Substitute;
      for (const Tensor &T : In)
        S.InputShapes.push_back(staticSizes(T.type().Dims));
      if (llvm::Error E = Compiled->createSession(S))
        return E;
      SessionCreated = true;
    }
    // Layout-only and quantize/dequantize operators carry the sources of
    // the layer they serve; the caller keeps, per source, the last value
    // whose size matches.
    auto Visit = [&](size_t Op) {
      const CompiledOperator &C = Operators[Op];
      if (C.Sources.empty() && !Substitute)
        return; // nothing to match it with but its tensor's name
      std::optional<CompiledModel::OperatorOutput> V =
          Compiled->operatorOutput(Op);
      if (!V) {
        Unread.push_back(C.Name);
        return;
      }
      LayerValue L{C.Sources, C.Name,  C.Kind,    Op,
                   V->Value,  V->Name, nullptr, V->Quantum};
      if (Observe)
        Observe(L);
      if (const Tensor *R = Substitute ? Substitute(L) : nullptr)
        switch (Compiled->setOperatorOutput(Op, *R)) {
        case CompiledModel::SetOutcome::Set: ++Substituted; break;
        case CompiledModel::SetOutcome::GraphOutput: break;
        case CompiledModel::SetOutcome::Refused:
          Unsubstituted.push_back(C.Name);
          break;
        }
    };
    Unread.clear();
    Unsubstituted.clear();
    Substituted = 0;
    if (!Substitute) {
      auto Out = Compiled->run(In);
      if (!Out || !Observe)
        return Out;
      for (size_t Op = 0; Op < Operators.size(); ++Op)
        Visit(Op);
      return Out;
    }
    if (llvm::Error E = Compiled->setInputs(In))
      return E;
    for (size_t Op = 0; Op < Operators.size(); ++Op) {
      if (llvm::Error E = Compiled->runOperators(Op, 1))
        return E;
      Visit(Op);
    }
    return Compiled->outputValues();
  }
  InterpreterOptions O;
  size_t Order = 0;
  if (Observe)
    O.Observer = [&](const Node &N, llvm::ArrayRef<Tensor> R) {
      if (R.empty())
        return;
      std::string Name = N.displayName(), Op = N.opName().str();
      // A quantize the model arrived with declares its parameters in its
      // operands only: its levels read in real units through them.
      TensorType Declared = N.result(0)->type();
      if (N.isOp("quantize") && !Declared.Quant)
        if (auto P = qdqParams(N))
          Declared.Quant = *P;
      Observe({N.sources(), Name, Op, Order++, R[0], N.result(0)->name(),
               &Declared, std::nullopt});
    };
  Interpreter I(*G, O);
  return I.run(In);
}

} // namespace kiln

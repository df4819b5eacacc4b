// Loading and running either side of `kiln diff`.
#include "Tooling/DiffModel.h"

#include "Driver/ModelLoader.h"

#include "Interpreter/Interpreter.h"
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

llvm::Expected<std::vector<Tensor>> DiffModel::run(llvm::ArrayRef<Tensor> In,
                                                   LayerObserver Observe) {
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
      S.Threads = 0;
      S.KeepIntermediates = bool(Observe);
      for (const Tensor &T : In)
        S.InputShapes.push_back(staticSizes(T.type().Dims));
      if (llvm::Error E = Compiled->createSession(S))
        return E;
      SessionCreated = true;
    }
    auto Out = Compiled->run(In);
    if (!Out || !Observe)
      return Out;
    // Layout-only and quantize/dequantize operators carry the sources of
    // the layer they serve; the caller keeps, per source, the last value
    // whose size matches.
    Unread.clear();
    for (size_t Op = 0; Op < Operators.size(); ++Op) {
      const CompiledOperator &C = Operators[Op];
      if (C.Sources.empty())
        continue;
      if (std::optional<Tensor> V = Compiled->operatorOutput(Op))
        Observe({C.Sources, C.Name, C.Kind, Op, *V});
      else
        Unread.push_back(C.Name);
    }
    return Out;
  }
  InterpreterOptions O;
  size_t Order = 0;
  if (Observe)
    O.Observer = [&](const Node &N, llvm::ArrayRef<Tensor> R) {
      if (R.empty())
        return;
      std::string Name = N.displayName(), Op = N.opName().str();
      Observe({N.sources(), Name, Op, Order++, R[0]});
    };
  Interpreter I(*G, O);
  return I.run(In);
}

} // namespace kiln

// lowerToKilnOps: check every node against the capability table
// (checkKilnOpsGraph lists all unsupported nodes at once), then lower the nodes
// in order, then bind the graph's inputs and outputs in the source layout.
#include "backends/common/SymbolicModule.h"
#include "backends/kilnops/KilnOpRules.h"
#include "backends/kilnops/KilnOps.h"
#include "backends/kilnops/QuantLowering.h"

#include "IR/ShapeInference.h"
#include "IR/SymbolBinding.h"
#include "passes/PassManager.h"
#include "Support/Error.h"

#include <algorithm>

namespace kiln {

llvm::Error checkKilnOpsGraph(const Graph &G) {
  std::string Problems;
  unsigned Count = 0;
  for (const Value *In : G.inputs())
    if (!In->type().isStatic()) {
      Problems += llvm::formatv("\n  input '{0}' has the dynamic type {1}; "
                                "fix it with --input-shape",
                                In->name(), toString(In->type()));
      ++Count;
    }
  for (const Node &N : G.nodes()) {
    if (isNarrowingNode(N))
      continue; // a narrow weight, read by its users
    KilnOpSupport S = checkKilnOpSupport(N);
    if (S.Supported)
      continue;
    Problems += llvm::formatv("\n  node '{0}' ({1}): {2}", N.displayName(),
                              N.opName(), S.Reason);
    ++Count;
  }
  if (!Count)
    return llvm::Error::success();
  return unsupportedError("the CPU target cannot run {0} part(s) of this model:{1}",
                    Count, Problems);
}

namespace {

llvm::Expected<KilnOpsResult> compileStaticGraph(const Graph &G,
                                                  const LoweringOptions &Opts) {
  if (llvm::Error E = checkKilnOpsGraph(G))
    return E;
  KilnOpsResult R;
  LoweringContext Ctx(R.Module, Opts);
  for (const Value *In : G.inputs()) {
    std::vector<int64_t> Sizes = staticSizes(In->type().Dims);
    // An image input is laid out as the frame is.
    int32_t T = Ctx.addTensor(In->name(), In->type().Elem, Sizes,
                              imageInputReader(In)
                                  ? fb::Layout::NHWC
                                  : canonicalLayout(Sizes.size()));
    // An int8 input (a partition's boundary) keeps its parameters.
    if (In->type().Quant)
      setQuantParams(Ctx, T, *In->type().Quant);
    Ctx.define(In, T, false);
    R.Module.Model.inputs.push_back(T);
  }
  for (const Node &N : G.nodes()) {
    if (N.isOp("const") || isNarrowingNode(N))
      continue;
    Ctx.beginNode(N);
    bool Int8Move = isInt8Move(N) && isInt8Pattern(N, Opts);
    if (llvm::Error E = Int8Move ? lowerInt8Move(N, Ctx)
                                 : findCpuRule(N.opName())->Lower(N, Ctx))
      return addContext(std::move(E), "node '" + N.displayName() + "' (" +
                                          N.opName().str() + ")");
    KilnOpsNodeReport Report{N.displayName(), N.opName().str(), {}, false};
    Report.Int8 = isInt8Pattern(N, Opts) || fusedInputQuantize(N);
    for (const EmittedOp &Op : Ctx.emittedForCurrentNode())
      Report.Ops.push_back({Op.Kind, Op.Engine});
    R.Nodes.push_back(std::move(Report));
  }
  for (const Node &N : G.nodes())
    for (unsigned I = 0; I < N.numResults(); ++I)
      if (int32_t T = Ctx.placement(N.result(I)); T >= 0 && !N.isOp("const"))
        R.ValueTensors[N.result(I)] = T;
  // Outputs in the source layout; a transpose this needs is reported as the
  // graph outputs' own.
  Ctx.beginNode("(graph outputs)");
  for (const Value *Out : G.outputs()) {
    int32_t T = Ctx.canonical(Out);
    // The caller binds outputs by the model's names, not "y.nchw".
    if (!Out->name().empty())
      R.Module.Model.tensors[size_t(T)]->name = Out->name();
    R.Module.Model.outputs.push_back(T);
  }
  if (!Ctx.emittedForCurrentNode().empty()) {
    KilnOpsNodeReport Report{"(graph outputs)", "layout", {}, false};
    for (const EmittedOp &Op : Ctx.emittedForCurrentNode())
      Report.Ops.push_back({Op.Kind, Op.Engine});
    R.Nodes.push_back(std::move(Report));
  }

  auto MD = std::make_unique<fb::MetadataT>();
  MD->target = "cpu";
  for (size_t I = 0; I < R.Module.Model.inputs.size(); ++I) {
    MD->inputs.push_back(tensorInfoOf(Ctx.tensor(R.Module.Model.inputs[I])));
    MD->inputs.back()->image = imageInputInfo(G.input(unsigned(I)));
  }
  for (int32_t T : R.Module.Model.outputs)
    MD->outputs.push_back(tensorInfoOf(Ctx.tensor(T)));
  R.Module.Model.metadata = std::move(MD);
  R.Module.Model.target = fb::Target::CPU;
  R.Module.Model.payload.Set(fb::CpuPayloadT());
  return R;
}

/// Replaces each reshape target that shape arithmetic on static dims
/// computes with its constant (one unknown entry is a -1).
void foldReshapeTargets(Graph &G) {
  for (Node &N : G.nodes()) {
    if (!N.isOp("reshape") || constantInts(N.operand(1)))
      continue;
    auto Dims = shapeValueDims(N.operand(1));
    if (!Dims)
      continue;
    std::vector<int64_t> Target;
    for (const Dim &D : *Dims)
      Target.push_back(D.isStatic() ? D.size() : -1);
    if (std::count(Target.begin(), Target.end(), -1) > 1)
      continue;
    Value *C = G.createConstant(
        Tensor::fromValues<int64_t>(ElementType::I64,
                                    {Dim(int64_t(Target.size()))}, Target),
        N.operand(1)->name() + ".folded", &N);
    N.setOperand(1, C);
  }
}

/// A graph with symbolic dims: two lowerings at different sizes, merged
/// into one module for any size (SymbolicModule.h). The first lowering's
/// copy of the graph stays alive with the result (its constants back the
/// module's segments).
llvm::Expected<KilnOpsResult>
compileSymbolicGraph(const Graph &G, const std::vector<std::string> &Symbols,
                     const LoweringOptions &Opts) {
  std::vector<int64_t> SizesA, SizesB;
  if (llvm::Error E = probeSizes(Symbols.size(), SizesA, SizesB))
    return E;
  auto Lower = [&](llvm::ArrayRef<int64_t> Sizes,
                   llvm::DenseMap<const Value *, Value *> &Map,
                   std::shared_ptr<Graph> &Copy)
      -> llvm::Expected<KilnOpsResult> {
    Copy = cloneGraph(G, &Map);
    std::map<std::string, int64_t> Bound;
    for (size_t K = 0; K < Symbols.size(); ++K)
      Bound[Symbols[K]] = Sizes[K];
    if (llvm::Error E = bindSymbols(*Copy, Bound))
      return E;
    // A reshape target computed from the bound sizes (x.view(x.size(0), -1)
    // exports Shape, Gather, Unsqueeze, Concat) becomes a constant here;
    // whether the result works for every size is what generalizeModule
    // checks. Only these targets fold: the int8 weights' dequantize nodes
    // must stay for the int8 lowering.
    foldReshapeTargets(*Copy);
    PassManager Fold;
    if (llvm::Error E = Fold.add("dce"))
      return E;
    if (llvm::Error E = Fold.run(*Copy))
      return E;
    if (llvm::Error E = bindSymbols(*Copy, Bound)) // types after the folds
      return E;
    return compileStaticGraph(*Copy, Opts);
  };
  llvm::DenseMap<const Value *, Value *> MapA, MapB;
  std::shared_ptr<Graph> CopyA, CopyB;
  auto A = Lower(SizesA, MapA, CopyA);
  if (!A)
    return A.takeError();
  auto B = Lower(SizesB, MapB, CopyB);
  if (!B)
    return B.takeError();
  if (llvm::Error E =
          generalizeModule(A->Module, B->Module, Symbols, SizesA, SizesB)) {
    // The node where shape inference lost a symbol says it in the model's
    // own terms, where there is one.
    if (llvm::Error Lost = checkSymbolsCarried(G)) {
      llvm::consumeError(std::move(E));
      return Lost;
    }
    return E;
  }
  // Report values by the caller's graph, not the copy.
  llvm::DenseMap<const Value *, int32_t> ByOriginal;
  for (const auto &KV : MapA)
    if (auto It = A->ValueTensors.find(KV.second); It != A->ValueTensors.end())
      ByOriginal[KV.first] = It->second;
  A->ValueTensors = std::move(ByOriginal);
  A->KeepAlive = CopyA;
  return A;
}

} // namespace

llvm::Expected<KilnOpsResult> lowerToKilnOps(const Graph &G,
                                             const LoweringOptions &Opts) {
  std::vector<std::string> Symbols = graphSymbols(G);
  if (Symbols.empty())
    return compileStaticGraph(G, Opts);
  return compileSymbolicGraph(G, Symbols, Opts);
}

} // namespace kiln

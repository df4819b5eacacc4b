#include "Driver/CompileGraph.h"
#include "Driver/ModelLoader.h"
#include "Driver/PassRecord.h"

#include "IR/Verifier.h"
#include "Support/Error.h"
#include "Support/Logging.h"

namespace kiln {

namespace {

const Target &targetOrCpu(const CompileGraphOptions &O) {
  return O.ForTarget ? *O.ForTarget : *findTarget("cpu");
}

} // namespace

std::map<std::string, std::string>
pipelineTargetOptions(const CompileGraphOptions &O) {
  std::map<std::string, std::string> Options = O.TargetOptions;
  Options.emplace("quantize", O.Quantize.Mode);
  return Options;
}

OpHistogram opHistogram(const Graph &G) {
  OpHistogram H;
  for (const Node &N : G.nodes())
    if (!N.isOp("const"))
      ++H[N.opName().str()];
  return H;
}

std::vector<PassSummary> passSummaries(const PassManager &PM) {
  std::vector<PassSummary> Out;
  for (const PassRunRecord &R : PM.records())
    Out.push_back({R.Name, R.Changed, R.Stats.counts()});
  return Out;
}

llvm::Error checkCompileFlags(const CompileGraphOptions &O) {
  auto PM = buildPassManager(O.Pipeline, targetOrCpu(O), O.PassOptions,
                             pipelineTargetOptions(O));
  if (!PM)
    return PM.takeError();
  auto Q = makeQuantizeOptions(O.Quantize);
  if (!Q)
    return Q.takeError();
  auto L = makeLoadOptions(O.InputShapes);
  if (!L)
    return L.takeError();
  if (llvm::Error E = checkImageInputFlags(O.Image))
    return E;
  return checkDetectionFlags(O.Nms);
}

llvm::Expected<CompiledGraph> compileGraph(const CompileGraphOptions &O) {
  CompiledGraph C;
  auto PM = buildPassManager(O.Pipeline, targetOrCpu(O), O.PassOptions,
                             pipelineTargetOptions(O));
  if (!PM)
    return PM.takeError();
  C.Pipeline = std::move(*PM);
  C.QuantizePasses = std::make_unique<PassManager>(O.PassOptions);
  auto QuantOpts = makeQuantizeOptions(O.Quantize);
  if (!QuantOpts)
    return QuantOpts.takeError();
  C.Quantize = std::move(*QuantOpts);
  C.Quantize.Passes = C.QuantizePasses.get();
  auto LoadOpts = makeLoadOptions(O.InputShapes);
  if (!LoadOpts)
    return LoadOpts.takeError();

  llvm::Optional<PassRecord> Record;
  if (!O.PassRecordPath.empty()) {
    auto R = readPassRecord(O.PassRecordPath);
    if (!R)
      return R.takeError();
    std::vector<std::string> Want = C.Pipeline->pipeline();
    auto Rest = checkPassRecord(*R, O.PassRecordPath, O, Want);
    if (!Rest)
      return Rest.takeError();
    Record = std::move(*R);
    nameAsVariants(Record->Passes, targetOrCpu(O), pipelineTargetOptions(O));
    // What is left under another name changed the graph where this
    // pipeline's variant would have kept something (a recurrent layer the
    // CPU's float files keep whole): the file has what the record made.
    for (size_t I = 0; I < Record->Passes.size(); ++I)
      if (Record->Passes[I].Name != Want[I])
        log().warn("{0}: {1} ran where this conversion runs {2}, and changed "
                   "the graph: the file keeps what it made (convert the "
                   "model itself to run {2})",
                   O.PassRecordPath, Record->Passes[I].Name, Want[I]);
    // Only the passes the record has not run.
    C.Pipeline = std::make_unique<PassManager>(O.PassOptions);
    for (const std::string &Name : *Rest)
      if (llvm::Error E = C.Pipeline->add(Name))
        return E;
  }

  auto G = loadModel(O.Input, *LoadOpts);
  if (!G)
    return G.takeError();
  C.G = std::move(*G);
  // With a record, the pipeline (or its first part) ran when the .kir was
  // written: what ran then stands for it, and the rest runs now.
  C.OpsBefore = Record ? Record->OpsBefore : opHistogram(*C.G);
  if (llvm::Error E = C.Pipeline->run(*C.G))
    return addContext(std::move(E), O.Input);
  C.PipelineLabel = O.Pipeline.label();
  if (Record)
    C.PipelineRun = Record->Passes;
  for (PassSummary &S : passSummaries(*C.Pipeline))
    C.PipelineRun.push_back(std::move(S));
  // Quantization comes after every pass, fusion included (conv+relu
  // quantizes as one op), and before lowering, which turns QDQ patterns
  // into int8 operators.
  if (llvm::Error E = quantizeGraph(*C.G, C.Quantize, C.QuantizeResult))
    return addContext(std::move(E), O.Input);
  if (llvm::Error E = applyImageInputFlags(O.Image, *C.G, *C.QuantizePasses))
    return addContext(std::move(E), O.Input);
  if (llvm::Error E = applyDetectionFlags(O.Nms, *C.G))
    return addContext(std::move(E), O.Input);
  if (llvm::Error E = verifyGraph(*C.G))
    return internalError("{0}: the optimized graph does not verify:\n{1}",
                         O.Input, toString(std::move(E)));
  C.OpsAfter = opHistogram(*C.G);
  if (O.StripProvenance)
    for (Node &N : C.G->nodes())
      N.setSources({});
  return C;
}

} // namespace kiln

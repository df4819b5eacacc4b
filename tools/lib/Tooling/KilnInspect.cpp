// The .kiln reports of `kiln inspect`.
#include "Tooling/KilnInspect.h"
#include "backends/Target.h"

#include "Support/Error.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <set>

namespace kiln {

std::string humanCount(int64_t N) {
  if (N >= 1000000000)
    return llvm::formatv("{0:f2} G", double(N) / 1e9).str();
  if (N >= 1000000)
    return llvm::formatv("{0:f2} M", double(N) / 1e6).str();
  if (N >= 1000)
    return llvm::formatv("{0:f1} K", double(N) / 1e3).str();
  return std::to_string(N);
}

std::string humanBytes(int64_t N) {
  if (N >= (int64_t(1) << 20))
    return llvm::formatv("{0:f2} MiB", double(N) / double(1 << 20)).str();
  if (N >= 1024)
    return llvm::formatv("{0:f1} KiB", double(N) / 1024.0).str();
  return std::to_string(N) + " B";
}

namespace {

/// Weights stored in a kernel library's blocked layout (--prepack native):
/// how many, and the CPUs they were chosen for.
std::pair<int64_t, std::string> blockedWeights(const fb::ModelT &M) {
  int64_t N = 0;
  std::set<std::string> Isas;
  for (const auto &T : M.tensors)
    if (T->blocked) {
      ++N;
      Isas.insert(T->blocked->library + " " + T->blocked->isa);
    }
  return {N, llvm::join(Isas, ", ")};
}

/// Constants stored in a target's kernel order (PACKED, schema 1.5): the
/// payload describes their bytes; inspect only counts them.
int64_t packedWeights(const fb::ModelT &M) {
  int64_t N = 0;
  for (const auto &T : M.tensors)
    if (T->buffer >= 0 && T->layout == fb::Layout::PACKED)
      ++N;
  return N;
}

std::string weightLayouts(const fb::ModelT &M) {
  auto [Blocked, BlockedFor] = blockedWeights(M);
  int64_t Packed = packedWeights(M);
  std::string R;
  if (Blocked)
    R = std::to_string(Blocked) + " tensors blocked for " + BlockedFor;
  if (Packed)
    R += (R.empty() ? "" : "; ") + std::to_string(Packed) +
         " tensors packed for the " + llvm::StringRef(fb::EnumNameTarget(M.target)).lower() +
         " kernels";
  return R.empty() ? "portable" : R;
}

const fb::MetadataT &metadataOf(const KilnFileStats &S) {
  static const fb::MetadataT Empty;
  return S.Model.metadata ? *S.Model.metadata : Empty;
}

std::string escape(llvm::StringRef S) {
  std::string R;
  for (char C : S) {
    if (C == '"' || C == '\\')
      R += '\\';
    R += C;
  }
  return R;
}

std::string outputType(const KilnFileStats &S, const KilnOperatorStats &O) {
  const fb::OperatorT &Op = *O.Op;
  const fb::ModelT &M = S.modelOf(O);
  if (Op.outputs.empty())
    return "";
  return describeKilnTensor(*M.tensors[size_t(Op.outputs[0])], M.symbols);
}

std::string engineCounts(const std::map<std::string, int64_t> &E) {
  std::string R;
  for (const auto &[Engine, N] : E)
    R += (R.empty() ? "" : ", ") + std::to_string(N) + " " + Engine;
  return R;
}

/// The inspector of the target M is compiled for (its entry in
/// backends/Targets.def), or null.
const TargetInspector *inspectorOf(const fb::ModelT &M) {
  const Target *T = findTargetOfFile(int(M.target));
  return T ? &T->Inspect : nullptr;
}

/// The target the file is compiled for (schema 1.4's Model.target), lower
/// case as `--target` spells it; files before 1.4 name none and are CPU
/// files.
std::string fileTarget(const fb::ModelT &M) {
  if (M.target == fb::Target::UNKNOWN)
    return "cpu (implied: the file is from before schema 1.4)";
  return llvm::StringRef(fb::EnumNameTarget(M.target)).lower();
}

std::string joinValues(const std::vector<float> &V) {
  std::string R;
  for (float X : V)
    R += (R.empty() ? "" : ",") + llvm::formatv("{0}", llvm::format("%g", X)).str();
  return R;
}

/// " image rgb8, 3 channels (rgb), mean .., std .." for graph input I when
/// it is an image input (schema 1.10), else "".
std::string imageSuffix(const fb::MetadataT &MD, size_t I) {
  if (I >= MD.inputs.size() || !MD.inputs[I]->image)
    return "";
  const fb::ImageInputInfoT &Img = *MD.inputs[I]->image;
  return llvm::formatv(" image {0}, {1} channel{2} ({3}), mean {4}, std {5}",
                       llvm::StringRef(fb::EnumNamePixelFormat(Img.format)).lower(),
                       Img.channels, Img.channels == 1 ? "" : "s",
                       Img.channel_bgr ? "bgr" : "rgb", joinValues(Img.mean),
                       joinValues(Img.std))
      .str();
}

/// The outer tensor T's name in a partitioned file.
std::string outerName(const fb::ModelT &M, int32_t T) {
  return T >= 0 && size_t(T) < M.tensors.size() ? M.tensors[size_t(T)]->name
                                                 : "?";
}

std::string targetLower(fb::Target T) {
  return llvm::StringRef(fb::EnumNameTarget(T)).lower();
}

/// A partitioned file's placement: each part in schedule order, with its
/// boundaries, operators, estimate and the reason a CPU part is there.
std::string partitionsText(const KilnFileStats &S, bool Nodes) {
  const fb::PartitionedPayloadT *P = S.Model.payload.AsPartitionedPayload();
  if (!P)
    return "";
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << "partitions: " << P->partitions.size() << " (--target "
     << targetLower(P->device) << " --fallback cpu), in run order\n";
  for (int32_t I : P->schedule) {
    const fb::PartitionT &Part = *P->partitions[size_t(I)];
    const KilnFileStats &PS = S.Parts[size_t(I)];
    std::vector<std::string> In, Outs;
    for (int32_t T : Part.inputs)
      In.push_back(outerName(S.Model, T));
    for (int32_t T : Part.outputs)
      Outs.push_back(outerName(S.Model, T));
    OS << llvm::formatv("  {0} {1}: {2} operators from {3} nodes, {4} bytes, "
                        "est. {5} us ({6} us transfers)\n",
                        I, targetLower(Part.target), PS.Model.operators.size(),
                        Part.nodes.size(), PS.Size.FileBytes,
                        llvm::format("%.0f", Part.estimated_us),
                        llvm::format("%.0f", Part.transfer_us));
    OS << "    reads:  " << llvm::join(In, ", ") << "\n"
       << "    writes: " << llvm::join(Outs, ", ") << "\n";
    if (!Part.reason.empty())
      OS << "    on the cpu: " << Part.reason << "\n";
    if (Nodes)
      OS << "    nodes:  " << llvm::join(Part.nodes, ", ") << "\n";
  }
  return OS.str();
}

llvm::json::Array partitionsJson(const KilnFileStats &S, bool Nodes);

/// The bytes of buffer Index (0 when it is out of range).
uint64_t bufferBytes(const fb::ModelT &M, int32_t Index) {
  return Index >= 0 && size_t(Index) < M.buffers.size()
             ? M.buffers[size_t(Index)]->size
             : 0;
}

/// The file's self-test (kiln convert --self-test): its samples and, per
/// output, how many reference values, the tolerance and the peak.
std::string selfTestText(const fb::ModelT &M) {
  const fb::SelfTestT *T = M.self_test.get();
  if (!T)
    return "";
  uint64_t SampleBytes = 0;
  for (int32_t B : T->inputs)
    SampleBytes += bufferBytes(M, B);
  std::string Out = llvm::formatv("self-test: {0} sample(s), {1} bytes; "
                                  "references from {2}\n",
                                  T->inputs.size(), SampleBytes, T->reference);
  for (size_t I = 0; I < T->outputs.size() && I < M.outputs.size(); ++I) {
    const fb::SelfTestOutputT &O = *T->outputs[I];
    Out += llvm::formatv("  {0}: {1} values (every {2}), tolerance {3}, "
                         "peak {4}\n",
                         M.tensors[size_t(M.outputs[I])]->name,
                         bufferBytes(M, O.reference) / 4, O.stride,
                         llvm::format("%.3g", O.tolerance),
                         llvm::format("%.6g", O.peak));
  }
  return Out;
}

llvm::json::Value selfTestJson(const fb::ModelT &M) {
  const fb::SelfTestT *T = M.self_test.get();
  if (!T)
    return nullptr;
  llvm::json::Array Samples, Outputs;
  for (size_t I = 0; I < T->inputs.size() && I < M.inputs.size(); ++I)
    Samples.push_back(llvm::json::Object{
        {"input", M.tensors[size_t(M.inputs[I])]->name},
        {"bytes", int64_t(bufferBytes(M, T->inputs[I]))}});
  for (size_t I = 0; I < T->outputs.size() && I < M.outputs.size(); ++I) {
    const fb::SelfTestOutputT &O = *T->outputs[I];
    Outputs.push_back(llvm::json::Object{
        {"output", M.tensors[size_t(M.outputs[I])]->name},
        {"values", int64_t(bufferBytes(M, O.reference) / 4)},
        {"stride", int64_t(O.stride)},
        {"tolerance", O.tolerance},
        {"peak", O.peak}});
  }
  return llvm::json::Object{{"reference", T->reference},
                            {"samples", std::move(Samples)},
                            {"outputs", std::move(Outputs)}};
}

} // namespace

std::string kilnTextReport(const KilnFileStats &S, bool Nodes) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  const fb::ModelT &M = S.Model;
  const fb::MetadataT &MD = metadataOf(S);
  OS << "model: " << S.Path << " (.kiln schema " << M.schema_major << "."
     << M.schema_minor << ", target " << fileTarget(M) << ")\n";
  OS << "metadata:\n";
  OS << "  producer:      " << MD.producer << " " << MD.producer_version << "\n";
  OS << "  target:        " << MD.target << "\n";
  OS << "  pipeline:      " << MD.pipeline << "\n";
  OS << "  passes:        " << (MD.passes.empty() ? "none" : llvm::join(MD.passes, ", "))
     << "\n";
  OS << "  quantization:  " << fb::EnumNameQuantization(MD.quantization) << "\n";
  OS << "  source model:  " << MD.source_model << "\n";
  OS << "  source hash:   " << MD.source_hash << "\n";
  OS << "inputs:\n";
  for (size_t I = 0; I < M.inputs.size(); ++I) {
    const fb::TensorT &T = *M.tensors[size_t(M.inputs[I])];
    OS << "  " << T.name << ": " << describeKilnTensor(T, M.symbols)
       << imageSuffix(MD, I) << "\n";
  }
  OS << "outputs:\n";
  for (int32_t T : M.outputs)
    OS << "  " << M.tensors[size_t(T)]->name << ": "
       << describeKilnTensor(*M.tensors[size_t(T)], M.symbols) << "\n";
  OS << selfTestText(M);
  OS << "operators: " << S.Operators.size() << "\n";
  std::vector<std::pair<std::string, int64_t>> Hist;
  for (const auto &[Kind, E] : S.OpHistogram) {
    int64_t N = 0;
    for (const auto &KV : E)
      N += KV.second;
    Hist.push_back({Kind, N});
  }
  std::stable_sort(Hist.begin(), Hist.end(),
                   [](const auto &A, const auto &B) { return A.second > B.second; });
  for (const auto &[Kind, N] : Hist)
    OS << llvm::formatv("  {0,-24} {1,5}  ({2})\n", Kind, N,
                        engineCounts(S.OpHistogram.at(Kind)));
  OS << "parameters:\n";
  int64_t TotalP = 0, TotalB = 0;
  for (const auto &[Type, P] : S.ParamsByType) {
    OS << llvm::formatv("  {0,-6} {1,12} elements  {2,12}\n", Type,
                        humanCount(P.first), humanBytes(P.second));
    TotalP += P.first;
    TotalB += P.second;
  }
  OS << llvm::formatv("  {0,-6} {1,12} elements  {2,12}\n", "total",
                      humanCount(TotalP), humanBytes(TotalB));
  OS << "MACs: " << humanCount(S.TotalMacs) << " (" << S.TotalMacs << ")"
     << (M.symbols.empty() ? "" : " at " + llvm::join(M.symbols, "=1, ") + "=1")
     << "\n";
  const KilnSizeBreakdown &Z = S.Size;
  OS << "size: " << Z.FileBytes << " bytes (" << humanBytes(int64_t(Z.FileBytes))
     << ")\n";
  OS << llvm::formatv("  {0,-36} {1,10}\n", "flatbuffer (header, graph, metadata)",
                      Z.FlatBufferBytes);
  OS << llvm::formatv("  {0,-36} {1,10}\n",
                      "weight segments (" + std::to_string(Z.SegmentCount) + ")",
                      Z.SegmentBytes);
  OS << llvm::formatv("  {0,-36} {1,10}\n", "alignment padding (64 B)",
                      Z.PaddingBytes);
  OS << llvm::formatv("  {0,-36} {1,10}\n", "tail guard (zeros)", Z.TailBytes);
  OS << llvm::formatv("  {0,-36} {1,10}\n", "target blobs", Z.TargetBlobBytes);
  OS << "weight layouts: " << weightLayouts(S.Model) << "\n";
  if (Nodes) {
    OS << "operators:\n";
    OS << llvm::formatv("  {0,4} {1,-22} {2,-9} {3,-26} {4,12} {5,9}  {6}\n", "#",
                        "kind", "engine", "output", "MACs", "params",
                        "name [sources]");
    for (size_t I = 0; I < S.Operators.size(); ++I) {
      const KilnOperatorStats &O = S.Operators[I];
      OS << llvm::formatv("  {0,4} {1,-22} {2,-9} {3,-26} {4,12} {5,9}  {6}", I,
                          O.Kind, O.Engine, outputType(S, O), O.Macs,
                          O.Params, O.Op->name);
      if (!O.Op->sources.empty())
        OS << " [" << llvm::join(O.Op->sources, ",") << "]";
      OS << "\n";
    }
  }
  // The target's payload (a GPU file's kernels, dispatches and buffers,
  // an NNAPI file's model), as the target's inspector renders it.
  if (const TargetInspector *I = inspectorOf(M); I && I->Text)
    OS << I->Text(M, Nodes);
  OS << partitionsText(S, Nodes);
  return OS.str();
}

llvm::json::Value kilnJsonReport(const KilnFileStats &S, bool Nodes) {
  const fb::ModelT &M = S.Model;
  const fb::MetadataT &MD = metadataOf(S);
  auto Io = [&](int32_t Index) {
    const fb::TensorT &T = *M.tensors[size_t(Index)];
    llvm::json::Object O{{"name", T.name},
                         {"dtype", kilnDTypeName(T.dtype)},
                         {"shape", llvm::json::Array(T.shape)},
                         {"layout", fb::EnumNameLayout(T.layout)}};
    // Batch-polymorphic files: "shape" has -1 there; the symbol and factor.
    llvm::json::Array Symbolic;
    for (const auto &D : T.symbolic_dims)
      Symbolic.push_back(llvm::json::Object{
          {"axis", D->axis},
          {"symbol", D->symbol >= 0 && size_t(D->symbol) < M.symbols.size()
                         ? M.symbols[size_t(D->symbol)]
                         : std::string("?")},
          {"factor", D->factor}});
    if (!Symbolic.empty())
      O["symbolic_dims"] = std::move(Symbolic);
    return O;
  };
  llvm::json::Array Inputs, Outputs;
  for (size_t I = 0; I < M.inputs.size(); ++I) {
    llvm::json::Object In = Io(M.inputs[I]);
    if (I < MD.inputs.size() && MD.inputs[I]->image) {
      const fb::ImageInputInfoT &Img = *MD.inputs[I]->image;
      In["image"] = llvm::json::Object{
          {"format", llvm::StringRef(fb::EnumNamePixelFormat(Img.format)).lower()},
          {"channels", Img.channels},
          {"channel_order", Img.channel_bgr ? "bgr" : "rgb"},
          {"mean", llvm::json::Array(Img.mean)},
          {"std", llvm::json::Array(Img.std)}};
    }
    Inputs.push_back(std::move(In));
  }
  for (int32_t T : M.outputs)
    Outputs.push_back(Io(T));
  llvm::json::Object Ops, Params;
  for (const auto &[Kind, E] : S.OpHistogram) {
    llvm::json::Object Engines;
    for (const auto &[Engine, N] : E)
      Engines[Engine] = N;
    Ops[Kind] = std::move(Engines);
  }
  for (const auto &[Type, P] : S.ParamsByType)
    Params[Type] = llvm::json::Object{{"elements", P.first}, {"bytes", P.second}};
  llvm::json::Array Passes;
  for (const std::string &P : MD.passes)
    Passes.push_back(P);
  const KilnSizeBreakdown &Z = S.Size;
  llvm::json::Object R{
      {"model", S.Path},
      {"schema", std::to_string(M.schema_major) + "." +
                     std::to_string(M.schema_minor)},
      {"target", fileTarget(M)},
      {"payload", fb::EnumNameTargetPayload(M.payload.type)},
      {"metadata",
       llvm::json::Object{{"producer", MD.producer},
                          {"producer_version", MD.producer_version},
                          {"target", MD.target},
                          {"pipeline", MD.pipeline},
                          {"passes", std::move(Passes)},
                          {"quantization", fb::EnumNameQuantization(MD.quantization)},
                          {"source_model", MD.source_model},
                          {"source_hash", MD.source_hash}}},
      {"inputs", std::move(Inputs)},
      {"outputs", std::move(Outputs)},
      {"operators", int64_t(S.Operators.size())},
      {"ops", std::move(Ops)},
      {"parameters", std::move(Params)},
      {"macs", S.TotalMacs},
      {"size",
       llvm::json::Object{{"file", int64_t(Z.FileBytes)},
                          {"flatbuffer", int64_t(Z.FlatBufferBytes)},
                          {"segments", int64_t(Z.SegmentBytes)},
                          {"segment_count", int64_t(Z.SegmentCount)},
                          {"padding", int64_t(Z.PaddingBytes)},
                          {"tail", int64_t(Z.TailBytes)},
                          {"target_blobs", int64_t(Z.TargetBlobBytes)}}}};
  auto [Blocked, BlockedFor] = blockedWeights(M);
  R["blocked_weights"] =
      llvm::json::Object{{"tensors", Blocked}, {"for", BlockedFor}};
  R["packed_weights"] = packedWeights(M);
  R["self_test"] = selfTestJson(M);
  if (Nodes) {
    llvm::json::Array Arr;
    for (const KilnOperatorStats &O : S.Operators) {
      llvm::json::Array Src;
      for (const std::string &X : O.Op->sources)
        Src.push_back(X);
      Arr.push_back(llvm::json::Object{{"kind", O.Kind},
                                       {"engine", O.Engine},
                                       {"name", O.Op->name},
                                       {"output", outputType(S, O)},
                                       {"macs", O.Macs},
                                       {"params", O.Params},
                                       {"sources", std::move(Src)}});
    }
    R["nodes"] = std::move(Arr);
  }
  if (const Target *T = findTargetOfFile(int(M.target)); T && T->Inspect.Json)
    R[T->Name] = T->Inspect.Json(M);
  if (!S.Parts.empty())
    R["partitions"] = partitionsJson(S, Nodes);
  return R;
}

namespace {

llvm::json::Array partitionsJson(const KilnFileStats &S, bool Nodes) {
  const fb::PartitionedPayloadT *P = S.Model.payload.AsPartitionedPayload();
  llvm::json::Array Arr;
  for (int32_t I : P->schedule) {
    const fb::PartitionT &Part = *P->partitions[size_t(I)];
    llvm::json::Array In, Out, NodeNames;
    for (int32_t T : Part.inputs)
      In.push_back(outerName(S.Model, T));
    for (int32_t T : Part.outputs)
      Out.push_back(outerName(S.Model, T));
    for (const std::string &N : Part.nodes)
      NodeNames.push_back(N);
    Arr.push_back(llvm::json::Object{
        {"index", I},
        {"target", targetLower(Part.target)},
        {"nodes", int64_t(Part.nodes.size())},
        {"node_names", std::move(NodeNames)},
        {"inputs", std::move(In)},
        {"outputs", std::move(Out)},
        {"reason", Part.reason},
        {"estimated_us", double(Part.estimated_us)},
        {"transfer_us", double(Part.transfer_us)},
        {"file", kilnJsonReport(S.Parts[size_t(I)], Nodes)}});
  }
  return Arr;
}

} // namespace

std::vector<std::string> kilnKernelNames(const fb::ModelT &M) {
  const TargetInspector *I = inspectorOf(M);
  return I && I->KernelNames ? I->KernelNames(M) : std::vector<std::string>();
}

llvm::Expected<std::string> kilnKernelSource(const fb::ModelT &M,
                                             llvm::StringRef Path,
                                             llvm::StringRef Name) {
  std::vector<std::string> Names = kilnKernelNames(M);
  if (Names.empty()) {
    std::string TargetName =
        M.target == fb::Target::UNKNOWN
            ? std::string("cpu")
            : llvm::StringRef(fb::EnumNameTarget(M.target)).lower();
    return inputError("{0}: the file has no kernels (target {1})", Path,
                      TargetName);
  }
  const TargetInspector *I = inspectorOf(M);
  if (std::find(Names.begin(), Names.end(), Name) != Names.end() &&
      I->KernelSource) {
    auto Text = I->KernelSource(M, Name);
    if (!Text)
      return addContext(Text.takeError(), (Path + ": kernel " + Name).str());
    return Text;
  }
  return inputError("{0}: no kernel named '{1}'; the file's kernels: {2}", Path,
                    Name, llvm::join(Names, ", "));
}

std::string kilnToDot(const KilnFileStats &S) {
  const fb::ModelT &M = S.Model;
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << "digraph \"" << escape(metadataOf(S).source_model) << "\" {\n"
     << "  rankdir=TB;\n"
     << "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#eef3fb\", "
        "fontname=\"Helvetica\", fontsize=10];\n"
     << "  edge [fontname=\"Helvetica\", fontsize=8, color=\"#555555\"];\n";
  // Producers by (part, tensor index), part -1 for the file's own tensors;
  // a partitioned file's parts meet at the outer tensors their inputs and
  // outputs are bound to (PartitionedPayload).
  using Key = std::pair<int32_t, int32_t>;
  std::map<Key, std::string> Producer;
  std::vector<std::map<int32_t, int32_t>> PartIn(S.Parts.size()),
      PartOut(S.Parts.size());
  if (const fb::PartitionedPayloadT *P = M.payload.AsPartitionedPayload())
    for (size_t I = 0; I < P->partitions.size() && I < S.Parts.size(); ++I) {
      const fb::ModelT &Part = S.Parts[I].Model;
      const fb::PartitionT &Binding = *P->partitions[I];
      for (size_t K = 0; K < Part.inputs.size() && K < Binding.inputs.size(); ++K)
        PartIn[I][Part.inputs[K]] = Binding.inputs[K];
      for (size_t K = 0; K < Part.outputs.size() && K < Binding.outputs.size(); ++K)
        PartOut[I][Part.outputs[K]] = Binding.outputs[K];
    }
  auto keyOf = [&](int32_t Part, int32_t T) -> Key {
    if (Part >= 0)
      if (auto It = PartIn[size_t(Part)].find(T); It != PartIn[size_t(Part)].end())
        return {-1, It->second};
    return {Part, T};
  };
  for (size_t K = 0; K < M.inputs.size(); ++K) {
    const fb::TensorT &T = *M.tensors[size_t(M.inputs[K])];
    Producer[{-1, M.inputs[K]}] = "in" + std::to_string(K);
    OS << "  in" << K << " [shape=ellipse, fillcolor=\"#dff0d8\", label=\""
       << escape(T.name) << "\\n" << escape(describeKilnTensor(T)) << "\"];\n";
  }
  for (size_t I = 0; I < S.Operators.size(); ++I) {
    const fb::OperatorT &Op = *S.Operators[I].Op;
    std::string Id = "op" + std::to_string(I);
    std::string Label = escape(S.Operators[I].Kind) + " [" +
                        S.Operators[I].Engine + "]\\n" + escape(Op.name);
    // Layout operators share the provenance of the node they serve; only
    // the computing operator is drawn as the fusion.
    bool Fused = Op.sources.size() > 1 && Op.kind != fb::OpKind::TRANSPOSE &&
                 Op.kind != fb::OpKind::RESHAPE;
    if (Fused) {
      Label += "\\nabsorbed:";
      for (size_t K = 1; K < Op.sources.size(); ++K)
        Label += " " + escape(Op.sources[K]);
    }
    Label += "\\n" + escape(outputType(S, S.Operators[I]));
    OS << "  " << Id << " [label=\"" << Label << "\""
       << (Fused ? ", fillcolor=\"#fde9c8\"" : "") << "];\n";
    int32_t Part = S.Operators[I].Part;
    for (int32_t In : Op.inputs)
      if (In >= 0)
        if (auto It = Producer.find(keyOf(Part, In)); It != Producer.end())
          OS << "  " << It->second << " -> " << Id << ";\n";
    for (int32_t T : Op.outputs) {
      Producer[{Part, T}] = Id;
      if (Part >= 0)
        if (auto It = PartOut[size_t(Part)].find(T);
            It != PartOut[size_t(Part)].end())
          Producer[{-1, It->second}] = Id;
    }
  }
  for (size_t K = 0; K < M.outputs.size(); ++K) {
    const fb::TensorT &T = *M.tensors[size_t(M.outputs[K])];
    OS << "  out" << K << " [shape=ellipse, fillcolor=\"#f2dede\", label=\""
       << escape(T.name) << "\\n" << escape(describeKilnTensor(T)) << "\"];\n";
    if (auto It = Producer.find({-1, M.outputs[K]}); It != Producer.end())
      OS << "  " << It->second << " -> out" << K << ";\n";
  }
  OS << "}\n";
  return OS.str();
}

} // namespace kiln

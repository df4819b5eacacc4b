#include "Driver/PartitionedFile.h"

#include "Driver/PartGraph.h"
#include "Driver/PipelineFlags.h"
#include "Driver/PlacementCost.h"

#include "Support/Error.h"
#include "backends/TargetMetadata.h"
#include "backends/common/KilnModule.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"


namespace kiln {

namespace {

/// A tensor passed from one part to later ones.
struct Boundary {
  const Value *V = nullptr;
  size_t From = 0;
  std::vector<size_t> To;
  double Bytes = 0;
};

std::vector<Boundary> boundariesOf(const Placement &P) {
  std::vector<Boundary> B;
  llvm::DenseMap<const Value *, size_t> At;
  for (size_t I = 0; I < P.Parts.size(); ++I)
    for (const Value *V : P.Parts[I].Outputs)
      At[V] = I;
  std::map<std::pair<size_t, const Value *>, size_t> Index;
  for (size_t I = 0; I < P.Parts.size(); ++I)
    for (const Value *V : P.Parts[I].Inputs) {
      auto It = At.find(V);
      if (It == At.end())
        continue; // a graph input
      auto Key = std::make_pair(It->second, V);
      if (!Index.count(Key)) {
        Index[Key] = B.size();
        B.push_back({V, It->second, {}, valueBytes(*V)});
      }
      B[Index[Key]].To.push_back(I);
    }
  return B;
}

std::string us(double X) { return llvm::formatv("{0}", llvm::format("%.0f", X)); }

std::map<std::string, int64_t> opCounts(const PlacedPart &Part) {
  std::map<std::string, int64_t> C;
  for (const Node *N : Part.Nodes)
    ++C[N->opName().str()];
  return C;
}

std::string opList(const std::map<std::string, int64_t> &Counts) {
  std::vector<std::string> S;
  for (const auto &[Op, N] : Counts)
    S.push_back(Op + " " + std::to_string(N));
  return llvm::join(S, ", ");
}

/// What the report's text and JSON both show, computed once.
struct PlacementSummary {
  explicit PlacementSummary(const Placement &P) : Bounds(boundariesOf(P)) {
    for (const PlacedPart &Part : P.Parts) {
      Ops.push_back(opCounts(Part));
      EstimatedUs += Part.EstimatedUs;
    }
    for (const Boundary &B : Bounds)
      BytesPerRun += B.Bytes * double(B.To.size());
  }
  std::vector<Boundary> Bounds;
  std::vector<std::map<std::string, int64_t>> Ops; // per part
  double BytesPerRun = 0, EstimatedUs = 0;
};

llvm::json::Object placementJson(const Placement &P,
                                 const PlacementSummary &S) {
  llvm::json::Array Parts, Bounds, CpuNodes;
  for (size_t I = 0; I < P.Parts.size(); ++I) {
    const PlacedPart &Part = P.Parts[I];
    llvm::json::Object Ops;
    for (const auto &[Op, N] : S.Ops[I])
      Ops[Op] = N;
    llvm::json::Array In, Out;
    for (const Value *V : Part.Inputs)
      In.push_back(P.nameOf(V));
    for (const Value *V : Part.Outputs)
      Out.push_back(P.nameOf(V));
    Parts.push_back(llvm::json::Object{
        {"index", int64_t(I)},
        {"target", Part.On->Name},
        {"nodes", int64_t(Part.Nodes.size())},
        {"ops", std::move(Ops)},
        {"inputs", std::move(In)},
        {"outputs", std::move(Out)},
        {"reason", Part.Reason},
        {"estimated_us", Part.EstimatedUs},
        {"cpu_us", Part.CpuUs},
        {"transfer_us", Part.TransferUs}});
  }
  for (const Boundary &B : S.Bounds) {
    llvm::json::Array To;
    for (size_t T : B.To)
      To.push_back(int64_t(T));
    Bounds.push_back(llvm::json::Object{{"tensor", P.nameOf(B.V)},
                                        {"from", int64_t(B.From)},
                                        {"to", std::move(To)},
                                        {"bytes", int64_t(B.Bytes)}});
  }
  for (const PlacedPart &Part : P.Parts)
    for (const Node *N : Part.Nodes) {
      const NodePlacement &NP = P.Nodes.at(N);
      if (NP.Reason == PlacementReason::Device)
        continue;
      CpuNodes.push_back(llvm::json::Object{
          {"node", N->displayName()},
          {"op", N->opName()},
          {"reason", placementReasonName(NP.Reason)},
          {"detail", NP.Why}});
    }
  return llvm::json::Object{{"device", P.Device->Name},
                            {"partitions", std::move(Parts)},
                            {"boundaries", std::move(Bounds)},
                            {"bytes_per_run", int64_t(S.BytesPerRun)},
                            {"cpu_nodes", std::move(CpuNodes)},
                            {"estimated_us", S.EstimatedUs},
                            {"all_cpu_us", P.AllCpuUs}};
}

void printPlacement(llvm::raw_ostream &OS, const Placement &P,
                    const PlacementSummary &S) {
  std::map<std::string, int> PerTarget;
  for (const PlacedPart &Part : P.Parts)
    ++PerTarget[Part.On->Name];
  std::vector<std::string> Counts;
  for (const auto &[T, N] : PerTarget)
    Counts.push_back(T + " " + std::to_string(N));
  OS << "  placement:  " << P.Parts.size() << " partition"
     << (P.Parts.size() == 1 ? "" : "s") << " (" << llvm::join(Counts, ", ")
     << "), --target " << P.Device->Name << " --fallback cpu\n";
  for (size_t I = 0; I < P.Parts.size(); ++I) {
    const PlacedPart &Part = P.Parts[I];
    OS << "    " << I << " " << Part.On->Name << ": " << Part.Nodes.size()
       << " node" << (Part.Nodes.size() == 1 ? "" : "s") << " ("
       << opList(S.Ops[I]) << "), est. " << us(Part.EstimatedUs) << " us";
    if (Part.TransferUs > 0)
      OS << " (" << us(Part.TransferUs) << " us transfers)";
    OS << "\n";
    if (!Part.Reason.empty())
      OS << "      on the cpu: " << Part.Reason << "\n";
  }
  OS << "  boundaries: " << S.Bounds.size() << ", " << int64_t(S.BytesPerRun)
     << " bytes copied a run\n"
     << "  estimate:   " << us(S.EstimatedUs) << " us a run ("
     << us(P.AllCpuUs) << " us all on the cpu; docs/targets.md, the cost "
     << "model)\n";
}

/// The report of a conversion with --fallback cpu.
class PlacementReport final : public TargetReport {
public:
  PlacementReport(const Placement &P, const EmitRequest &R,
                  std::vector<std::unique_ptr<TargetReport>> Parts,
                  uint64_t FileBytes)
      : Single(P.Parts.size() == 1), Device(P.Device->Name),
        Input(R.Input), Output(R.Output), Pipeline(R.Pipeline),
        Parts(std::move(Parts)), FileBytes(FileBytes) {
    // The graph the placement points into is gone once convert returns.
    PlacementSummary S(P);
    PlacementJson = placementJson(P, S);
    llvm::raw_string_ostream OS(PlacementText);
    printPlacement(OS, P, S);
  }

  void print(llvm::raw_ostream &OS, bool Stats) const override {
    if (Single)
      Parts.front()->print(OS, Stats);
    else
      OS << Input << " -> " << Output << " (target " << Device
         << " with cpu fallback, " << Pipeline << ")\n"
         << "  file:       " << FileBytes << " bytes\n";
    OS << PlacementText;
  }

  llvm::json::Object json() const override {
    llvm::json::Object O;
    if (Single) {
      O = Parts.front()->json();
    } else {
      llvm::json::Array PartJson;
      for (const auto &R : Parts)
        PartJson.push_back(R->json());
      O = llvm::json::Object{{"input", Input},
                             {"output", Output},
                             {"target", Device},
                             {"pipeline", Pipeline},
                             {"file_bytes", int64_t(FileBytes)},
                             {"parts", std::move(PartJson)}};
    }
    O["fallback"] = "cpu";
    O["placement"] = llvm::json::Object(PlacementJson);
    return O;
  }

private:
  bool Single;
  std::string Device;
  llvm::json::Object PlacementJson;
  std::string PlacementText;
  std::string Input, Output, Pipeline;
  std::vector<std::unique_ptr<TargetReport>> Parts;
  uint64_t FileBytes;
};

llvm::Error checkPartitionGate(const Placement &P, const EmitRequest &R,
                               unsigned Max) {
  if (!Max || P.Parts.size() <= Max)
    return llvm::Error::success();
  std::string Parts;
  for (size_t I = 0; I < P.Parts.size(); ++I)
    Parts += llvm::formatv("\n  {0} {1}: {2} node(s) ({3})", I,
                           P.Parts[I].On->Name, P.Parts[I].Nodes.size(),
                           opList(opCounts(P.Parts[I])));
  return llvm::make_error<KilnError>(
      ExitCode::GateFailed,
      llvm::formatv("{0}: --max-partitions {1}: the placement has {2} "
                    "partitions; nothing was written:{3}",
                    R.Input, Max, P.Parts.size(), Parts)
          .str());
}

/// Part I's file lists its graph inputs and outputs as the part's graph
/// does (every target's writer binds them in order): checked once, so that
/// partIo can index them.
llvm::Error checkPartIo(const std::string &Bytes, const PlacedPart &Part,
                        size_t I) {
  const fb::Metadata *MD = fb::GetModel(Bytes.data())->metadata();
  if (MD && MD->inputs() && MD->outputs() &&
      MD->inputs()->size() == Part.Inputs.size() &&
      MD->outputs()->size() == Part.Outputs.size())
    return llvm::Error::success();
  return internalError("partition {0} ({1}): its file does not list the "
                       "partition's {2} input(s) and {3} output(s)",
                       I, Part.On->Name, Part.Inputs.size(),
                       Part.Outputs.size());
}

/// The TensorInfo a part's file gives its graph input or output K
/// (checkPartIo first).
const fb::TensorInfo *partIo(const std::string &Bytes, bool Input, size_t K) {
  const fb::Metadata *MD = fb::GetModel(Bytes.data())->metadata();
  const auto *List = Input ? MD->inputs() : MD->outputs();
  return List->Get(unsigned(K));
}

} // namespace

llvm::Expected<std::unique_ptr<TargetReport>>
emitPlacement(const Graph &G, const Placement &P, const EmitRequest &R,
              const PartitionedEmit &O) {
  if (llvm::Error E = checkPartitionGate(P, R, O.MaxPartitions))
    return E;
  std::vector<std::unique_ptr<TargetReport>> Reports;
  if (P.Parts.size() == 1) { // the target's own file, byte for byte
    const Target &On = *P.Parts.front().On;
    EmitRequest Own = R;
    std::map<std::string, std::string> Options = R.Options;
    Options["quantize"] = quantizeModeName(O.Mode).str();
    nameAsVariants(Own.Passes, On, Options);
    auto Rep = On.Emit(G, Own);
    if (!Rep)
      return Rep.takeError();
    Reports.push_back(std::move(*Rep));
    return std::make_unique<PlacementReport>(P, R, std::move(Reports), 0);
  }

  std::vector<std::string> Files(P.Parts.size());
  for (size_t I = 0; I < P.Parts.size(); ++I) {
    const PlacedPart &Part = P.Parts[I];
    auto Sub =
        extractPartGraph(G, Part.Nodes, Part.Inputs, Part.Outputs, &P.Names);
    EmitRequest PR = R;
    PR.Bytes = &Files[I];
    PR.SelfTest = nullptr; // the outer file carries it
    PR.Output = R.Output + " (partition " + std::to_string(I) + ", " +
                Part.On->Name + ")";
    auto Rep = Part.On->Emit(*Sub, PR);
    if (!Rep)
      return addContext(Rep.takeError(),
                        llvm::formatv("partition {0} ({1})", I, Part.On->Name)
                            .str());
    if (llvm::Error E = checkPartIo(Files[I], Part, I))
      return E;
    Reports.push_back(std::move(*Rep));
  }

  KilnModule M;
  fb::ModelT &Model = M.Model;
  Model.metadata = std::make_unique<fb::MetadataT>();
  fillMetadata(*Model.metadata, R, O.Mode);
  Model.metadata->target = std::string(P.Device->Name) + "+cpu";
  llvm::DenseMap<const Value *, int32_t> Outer;
  // A boundary's quantization is the producing part's tensor's.
  auto quantOf = [&](size_t Part, size_t K) {
    const fb::Model *PM = fb::GetModel(Files[Part].data());
    const fb::Tensor *T = PM->tensors()->Get(unsigned(PM->outputs()->Get(unsigned(K))));
    return T->quant() ? std::unique_ptr<fb::QuantParamsT>(T->quant()->UnPack())
                      : nullptr;
  };
  auto addTensor = [&](const Value *V, const fb::TensorInfo &Info) {
    auto T = std::make_unique<fb::TensorT>();
    T->name = P.nameOf(V);
    T->dtype = Info.dtype();
    T->layout = Info.layout();
    if (Info.shape())
      T->shape.assign(Info.shape()->begin(), Info.shape()->end());
    Outer[V] = int32_t(Model.tensors.size());
    Model.tensors.push_back(std::move(T));
    return Outer[V];
  };
  // Graph inputs as the first part that reads each describes them.
  for (const Value *In : G.inputs())
    for (size_t I = 0; I < P.Parts.size() && !Outer.count(In); ++I)
      for (size_t K = 0; K < P.Parts[I].Inputs.size(); ++K)
        if (P.Parts[I].Inputs[K] == In) {
          const fb::TensorInfo *Info = partIo(Files[I], true, K);
          Model.inputs.push_back(addTensor(In, *Info));
          auto TI = std::make_unique<fb::TensorInfoT>();
          Info->UnPackTo(TI.get());
          Model.metadata->inputs.push_back(std::move(TI));
          break;
        }
  if (Model.inputs.size() != G.numInputs())
    return inputError("{0}: --fallback cpu: a graph input is read by no "
                      "node; remove it or convert without --fallback",
                      R.Input);
  auto Payload = std::make_unique<fb::PartitionedPayloadT>();
  Payload->device = fb::Target(P.Device->FileTarget);
  for (size_t I = 0; I < P.Parts.size(); ++I) {
    const PlacedPart &Part = P.Parts[I];
    auto FP = std::make_unique<fb::PartitionT>();
    FP->target = fb::Target(Part.On->FileTarget);
    std::vector<uint8_t> Bytes(Files[I].begin(), Files[I].end());
    FP->file = M.addSegment(Segment(Buffer::own(std::move(Bytes))));
    for (const Value *V : Part.Inputs)
      FP->inputs.push_back(Outer.lookup(V));
    for (size_t K = 0; K < Part.Outputs.size(); ++K) {
      int32_t T = addTensor(Part.Outputs[K], *partIo(Files[I], false, K));
      Model.tensors[size_t(T)]->quant = quantOf(I, K);
      FP->outputs.push_back(T);
    }
    for (const Node *N : Part.Nodes)
      FP->nodes.push_back(N->displayName());
    FP->reason = Part.Reason;
    FP->estimated_us = float(Part.EstimatedUs);
    FP->transfer_us = float(Part.TransferUs);
    Payload->partitions.push_back(std::move(FP));
    Payload->schedule.push_back(int32_t(I));
  }
  for (const Value *Out : G.outputs()) {
    int32_t T = Outer.lookup(Out);
    Model.outputs.push_back(T);
    Model.metadata->outputs.push_back(tensorInfoOf(*Model.tensors[size_t(T)]));
  }
  Model.target = fb::Target::PARTITIONED;
  Model.payload.Set(std::move(*Payload));
  uint64_t FileBytes = 0;
  if (llvm::Error E = writeRequestedKilnFile(R, M, FileBytes))
    return E;
  return std::make_unique<PlacementReport>(P, R, std::move(Reports),
                                           FileBytes);
}

} // namespace kiln

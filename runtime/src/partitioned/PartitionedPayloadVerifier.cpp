// The partitioned target's payload verifier: every part is a complete file
// of another target, loaded (and so verified) by the registry as a file of
// its own would be, from a slice of the outer file; then the schedule and
// the boundaries are checked, so that a session never runs a part before
// its inputs exist or reads a boundary as the wrong type.
#include "partitioned/PartitionedPayload.h"

#include "loader/Limits.h"
#include "target/RuntimeTargets.h"

#include <algorithm>

namespace kiln::rt {

namespace {

/// Partitioned files being verified on this thread: a part's file is
/// verified by the same loader, and must not be partitioned again.
thread_local int NestingDepth = 0;

std::string tensorName(const LoadedModel &LM, int32_t T) {
  return concat("tensor ", T, " '", LM.Tensors[size_t(T)].Name, "'");
}

/// Outer tensor T matches the part's own graph input or output D.
Status checkBoundary(const LoadedModel &LM, size_t Part, int32_t T,
                     const TensorDesc &D, const char *What) {
  if (T < 0 || size_t(T) >= LM.Tensors.size())
    return invalidModel("partition ", Part, ": ", What, " tensor ", T,
                        " is out of range (", LM.Tensors.size(), " tensors)");
  const TensorDesc &O = LM.Tensors[size_t(T)];
  if (O.isConstant())
    return invalidModel("partition ", Part, ": ", What, " ",
                        tensorName(LM, T), " is a constant");
  if (O.Scales != D.Scales || O.ZeroPoints != D.ZeroPoints ||
      O.QuantAxis != D.QuantAxis)
    return invalidModel("partition ", Part, ": ", What, " ",
                        tensorName(LM, T), " is quantized otherwise than the "
                        "partition's own ", What, " '", D.Name, "'");
  if (O.DType != D.DType || O.Shape != D.Shape || O.Layout != D.Layout)
    return invalidModel("partition ", Part, ": ", What, " ",
                        tensorName(LM, T), " is ", dtypeName(O.DType),
                        shapeString(O.Shape), " ",
                        fb::EnumNameLayout(O.Layout), ", but the partition's "
                        "own ", What, " '", D.Name, "' is ",
                        dtypeName(D.DType), shapeString(D.Shape), " ",
                        fb::EnumNameLayout(D.Layout));
  return Status::ok();
}

Status loadPart(const fb::Model &M, const LoadedModel &LM, size_t I,
                const fb::Partition &P, PartitionedInfo::Part &Out) {
  if (P.target() == fb::Target::PARTITIONED ||
      P.target() == fb::Target::UNKNOWN)
    return invalidModel("partition ", I, " names the target ",
                        fb::EnumNameTarget(P.target()),
                        " (a partition is a file of one device or the CPU)");
  size_t NumBuffers = M.buffers() ? M.buffers()->size() : 0;
  if (P.file() < 0 || size_t(P.file()) >= NumBuffers)
    return invalidModel("partition ", I, " names segment ", P.file(), " of ",
                        NumBuffers);
  const fb::Buffer *B = M.buffers()->Get(unsigned(P.file()));
  auto Bytes = ModelBytes::slice(LM.Bytes, size_t(B->offset()),
                                 size_t(B->size()));
  // A part is loaded by the registry as any file is; a segment that is (or
  // holds) a partitioned file again would recurse, so nesting is refused
  // before the part's own verifier runs, whatever the part claims to be.
  if (NestingDepth > 0)
    return invalidModel("a partition is itself a partitioned file");
  ++NestingDepth;
  Status Loaded = loadVerifiedModel(std::move(Bytes), Out.Model);
  --NestingDepth;
  if (Loaded) // true on failure
    return {Loaded.code(), concat("partition ", I, ": ", Loaded.message())};
  if (Out.Model->Target != P.target())
    return invalidModel("partition ", I, " is listed as ",
                        fb::EnumNameTarget(P.target()), " but its file is for ",
                        targetName(Out.Model->Target));
  if (Out.Model->Partitioned)
    return invalidModel("partition ", I, " is itself partitioned");
  if (Out.Model->isPolymorphic())
    return invalidModel("partition ", I, " is batch-polymorphic (the parts "
                        "of a partitioned file have static shapes)");
  auto Read = [&](const flatbuffers::Vector<int32_t> *V,
                  const std::vector<int32_t> &Own, const char *What,
                  std::vector<int32_t> &Into) {
    size_t N = V ? V->size() : 0;
    if (N != Own.size())
      return invalidModel("partition ", I, " binds ", N, " ", What,
                          " tensor(s), but its file has ", Own.size());
    for (size_t K = 0; K < N; ++K) {
      int32_t T = V->Get(unsigned(K));
      if (Status S = checkBoundary(LM, I, T,
                                   Out.Model->Tensors[size_t(Own[K])], What))
        return S;
      Into.push_back(T);
    }
    return Status::ok();
  };
  if (Status S = Read(P.inputs(), Out.Model->Inputs, "input", Out.Inputs))
    return S;
  return Read(P.outputs(), Out.Model->Outputs, "output", Out.Outputs);
}

} // namespace

Status verifyPartitionedPayload(const fb::Model &M, LoadedModel &LM) {
  const fb::PartitionedPayload *P = M.payload_as_PartitionedPayload();
  if (!P || !P->partitions() || P->partitions()->size() == 0)
    return invalidModel("the partitioned payload lists no partitions");
  size_t N = P->partitions()->size();
  if (N > limits::MaxPartitions)
    return invalidModel("too many partitions (", N, ")");
  if (LM.numOperators() != 0)
    return invalidModel("a partitioned file has operators of its own (its "
                        "partitions hold them)");
  size_t Scheduled = P->schedule() ? P->schedule()->size() : 0;
  if (Scheduled != N)
    return invalidModel("the schedule lists ", Scheduled,
                        " partition(s) of ", N);
  std::vector<char> Seen(N, 0);
  for (int32_t X : *P->schedule()) {
    if (X < 0 || size_t(X) >= N)
      return invalidModel("the schedule refers to partition ", X,
                          ", which does not exist (", N, " partitions)");
    if (Seen[size_t(X)]++)
      return invalidModel("the schedule lists partition ", X, " twice");
  }

  std::vector<char> SegmentUsed(M.buffers() ? M.buffers()->size() : 0, 0);
  for (unsigned I = 0; I < N; ++I) {
    int32_t F = P->partitions()->Get(I)->file();
    if (F >= 0 && size_t(F) < SegmentUsed.size() && SegmentUsed[size_t(F)]++)
      return invalidModel("partitions share segment ", F, " (each partition "
                          "is a file of its own)");
  }

  auto Info = std::make_shared<PartitionedInfo>();
  std::vector<int32_t> Writer(LM.Tensors.size(), -1); // partition index
  for (int32_t X : LM.Inputs)
    Writer[size_t(X)] = -2; // the caller
  for (size_t I = 0; I < N; ++I) {
    PartitionedInfo::Part Part;
    Part.Index = I;
    if (Status S = loadPart(M, LM, I, *P->partitions()->Get(unsigned(I)), Part))
      return S;
    for (int32_t T : Part.Outputs) {
      if (Writer[size_t(T)] == -2)
        return invalidModel("partition ", I, " writes the graph input ",
                            tensorName(LM, T));
      if (Writer[size_t(T)] >= 0)
        return invalidModel("partitions ", Writer[size_t(T)], " and ", I,
                            " both write ", tensorName(LM, T));
      Writer[size_t(T)] = int32_t(I);
    }
    Info->Parts.push_back(std::move(Part));
  }
  // Schedule order, each input written before it is read.
  std::vector<PartitionedInfo::Part> Ordered;
  std::vector<char> Ready(LM.Tensors.size(), 0);
  for (int32_t X : LM.Inputs)
    Ready[size_t(X)] = 1;
  for (int32_t X : *P->schedule()) {
    PartitionedInfo::Part &Part = Info->Parts[size_t(X)];
    for (int32_t T : Part.Inputs) {
      if (Ready[size_t(T)])
        continue;
      if (Writer[size_t(T)] < 0)
        return invalidModel("partition ", X, " reads ", tensorName(LM, T),
                            ", which no partition writes");
      return invalidModel("partition ", X, " reads ", tensorName(LM, T),
                          ", which partition ", Writer[size_t(T)],
                          " writes, scheduled ",
                          Writer[size_t(T)] == X ? "as the same partition"
                                                 : "after it",
                          " (a cycle, or the wrong order)");
    }
    for (int32_t T : Part.Outputs)
      Ready[size_t(T)] = 1;
    Ordered.push_back(std::move(Part));
  }
  for (int32_t X : LM.Outputs)
    if (!Ready[size_t(X)])
      return invalidModel("graph output ", tensorName(LM, X),
                          " is written by no partition");
  // Every outer tensor is a graph input or a partition's output: none is
  // left for the session to allocate for nothing.
  for (size_t T = 0; T < Ready.size(); ++T)
    if (!Ready[T])
      return invalidModel(tensorName(LM, int32_t(T)), " is neither a graph "
                          "input nor written by a partition");
  Info->Parts = std::move(Ordered);

  // The flat view: every part's tensors after the outer ones, and every
  // part's operators in schedule order.
  uint64_t Total = LM.Tensors.size();
  for (const auto &Part : Info->Parts)
    Total += Part.Model->Tensors.size();
  if (Total > limits::MaxTensors)
    return invalidModel("too many tensors across the partitions (", Total, ")");
  for (auto &Part : Info->Parts) {
    Part.TensorBase = int32_t(LM.Tensors.size());
    Part.FirstOperator = LM.PartOperators.size();
    LM.Tensors.insert(LM.Tensors.end(), Part.Model->Tensors.begin(),
                      Part.Model->Tensors.end());
    for (size_t Op = 0; Op < Part.Model->numOperators(); ++Op)
      LM.PartOperators.push_back({&Part.Model->op(Op), Part.TensorBase});
  }
  if (LM.PartOperators.size() > limits::MaxOperators)
    return invalidModel("too many operators across the partitions (",
                        LM.PartOperators.size(), ")");
  LM.Partitioned = true;
  LM.Payload = std::move(Info);
  return Status::ok();
}

} // namespace kiln::rt

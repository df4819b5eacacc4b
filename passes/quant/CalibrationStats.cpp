#include "passes/quant/CalibrationStats.h"
#include "IR/FloatFormat.h"

#include "IR/Printer.h"
#include "IR/ShapeInference.h"
#include "IR/SymbolBinding.h"
#include "Support/Error.h"
#include "Support/Logging.h"
#include "Support/Hash.h"

#include <algorithm>

namespace kiln {

const ObservedValue *CalibrationStats::find(uint32_t Ordinal) const {
  auto It = std::lower_bound(
      Values.begin(), Values.end(), Ordinal,
      [](const ObservedValue &V, uint32_t O) { return V.Ordinal < O; });
  return It != Values.end() && It->Ordinal == Ordinal ? &*It : nullptr;
}

std::vector<const Value *> valuesInOrder(const Graph &G) {
  std::vector<const Value *> Out;
  for (const auto &In : G.inputPtrs())
    Out.push_back(In.get());
  for (const Node &N : G.nodes())
    for (unsigned I = 0; I < N.numResults(); ++I)
      Out.push_back(N.result(I));
  return Out;
}

std::string reportName(const Value &V) {
  if (!V.name().empty())
    return V.name();
  if (V.producer()) {
    std::string N = V.producer()->displayName();
    if (V.producer()->numResults() > 1)
      N += "#" + std::to_string(V.resultIndex());
    return N;
  }
  return "<input>";
}

uint64_t graphFingerprint(const Graph &G) {
  std::unique_ptr<Graph> Copy = cloneGraph(G);
  auto Open = [](Value *V) {
    TensorType T = V->type();
    T.Dims = unknownShape(T.rank());
    V->setType(std::move(T));
  };
  for (Value *In : Copy->inputs())
    Open(In);
  for (Node &N : Copy->nodes())
    if (!N.isOp("const"))
      for (Value *R : N.results())
        Open(R);
  return contentHash(printGraphToString(*Copy));
}

llvm::Error mergeStats(CalibrationStats &Into, const CalibrationStats &From,
                       llvm::StringRef FromName) {
  if (From.GraphHash != Into.GraphHash) {
    std::string Stale = staleStatsReason(From);
    if (Stale.empty())
      Stale = staleStatsReason(Into);
    if (!Stale.empty())
      return inputError("{0}: statistics {1}", FromName, Stale);
  }
  if (From.GraphHash != Into.GraphHash)
    return inputError("{0}: statistics of a different graph (fingerprint {1}, "
                      "expected {2}); calibrate every shard with the same "
                      "model and options",
                      FromName, hashToHex(From.GraphHash),
                      hashToHex(Into.GraphHash));
  if (From.Bins != Into.Bins)
    return inputError("{0}: histograms of {1} bins, expected {2}; calibrate "
                      "every shard with the same --calib-bins",
                      FromName, From.Bins, Into.Bins);
  if (From.ShardCount != Into.ShardCount ||
      From.DatasetSamples != Into.DatasetSamples)
    return inputError("{0}: shard of a {1}-way split of {2} samples, expected "
                      "a {3}-way split of {4}; use the same --calib, "
                      "--calib-limit and --shard i/N for every shard",
                      FromName, From.ShardCount, From.DatasetSamples,
                      Into.ShardCount, Into.DatasetSamples);
  for (uint32_t S : From.Shards)
    if (std::binary_search(Into.Shards.begin(), Into.Shards.end(), S))
      return inputError("{0}: shard {1}/{2} is already in the merge; each "
                        "shard may be merged once",
                        FromName, S, From.ShardCount);
  if (From.Values.size() != Into.Values.size())
    return inputError("{0}: {1} observed tensors, expected {2}", FromName,
                      From.Values.size(), Into.Values.size());
  for (size_t I = 0; I < From.Values.size(); ++I)
    if (From.Values[I].Ordinal != Into.Values[I].Ordinal ||
        From.Values[I].Name != Into.Values[I].Name)
      return inputError("{0}: observed tensor #{1} is '{2}', expected '{3}'",
                        FromName, I, From.Values[I].Name, Into.Values[I].Name);
  if (From.Engine != Into.Engine)
    log().warn("{}: calibrated on the {}, the statistics merged before it on "
               "the {}: the merge equals one run only up to float rounding "
               "(calibrate every shard on the same engine and kind of CPU, "
               "or with --calib-engine interpreter)",
               FromName.str(), From.Engine, Into.Engine);
  for (size_t I = 0; I < From.Values.size(); ++I)
    Into.Values[I].Observer.merge(From.Values[I].Observer);
  Into.Shards.insert(Into.Shards.end(), From.Shards.begin(), From.Shards.end());
  std::sort(Into.Shards.begin(), Into.Shards.end());
  Into.Samples += From.Samples;
  return llvm::Error::success();
}

} // namespace kiln

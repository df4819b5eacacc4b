#include "passes/quant/AutoKeepFloat.h"

#include "passes/quant/Int8Measurement.h"

#include "Support/Error.h"

#include <algorithm>
#include <cstdio>

namespace kiln {

namespace {
bool allF32(llvm::ArrayRef<Value *> Outputs) {
  for (const Value *V : Outputs)
    if (V->type().Elem != ElementType::F32)
      return false;
  return true;
}

std::string formatDb(double Db) {
  char Buf[32];
  std::snprintf(Buf, sizeof(Buf), "%.2f", Db);
  return Buf;
}
} // namespace

llvm::Expected<AutoKeepFloatResult>
chooseLayersToKeepFloat(const Graph &G, const CalibrationStats &Stats,
                        const Int8PlanOptions &Base,
                        const CalibrationDataset &Data, double TargetDb,
                        uint64_t SampleLimit, unsigned Threads) {
  if (!allF32(G.outputs()))
    return inputError("--keep-float auto measures SQNR on f32 outputs; this "
                      "graph has outputs of other types");
  MeasuredSamples S;
  uint64_t Count = std::min<uint64_t>(std::max<uint64_t>(SampleLimit, 1), Data.size());
  for (uint64_t I = 0; I < Count; ++I) {
    auto In = Data.load(I);
    if (!In)
      return In.takeError();
    S.Inputs.push_back(std::move(*In));
  }
  Int8Plan Plan = planInt8(G, Stats, Base);
  std::vector<std::vector<Energy>> PerSample;
  if (llvm::Error E = measureLayers(G, Plan, S, PerSample, Threads))
    return E;

  AutoKeepFloatResult R;
  std::vector<std::pair<double, size_t>> Order; // (layer SQNR, plan index)
  for (size_t L = 0; L < Plan.QuantizedInOrder.size(); ++L) {
    Energy Sum;
    for (const auto &PS : PerSample) {
      Sum.Signal += PS[L].Signal;
      Sum.Noise += PS[L].Noise;
    }
    Order.push_back({sqnrDb(Sum.Signal, Sum.Noise), L});
  }
  std::stable_sort(Order.begin(), Order.end(),
                   [](const auto &A, const auto &B) { return A.first < B.first; });
  std::vector<const Node *> Ranked;
  for (const auto &[Db, L] : Order) {
    const Node *N = Plan.QuantizedInOrder[L];
    Ranked.push_back(N);
    R.Ranking.push_back({N->displayName(), N->opName().str(), Db});
  }

  auto Measure = [&](size_t K) {
    return measureInt8(G, Stats, Base,
                       std::vector<const Node *>(Ranked.begin(), Ranked.begin() + long(K)),
                       S, Threads);
  };
  auto All = Measure(0);
  if (!All)
    return All.takeError();
  R.AllInt8SqnrDb = R.FinalSqnrDb = *All;
  if (*All >= TargetDb)
    return R;
  // The smallest K reaching the target (keeping every layer float always
  // does: the graph is then the float one).
  size_t Lo = 0, Hi = Ranked.size();
  double HiDb = 200.0;
  while (Hi - Lo > 1) {
    size_t Mid = (Lo + Hi) / 2;
    auto Db = Measure(Mid);
    if (!Db)
      return Db.takeError();
    if (*Db >= TargetDb) {
      Hi = Mid;
      HiDb = *Db;
    } else {
      Lo = Mid;
    }
  }
  if (Hi == Ranked.size()) {
    auto Db = Measure(Hi);
    if (!Db)
      return Db.takeError();
    HiDb = *Db;
  }
  // Then give back to int8, least sensitive first, every kept layer the
  // target can spare: no single layer left in float could be int8.
  std::vector<const Node *> Kept(Ranked.begin(), Ranked.begin() + long(Hi));
  std::vector<double> KeptDb;
  for (size_t K = 0; K < Hi; ++K)
    KeptDb.push_back(R.Ranking[K].LayerSqnrDb);
  for (size_t K = Kept.size(); K-- > 0;) {
    std::vector<const Node *> Fewer = Kept;
    Fewer.erase(Fewer.begin() + long(K));
    auto Db = measureInt8(G, Stats, Base, Fewer, S, Threads);
    if (!Db)
      return Db.takeError();
    if (*Db >= TargetDb) {
      Kept = std::move(Fewer);
      KeptDb.erase(KeptDb.begin() + long(K));
      HiDb = *Db;
    }
  }
  R.FinalSqnrDb = HiDb;
  for (size_t K = 0; K < Kept.size(); ++K)
    R.Keep[Kept[K]] =
        "--keep-float auto: layer SQNR " + formatDb(KeptDb[K]) + " dB; " +
        std::to_string(Kept.size()) + " layer(s) kept float reach " +
        formatDb(HiDb) + " dB (target " + formatDb(TargetDb) + ", all int8 " +
        formatDb(R.AllInt8SqnrDb) + ")";
  return R;
}

} // namespace kiln

#include "passes/quant/Calibrator.h"

#include "Interpreter/Interpreter.h"
#include "Support/Error.h"

#include "llvm/ADT/DenseMap.h"

namespace kiln {

namespace {
/// One thread's interpreter and observers (one per observed value).
struct Worker {
  std::vector<TensorObserver> Observers;
  std::unique_ptr<Interpreter> Interp;
};

void observeTensor(TensorObserver &O, const Tensor &T) {
  O.observe(reinterpret_cast<const float *>(T.buffer().data()),
            size_t(T.numElements()));
}
} // namespace

llvm::Expected<CalibrationStats>
calibrateGraph(const Graph &G, const CalibrationDataset &Data,
               const CalibrationDataOptions &DataOpts,
               const CalibrationRunOptions &Opts) {
  if (!TensorObserver::validBinCount(Opts.Bins))
    return usageError("--calib-bins {0}: expected a power of two in [{1}, {2}]",
                      Opts.Bins, TensorObserver::MinBins,
                      TensorObserver::MaxBins);
  // The observed values and their slots.
  std::vector<const Value *> All = valuesInOrder(G);
  std::vector<uint32_t> Ordinals;
  llvm::DenseMap<const Value *, unsigned> Slot;
  for (uint32_t I = 0; I < All.size(); ++I) {
    const Value *V = All[I];
    if (V->type().Elem != ElementType::F32 ||
        (V->producer() && V->producer()->isOp("const")))
      continue;
    Slot[V] = unsigned(Ordinals.size());
    Ordinals.push_back(I);
  }

  uint64_t Count = Data.size();
  unsigned NumWorkers = workerCount(Opts.Threads, Count);
  std::vector<Worker> Workers(NumWorkers);
  for (Worker &W : Workers) {
    W.Observers.assign(Ordinals.size(), TensorObserver(Opts.Bins));
    InterpreterOptions IO;
    IO.Threads = 1; // parallel over samples, not inside kernels
    IO.Observer = [&W, &Slot](const Node &N, llvm::ArrayRef<Tensor> Results) {
      for (unsigned R = 0; R < Results.size(); ++R) {
        auto It = Slot.find(N.result(R));
        if (It != Slot.end())
          observeTensor(W.Observers[It->second], Results[R]);
      }
    };
    W.Interp = std::make_unique<Interpreter>(G, std::move(IO));
  }

  auto RunSample = [&](unsigned WI, uint64_t S) -> llvm::Error {
    Worker &W = Workers[WI];
    auto Inputs = Data.load(S);
    if (!Inputs)
      return Inputs.takeError();
    auto Out = W.Interp->run(*Inputs);
    if (!Out)
      return addContext(Out.takeError(),
                        "calibration sample " + Data.describe(S));
    for (unsigned I = 0; I < G.numInputs(); ++I) {
      auto It = Slot.find(G.input(I));
      if (It != Slot.end())
        observeTensor(W.Observers[It->second], (*Inputs)[I]);
    }
    return llvm::Error::success();
  };
  if (llvm::Error E = runOverSamples(Count, NumWorkers, RunSample, Opts.Progress))
    return E;

  CalibrationStats S;
  S.GraphHash = graphFingerprint(G);
  S.Bins = Opts.Bins;
  S.ShardCount = DataOpts.ShardCount;
  S.Shards = {DataOpts.ShardIndex};
  S.DatasetSamples = Data.totalSamples();
  S.Samples = Count;
  for (size_t I = 0; I < Ordinals.size(); ++I) {
    ObservedValue V;
    V.Ordinal = Ordinals[I];
    V.Name = reportName(*All[Ordinals[I]]);
    V.Observer = TensorObserver(Opts.Bins);
    for (const Worker &W : Workers)
      V.Observer.merge(W.Observers[I]);
    S.Values.push_back(std::move(V));
  }
  return S;
}

} // namespace kiln

#include "passes/quant/Calibrator.h"

#include "Interpreter/Interpreter.h"
#include "Support/Error.h"

#include "llvm/ADT/DenseMap.h"

namespace kiln {

namespace {
/// The reference interpreter as a sample executor.
class InterpreterExecutor : public SampleExecutor {
public:
  explicit InterpreterExecutor(const Graph &G) {
    InterpreterOptions IO;
    IO.Threads = 1; // parallel over samples, not inside kernels
    IO.Observer = [this](const Node &N, llvm::ArrayRef<Tensor> Results) {
      for (unsigned R = 0; R < Results.size(); ++R)
        if (Results[R].type().Elem == ElementType::F32)
          (*Current)(N.result(R),
                     reinterpret_cast<const float *>(Results[R].buffer().data()),
                     size_t(Results[R].numElements()));
    };
    Interp = std::make_unique<Interpreter>(G, std::move(IO));
  }
  llvm::Error run(llvm::ArrayRef<Tensor> Inputs, ObserveFn Observe) override {
    Current = &Observe;
    auto Out = Interp->run(Inputs);
    Current = nullptr;
    return Out ? llvm::Error::success() : Out.takeError();
  }

private:
  std::unique_ptr<Interpreter> Interp;
  const ObserveFn *Current = nullptr;
};

/// One thread's executor and observers (one per observed value).
struct Worker {
  std::vector<TensorObserver> Observers;
  std::unique_ptr<SampleExecutor> Exec;
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

  std::unique_ptr<CalibrationEngine> Engine;
  if (Opts.Engine) {
    auto E = Opts.Engine(G);
    if (!E)
      return E.takeError();
    Engine = std::move(*E);
  }
  uint64_t Count = Data.size();
  unsigned NumWorkers = workerCount(Opts.Threads, Count);
  std::vector<Worker> Workers(NumWorkers);
  for (Worker &W : Workers) {
    W.Observers.assign(Ordinals.size(), TensorObserver(Opts.Bins));
    if (!Engine) {
      W.Exec = std::make_unique<InterpreterExecutor>(G);
      continue;
    }
    auto Exec = Engine->newExecutor();
    if (!Exec)
      return Exec.takeError();
    W.Exec = std::move(*Exec);
  }

  auto RunSample = [&](unsigned WI, uint64_t S) -> llvm::Error {
    Worker &W = Workers[WI];
    auto Inputs = Data.load(S);
    if (!Inputs)
      return Inputs.takeError();
    auto Observe = [&](const Value *V, const float *Values, size_t N) {
      auto It = Slot.find(V);
      if (It != Slot.end())
        W.Observers[It->second].observe(Values, N);
    };
    if (llvm::Error E = W.Exec->run(*Inputs, Observe))
      return addContext(std::move(E), "calibration sample " + Data.describe(S));
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
  if (Engine)
    S.Engine = Engine->name();
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

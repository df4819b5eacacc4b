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

/// One calibration of G: the values it observes, the engine, and each
/// worker's executor and observers; merged exactly at the end, so the
/// statistics do not depend on which worker ran which sample.
class CalibrationRun {
public:
  static llvm::Expected<std::unique_ptr<CalibrationRun>>
  create(const Graph &G, const CalibrationRunOptions &Opts, unsigned Workers) {
    if (!TensorObserver::validBinCount(Opts.Bins))
      return usageError(
          "--calib-bins {0}: expected a power of two in [{1}, {2}]", Opts.Bins,
          TensorObserver::MinBins, TensorObserver::MaxBins);
    std::unique_ptr<CalibrationRun> R(new CalibrationRun(G, Opts.Bins));
    if (Opts.Engine) {
      auto E = Opts.Engine(G);
      if (!E)
        return E.takeError();
      R->Engine = std::move(*E);
    }
    R->Workers.resize(Workers);
    for (Worker &W : R->Workers) {
      W.Observers.assign(R->Ordinals.size(), TensorObserver(Opts.Bins));
      if (!R->Engine) {
        W.Exec = std::make_unique<InterpreterExecutor>(G);
        continue;
      }
      auto Exec = R->Engine->newExecutor();
      if (!Exec)
        return Exec.takeError();
      W.Exec = std::move(*Exec);
    }
    return R;
  }

  /// Runs one sample on worker WI's executor and observers; errors say
  /// which sample (Describe).
  llvm::Error runSample(unsigned WI, llvm::ArrayRef<Tensor> Inputs,
                        llvm::function_ref<std::string()> Describe) {
    Worker &W = Workers[WI];
    auto Observe = [&](const Value *V, const float *Values, size_t N) {
      auto It = Slot.find(V);
      if (It != Slot.end())
        W.Observers[It->second].observe(Values, N);
    };
    if (llvm::Error E = W.Exec->run(Inputs, Observe))
      return addContext(std::move(E), "calibration sample " + Describe());
    for (unsigned I = 0; I < G.numInputs(); ++I) {
      auto It = Slot.find(G.input(I));
      if (It != Slot.end())
        observeTensor(W.Observers[It->second], Inputs[I]);
    }
    return llvm::Error::success();
  }

  /// The statistics of Samples samples, of DatasetSamples in the dataset.
  CalibrationStats finish(const CalibrationDataOptions &DataOpts,
                          uint64_t DatasetSamples, uint64_t Samples) const {
    CalibrationStats S;
    S.GraphHash = graphFingerprint(G);
    if (Engine)
      S.Engine = Engine->name();
    S.Bins = Bins;
    S.ShardCount = DataOpts.ShardCount;
    S.Shards = {DataOpts.ShardIndex};
    S.DatasetSamples = DatasetSamples;
    S.Samples = Samples;
    for (size_t I = 0; I < Ordinals.size(); ++I) {
      ObservedValue V;
      V.Ordinal = Ordinals[I];
      V.Name = reportName(*All[Ordinals[I]]);
      V.Observer = TensorObserver(Bins);
      for (const Worker &W : Workers)
        V.Observer.merge(W.Observers[I]);
      S.Values.push_back(std::move(V));
    }
    return S;
  }

private:
  CalibrationRun(const Graph &G, uint32_t Bins) : G(G), Bins(Bins) {
    // The observed values (f32, not constants) and their slots.
    All = valuesInOrder(G);
    for (uint32_t I = 0; I < All.size(); ++I) {
      const Value *V = All[I];
      if (V->type().Elem != ElementType::F32 ||
          (V->producer() && V->producer()->isOp("const")))
        continue;
      Slot[V] = unsigned(Ordinals.size());
      Ordinals.push_back(I);
    }
  }

  const Graph &G;
  uint32_t Bins;
  std::vector<const Value *> All;
  std::vector<uint32_t> Ordinals;
  llvm::DenseMap<const Value *, unsigned> Slot;
  std::unique_ptr<CalibrationEngine> Engine;
  std::vector<Worker> Workers;
};
} // namespace

llvm::Expected<CalibrationStats>
calibrateGraph(const Graph &G, const CalibrationDataset &Data,
               const CalibrationDataOptions &DataOpts,
               const CalibrationRunOptions &Opts) {
  uint64_t Count = Data.size();
  unsigned NumWorkers = workerCount(Opts.Threads, Count);
  auto Run = CalibrationRun::create(G, Opts, NumWorkers);
  if (!Run)
    return Run.takeError();
  auto RunSample = [&](unsigned WI, uint64_t S) -> llvm::Error {
    auto Inputs = Data.load(S);
    if (!Inputs)
      return Inputs.takeError();
    return (*Run)->runSample(WI, *Inputs, [&] { return Data.describe(S); });
  };
  if (llvm::Error E = runOverSamples(Count, NumWorkers, RunSample, Opts.Progress))
    return E;
  return (*Run)->finish(DataOpts, Data.totalSamples(), Count);
}

llvm::Expected<CalibrationStats>
calibrateGraphFromSource(const Graph &G, const CalibrationSampleSource &Next,
                         const CalibrationRunOptions &Opts) {
  unsigned NumWorkers = workerCount(Opts.Threads, UINT64_MAX);
  auto Run = CalibrationRun::create(G, Opts, NumWorkers);
  if (!Run)
    return Run.takeError();
  auto RunSample = [&](unsigned WI, uint64_t S,
                       llvm::ArrayRef<Tensor> Inputs) -> llvm::Error {
    return (*Run)->runSample(WI, Inputs,
                             [&] { return "#" + std::to_string(S); });
  };
  auto Count = runOverSource(NumWorkers, Next, RunSample, Opts.Progress);
  if (!Count)
    return Count.takeError();
  if (*Count == 0)
    return inputError("the calibration samples are empty: no sample came");
  return (*Run)->finish(CalibrationDataOptions(), *Count, *Count);
}

} // namespace kiln

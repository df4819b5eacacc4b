#include "PyCalibrate.h"
#include "PyErrors.h"

#include "Driver/CalibrateModel.h"
#include "backends/Target.h"
#include "passes/quant/CalibrationDataset.h"
#include "passes/quant/CalibrationStats.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>
#include <deque>

namespace py = pybind11;

namespace kiln::python {

namespace {

/// Arr's bytes, copied so that the calibration threads never touch Python
/// memory (the copy is freed once its samples are observed).
NpyArray copyArray(const py::handle &Obj, const std::string &Where) {
  py::array A = py::array::ensure(Obj, py::array::c_style);
  if (!A)
    raiseDiagnosis({ExitCode::BadInput,
                    Where + ": not an array (give numpy arrays, or dicts of "
                            "them by input name)"});
  // numpy's own spelling of the type, read with the .npy reader's table.
  auto T = npyDTypeOfDescr(std::string(py::str(A.dtype().attr("str"))));
  if (!T)
    raiseDiagnosis({ExitCode::BadInput,
                    Where + ": arrays of " + std::string(py::str(A.dtype())) +
                        " cannot be calibration samples"});
  NpyArray N;
  N.DType = *T;
  N.Shape.assign(A.shape(), A.shape() + A.ndim());
  N.Size = size_t(A.nbytes());
  auto Bytes = std::shared_ptr<uint8_t[]>(new uint8_t[N.Size ? N.Size : 1]);
  std::memcpy(Bytes.get(), A.data(), N.Size);
  N.Data = Bytes.get();
  N.Owner = std::shared_ptr<const void>(Bytes, Bytes.get());
  return N;
}

/// The iterator's items cut into samples, one at a time; Python is entered
/// (with the GIL) only to take the next item.
class IterableSource {
public:
  explicit IterableSource(py::iterator It) : It(std::move(It)) {}
  ~IterableSource() {
    py::gil_scoped_acquire Held; // the iterator is a Python object
    It = py::iterator();
  }

  llvm::Expected<bool> next(const Graph &G, std::vector<Tensor> &Sample) {
    while (Pending.empty()) {
      py::gil_scoped_acquire Held;
      std::string Where = "calibration batch " + std::to_string(Batch);
      std::vector<std::pair<std::string, NpyArray>> Members;
      try {
        if (It == py::iterator::sentinel())
          return false;
        py::handle Item = *It;
        if (py::isinstance<py::dict>(Item)) {
          for (auto [K, V] : py::reinterpret_borrow<py::dict>(Item))
            Members.push_back({py::str(K), copyArray(V, Where)});
        } else {
          Members.push_back({"", copyArray(Item, Where)});
        }
        ++It; // the next item is fetched here (a DataLoader's workers run on)
      } catch (py::error_already_set &E) {
        Error = std::make_unique<py::error_already_set>(std::move(E));
        return inputError("{0}: the iterable raised an exception", Where);
      }
      auto Samples = splitCalibrationArrays(G, std::move(Members), Where);
      if (!Samples)
        return Samples.takeError();
      for (auto &S : *Samples)
        Pending.push_back(std::move(S));
      ++Batch;
    }
    Sample = std::move(Pending.front());
    Pending.pop_front();
    return true;
  }

  /// The Python exception the iterable raised, if it did.
  std::unique_ptr<py::error_already_set> Error;

private:
  py::iterator It;
  std::deque<std::vector<Tensor>> Pending;
  uint64_t Batch = 0;
};

py::dict calibrateIterable(const std::string &Model, const py::iterable &Samples,
                           const std::string &Output,
                           const std::vector<std::string> &InputShapes,
                           const std::string &Target,
                           std::optional<unsigned> Threads,
                           std::optional<uint32_t> Bins,
                           const std::string &Engine, int OptLevel,
                           const std::string &KilnVersion) {
  CalibrateModelOptions O;
  O.Compile.Input = Model;
  O.Compile.InputShapes = InputShapes;
  O.Compile.ForTarget = findTarget(Target);
  O.Compile.KilnVersion = KilnVersion;
  O.Compile.Pipeline.OptLevel = OptLevel;
  if (!O.Compile.ForTarget)
    raiseDiagnosis(diagnose(unknownTargetError(Target)));
  O.Calib.Threads = Threads ? *Threads : 0;
  if (Bins)
    O.Calib.Bins = *Bins;
  O.Calib.Engine = Engine;
  // Taken here, with the GIL: iter() may run Python code.
  auto Source = std::make_shared<IterableSource>(py::iter(Samples));
  std::optional<Diagnosis> Failed;
  uint64_t Count = 0;
  std::string EngineName;
  {
    py::gil_scoped_release Released;
    auto S = calibrateModelFromSource(
        O, [&](const Graph &G, std::vector<Tensor> &Sample) {
          return Source->next(G, Sample);
        });
    llvm::Error E = S ? writeStatsFile(Output, *S) : S.takeError();
    if (E)
      Failed = diagnose(std::move(E));
    else {
      Count = S->Samples;
      EngineName = S->Engine;
    }
  }
  if (Source->Error) { // the iterable's own exception, as it was raised
    Source->Error->restore();
    throw py::error_already_set();
  }
  if (Failed)
    raiseDiagnosis(*Failed);
  py::dict R;
  R["output"] = Output;
  R["samples"] = Count;
  R["engine"] = EngineName;
  return R;
}

} // namespace

void addCalibrate(py::module_ &M) {
  M.def("_calibrate_iterable", &calibrateIterable, py::arg("model"),
        py::arg("samples"), py::arg("output"), py::arg("input_shapes"),
        py::arg("target"), py::arg("threads"), py::arg("bins"),
        py::arg("engine"), py::arg("opt_level"), py::arg("kiln_version"),
        "kiln.calibrate's streaming path (use kiln.calibrate).");
}

} // namespace kiln::python

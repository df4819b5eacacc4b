#include "PySession.h"
#include "PyErrors.h"
#include "PySessionOptions.h"

#include "kiln/kiln.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace py = pybind11;

namespace kiln::python {

namespace {

/// The numpy dtype of a kiln dtype (bf16 has none).
std::optional<py::dtype> numpyDtype(kiln_dtype D) {
  switch (D) {
  case KILN_DTYPE_F32: return py::dtype("float32");
  case KILN_DTYPE_F16: return py::dtype("float16");
  case KILN_DTYPE_F64: return py::dtype("float64");
  case KILN_DTYPE_I64: return py::dtype("int64");
  case KILN_DTYPE_I32: return py::dtype("int32");
  case KILN_DTYPE_I16: return py::dtype("int16");
  case KILN_DTYPE_I8: return py::dtype("int8");
  case KILN_DTYPE_U64: return py::dtype("uint64");
  case KILN_DTYPE_U32: return py::dtype("uint32");
  case KILN_DTYPE_U16: return py::dtype("uint16");
  case KILN_DTYPE_U8: return py::dtype("uint8");
  case KILN_DTYPE_BOOL: return py::dtype("bool");
  default: return std::nullopt;
  }
}

const char *layoutName(kiln_layout L) {
  switch (L) {
  case KILN_LAYOUT_NCHW: return "nchw";
  case KILN_LAYOUT_NHWC: return "nhwc";
  default: return "plain";
  }
}

/// The runtime's last error, as the exception for Status.
[[noreturn]] void raiseStatus(kiln_status Status, const std::string &Context) {
  std::string Message = Context + ": " + kiln_last_error();
  switch (Status) {
  case KILN_ERROR_INVALID_ARGUMENT:
    raiseDiagnosis({ExitCode::Usage, Message});
  case KILN_ERROR_UNSUPPORTED:
    raiseDiagnosis({ExitCode::BadInput, Message, /*Unsupported=*/true});
  case KILN_ERROR_RUNTIME:
  case KILN_ERROR_OUT_OF_MEMORY:
  case KILN_ERROR_INVALID_MODEL:
  case KILN_ERROR_IO:
  default:
    raiseDiagnosis({ExitCode::BadInput, Message});
  }
}

py::dict infoDict(const kiln_tensor_info &I) {
  py::dict D;
  D["name"] = I.name;
  std::vector<int64_t> Shape(I.shape, I.shape + I.rank);
  py::list Dims;
  for (int64_t S : Shape)
    Dims.append(S < 0 ? py::object(py::none()) : py::object(py::int_(S)));
  D["shape"] = py::tuple(Dims);
  auto Dt = numpyDtype(I.dtype);
  D["dtype"] = Dt ? py::object(*Dt) : py::object(py::str("bfloat16"));
  D["layout"] = layoutName(I.layout);
  return D;
}

/// A model and its session, freed when the last of the kiln.Session and
/// the arrays viewing its input bytes (Session.input_array) lets go.
struct NativeSession {
  kiln_model *Model;
  kiln_session *Handle;
  NativeSession(const NativeSession &) = delete;
  NativeSession &operator=(const NativeSession &) = delete;
  ~NativeSession() {
    kiln_session_destroy(Handle);
    kiln_model_destroy(Model);
  }
};

class Session {
public:
  Session(const py::object &File, std::optional<unsigned> Threads,
          const py::kwargs &Options)
      : Path(py::str(py::module_::import("os").attr("fspath")(File))) {
    SessionOptions O(Threads, Options, Path);
    kiln_status S;
    {
      py::gil_scoped_release Released;
      S = kiln_model_load(Path.c_str(), &Model);
    }
    if (S != KILN_OK)
      raiseStatus(S, Path);
    {
      py::gil_scoped_release Released;
      S = kiln_session_create(Model, &O.get(), &Handle);
    }
    if (S != KILN_OK) {
      kiln_model_destroy(Model);
      Model = nullptr;
      raiseStatus(S, Path);
    }
    Owner.reset(new NativeSession{Model, Handle});
  }
  ~Session() { close(); }

  /// Arrays from input_array() keep the native session until they go.
  void close() {
    auto L = lock();
    Owner.reset();
    Handle = nullptr;
    Model = nullptr;
  }

  /// A numpy array over the session's own bytes of an input (by name or
  /// index): what is written there is the input, with no copy at run().
  py::array inputArray(const py::object &Key) {
    auto L = lock();
    size_t I = py::isinstance<py::str>(Key) ? inputIndex(py::str(Key))
                                             : indexOf(Key);
    kiln_tensor_info Info;
    kiln_session_input_info(Handle, I, &Info);
    py::dtype Dt = numpyDtypeOf(Info, "input", ExitCode::Usage);
    void *Data = nullptr;
    size_t Bytes = 0;
    kiln_status S = kiln_session_input_buffer(Handle, I, &Data, &Bytes);
    if (S != KILN_OK)
      raiseStatus(S, Path);
    std::vector<py::ssize_t> Shape(Info.shape, Info.shape + Info.rank);
    py::capsule Keep(new std::shared_ptr<NativeSession>(Owner), [](void *P) {
      delete static_cast<std::shared_ptr<NativeSession> *>(P);
    });
    return py::array(Dt, Shape, Data, Keep);
  }

  py::list inputs() {
    auto L = lock();
    return infos(kiln_model_num_inputs(open()), kiln_model_input_info);
  }
  py::list outputs() {
    auto L = lock();
    return infos(kiln_model_num_outputs(open()), kiln_model_output_info);
  }
  std::string target() {
    auto L = lock();
    return kiln_model_target(open());
  }

  /// Inputs by name (or in order, for a list) -> outputs by name. None:
  /// the inputs as they are (written through input_array()).
  py::dict run(const py::object &Feed) {
    auto L = lock();
    setInputs(Feed);
    kiln_status S;
    {
      py::gil_scoped_release Released;
      S = kiln_session_run(Handle);
    }
    if (S != KILN_OK)
      raiseStatus(S, Path);
    return fetchOutputs();
  }

  /// Sizes the session for new input shapes (a batch-polymorphic model).
  void resize(const py::dict &Shapes) {
    auto L = lock();
    std::vector<std::vector<int64_t>> Dims = shapesByInput(Shapes);
    resizeTo(Dims);
  }

  /// One run with every operator timed: per operator its kind, name,
  /// engine and milliseconds, in execution order.
  py::list profile(const py::object &Feed) {
    auto L = lock();
    setInputs(Feed);
    kiln_session_set_profiling(Handle, 1);
    kiln_status S;
    {
      py::gil_scoped_release Released;
      S = kiln_session_run(Handle);
    }
    kiln_session_set_profiling(Handle, 0);
    if (S != KILN_OK)
      raiseStatus(S, Path);
    py::list Ops;
    for (size_t I = 0; I < kiln_session_num_operators(Handle); ++I) {
      kiln_operator_info Info;
      kiln_session_operator_info(Handle, I, &Info);
      py::dict D;
      D["kind"] = Info.kind;
      D["name"] = Info.name;
      const char *Engine = kiln_session_operator_engine(Handle, I);
      D["engine"] = Engine ? Engine : "";
      D["ms"] = Info.last_run_ms;
      Ops.append(D);
    }
    return Ops;
  }

  /// kiln_session_self_test: the file's samples, twice, against its
  /// references (kiln convert --self-test).
  py::dict selfTest() {
    auto L = lock();
    open();
    kiln_self_test_result R;
    R.struct_size = sizeof R;
    kiln_status S;
    {
      py::gil_scoped_release Released;
      S = kiln_session_self_test(Handle, &R);
    }
    if (S != KILN_OK)
      raiseStatus(S, Path);
    kiln_tensor_info Worst;
    py::dict D;
    D["passed"] = R.passed != 0;
    D["deterministic"] = R.deterministic != 0;
    D["worst_output"] =
        kiln_model_output_info(Model, R.worst_output, &Worst) == KILN_OK
            ? py::str(Worst.name)
            : py::str("");
    D["max_error"] = R.max_error;
    D["relative_error"] = R.relative_error;
    D["tolerance"] = R.tolerance;
    D["compared"] = R.compared;
    D["non_finite"] = R.non_finite;
    D["run_ms"] = R.run_ms;
    return D;
  }

private:
  /// The session's lock, waited for with the GIL released: a thread that
  /// holds the lock gives the GIL up while it runs, and must get it back.
  std::unique_lock<std::mutex> lock() {
    std::unique_lock<std::mutex> L(M, std::defer_lock);
    if (!L.try_lock()) {
      py::gil_scoped_release Released;
      L.lock();
    }
    return L;
  }

  kiln_model *open() {
    if (!Model)
      raiseDiagnosis({ExitCode::Usage, Path + ": the session is closed"});
    return Model;
  }

  py::list infos(size_t N, kiln_status (*Get)(const kiln_model *, size_t,
                                              kiln_tensor_info *)) {
    py::list L;
    for (size_t I = 0; I < N; ++I) {
      kiln_tensor_info Info;
      Get(Model, I, &Info);
      L.append(infoDict(Info));
    }
    return L;
  }

  /// The numpy dtype of an input or output (What), or the error Code for
  /// bfloat16, which numpy has none for.
  py::dtype numpyDtypeOf(const kiln_tensor_info &Info, const char *What,
                         ExitCode Code) {
    auto Dt = numpyDtype(Info.dtype);
    if (!Dt)
      raiseDiagnosis({Code, Path + ": " + What + " '" + std::string(Info.name) +
                                "' is bfloat16, which numpy has no type for"});
    return *Dt;
  }

  /// An input's index given as a Python integer (numpy's too).
  size_t indexOf(const py::object &Key) {
    size_t N = kiln_model_num_inputs(open());
    int64_t I = -1;
    try {
      I = py::int_(Key).cast<int64_t>();
    } catch (const py::error_already_set &) {
      raiseDiagnosis({ExitCode::Usage, Path + ": an input is a name or an "
                                              "index, not " +
                                           std::string(py::repr(Key))});
    }
    if (I < 0 || uint64_t(I) >= N)
      raiseDiagnosis({ExitCode::Usage,
                      Path + ": input index " + std::to_string(I) +
                          " out of range (the model has " + std::to_string(N) +
                          " inputs)"});
    return size_t(I);
  }

  size_t inputIndex(const std::string &Name) {
    size_t N = kiln_model_num_inputs(open());
    std::string Names;
    for (size_t I = 0; I < N; ++I) {
      kiln_tensor_info Info;
      kiln_model_input_info(Model, I, &Info);
      if (Name == Info.name)
        return I;
      Names += (Names.empty() ? "" : ", ") + std::string(Info.name);
    }
    raiseDiagnosis({ExitCode::Usage, Path + ": the model has no input '" +
                                         Name + "' (inputs: " + Names + ")"});
  }

  /// Feed as one array per input, in input order.
  std::vector<py::array> arraysByInput(const py::object &Feed) {
    size_t N = kiln_model_num_inputs(open());
    std::vector<py::array> Arrays(N);
    std::vector<bool> Given(N, false);
    auto Take = [&](size_t I, const py::handle &V) {
      Arrays[I] = py::array::ensure(V, py::array::c_style);
      if (!Arrays[I])
        raiseDiagnosis({ExitCode::Usage, Path + ": input " +
                                             std::to_string(I) +
                                             " is not an array"});
      Given[I] = true;
    };
    if (py::isinstance<py::dict>(Feed)) {
      for (auto [K, V] : py::reinterpret_borrow<py::dict>(Feed))
        Take(inputIndex(py::str(K)), V);
    } else if (N == 1 && !py::isinstance<py::list>(Feed) &&
               !py::isinstance<py::tuple>(Feed)) {
      Take(0, Feed);
    } else {
      py::sequence Seq = py::reinterpret_borrow<py::sequence>(Feed);
      if (Seq.size() != N)
        raiseDiagnosis({ExitCode::Usage,
                        Path + ": " + std::to_string(Seq.size()) +
                            " inputs given; the model takes " +
                            std::to_string(N)});
      for (size_t I = 0; I < N; ++I)
        Take(I, Seq[I]);
    }
    for (size_t I = 0; I < N; ++I)
      if (!Given[I]) {
        kiln_tensor_info Info;
        kiln_model_input_info(Model, I, &Info);
        raiseDiagnosis({ExitCode::Usage, Path + ": input '" +
                                             std::string(Info.name) +
                                             "' is not given"});
      }
    return Arrays;
  }

  std::vector<std::vector<int64_t>> shapesByInput(const py::dict &Shapes) {
    size_t N = kiln_model_num_inputs(open());
    std::vector<std::vector<int64_t>> Dims(N);
    for (size_t I = 0; I < N; ++I) {
      kiln_tensor_info Info;
      kiln_session_input_info(Handle, I, &Info);
      Dims[I].assign(Info.shape, Info.shape + Info.rank);
    }
    for (auto [K, V] : Shapes)
      Dims[inputIndex(py::str(K))] = V.cast<std::vector<int64_t>>();
    return Dims;
  }

  void resizeTo(const std::vector<std::vector<int64_t>> &Dims) {
    // A resize moves the session's input bytes out from under the arrays.
    if (Owner.use_count() > 1) {
      bool Changes = false;
      for (size_t I = 0; I < Dims.size(); ++I) {
        kiln_tensor_info Info;
        kiln_session_input_info(Handle, I, &Info);
        Changes |= Dims[I] != std::vector<int64_t>(Info.shape,
                                                   Info.shape + Info.rank);
      }
      if (Changes)
        raiseDiagnosis({ExitCode::Usage,
                        Path + ": arrays from input_array() still view the "
                               "session's inputs; delete them before "
                               "resizing (a resize moves those bytes)"});
    }
    std::vector<const int64_t *> Ptrs;
    for (const auto &D : Dims)
      Ptrs.push_back(D.data());
    kiln_status S = kiln_session_resize_inputs(Handle, Ptrs.size(), Ptrs.data());
    if (S != KILN_OK)
      raiseStatus(S, Path);
  }

  /// Checks each array against its input (dtype; shape, resizing a
  /// batch-polymorphic session to it) and copies it in. None: the inputs
  /// stay as they are (written through input_array()).
  void setInputs(const py::object &Feed) {
    if (Feed.is_none()) {
      open();
      return;
    }
    std::vector<py::array> Arrays = arraysByInput(Feed);
    size_t N = Arrays.size();
    bool Resize = false;
    std::vector<std::vector<int64_t>> Dims(N);
    for (size_t I = 0; I < N; ++I) {
      kiln_tensor_info Info;
      kiln_session_input_info(Handle, I, &Info);
      const py::array &A = Arrays[I];
      auto Want = numpyDtype(Info.dtype);
      if (!Want || !A.dtype().equal(*Want))
        raiseDiagnosis(
            {ExitCode::Usage,
             Path + ": input '" + Info.name + "' is " +
                 std::string(py::str(A.dtype())) + "; the model takes " +
                 (Want ? std::string(py::str(*Want)) : "bfloat16") +
                 (Want ? " (convert it with .astype(np." +
                             std::string(py::str(*Want)) + "))"
                       : "")});
      Dims[I].assign(A.shape(), A.shape() + A.ndim());
      Resize |= Dims[I] != std::vector<int64_t>(Info.shape, Info.shape + Info.rank);
    }
    if (Resize)
      resizeTo(Dims); // a static model refuses other shapes, naming them
    for (size_t I = 0; I < N; ++I) {
      const py::array &A = Arrays[I];
      void *Own = nullptr;
      size_t OwnBytes = 0;
      if (Owner.use_count() > 1 &&
          kiln_session_input_buffer(Handle, I, &Own, &OwnBytes) == KILN_OK &&
          Own == A.data() && OwnBytes == size_t(A.nbytes()))
        continue; // the array is the input's own bytes (input_array())
      kiln_status S = kiln_session_set_input(Handle, I, A.data(), size_t(A.nbytes()));
      if (S != KILN_OK)
        raiseStatus(S, Path);
    }
  }

  py::dict fetchOutputs() {
    py::dict Out;
    for (size_t I = 0; I < kiln_model_num_outputs(Model); ++I) {
      kiln_tensor_info Info;
      kiln_session_output_info(Handle, I, &Info);
      const void *Data = nullptr;
      size_t Bytes = 0;
      kiln_status S = kiln_session_get_output(Handle, I, &Data, &Bytes);
      if (S != KILN_OK)
        raiseStatus(S, Path);
      py::dtype Dt = numpyDtypeOf(Info, "output", ExitCode::BadInput);
      std::vector<py::ssize_t> Shape(Info.shape, Info.shape + Info.rank);
      py::array A(Dt, Shape); // the one copy out: runs reuse the arena
      std::memcpy(A.mutable_data(), Data, Bytes);
      Out[py::str(Info.name)] = A;
    }
    return Out;
  }

  std::string Path;
  kiln_model *Model = nullptr;
  kiln_session *Handle = nullptr;
  std::shared_ptr<NativeSession> Owner;
  std::mutex M; // one run at a time per session
};

} // namespace

void addSession(py::module_ &M) {
  py::class_<Session>(M, "Session", R"doc(
A .kiln file loaded and ready to run (any target this runtime has: CPU,
Vulkan, NNAPI; partitioned files too).

    s = kiln.Session("model.kiln", threads=4)
    out = s.run({"input": x})          # or s.run(x) for one input
    s.inputs, s.outputs                # names, shapes, dtypes, layouts

Inputs are numpy arrays (anything numpy.asarray takes) of the model's
dtypes; a batch-polymorphic model is resized to the shapes given. Each
output is a new array (one copy out of the session's memory). Runs release
the GIL; one session runs one call at a time, so use a session per thread
for parallel runs.
)doc")
      .def(py::init<const py::object &, std::optional<unsigned>,
                    const py::kwargs &>(),
           py::arg("path"), py::arg("threads") = py::none(),
           "Loads PATH. threads: worker threads (None: every core; 1: the "
           "calling thread). Options, each read only by a file for its "
           "target (None: the runtime's default; kiln/kiln.h has each "
           "one's meaning): CPU force_reference, disable_onednn, "
           "huge_page_weights; any target verify_weight_hashes (hash every "
           "weight first, as `kiln verify`), max_arena_bytes, "
           "keep_intermediates; Vulkan vulkan_device (index), "
           "vulkan_validation, pipeline_cache_dir, fp16_arithmetic (False: "
           "fp32 kernels for an fp16 file), robust_buffer_access, "
           "run_timeout_ms; NNAPI nnapi_library, nnapi_preference "
           "('low_power', 'fast_single_answer', 'sustained_speed'), "
           "nnapi_disallow_cpu, nnapi_cache_dir; Metal "
           "metal_binary_archive.")
      .def_property_readonly("inputs", &Session::inputs,
                             "The model's inputs: name, shape (None for a "
                             "symbolic dim, which run() takes any size of), "
                             "dtype, layout")
      .def_property_readonly("outputs", &Session::outputs,
                             "The model's outputs, as inputs")
      .def_property_readonly("target", &Session::target,
                             "The target the file was compiled for")
      .def("run", &Session::run, py::arg("inputs") = py::none(),
           "Runs the model: INPUTS is a dict of arrays by input name, a list "
           "in input order, or one array for a one-input model; each is "
           "copied once into the session, except an array from "
           "input_array(). None: the inputs as they are. Returns the "
           "outputs by name.")
      .def("input_array", &Session::inputArray, py::arg("input"),
           "A writable numpy array over the session's own bytes of INPUT "
           "(a name or an index): fill it (np.copyto, a decoder writing "
           "into it, out= of a numpy function) and call run() with no "
           "arguments, and the input is never copied. The array stays the "
           "input until the session is resized to other shapes (refused "
           "while such arrays exist) and keeps the session's memory alive "
           "after close().")
      .def("resize", &Session::resize, py::arg("shapes"),
           "Sizes a batch-polymorphic session for SHAPES (input name -> "
           "shape); run() does this itself for arrays of other shapes.")
      .def("profile", &Session::profile, py::arg("inputs") = py::none(),
           "One run with every operator timed: a list of {kind, name, "
           "engine, ms} in execution order.")
      .def("self_test", &Session::selfTest,
           "Runs the file's self-test (kiln.convert(..., self_test=True)) "
           "on this session's device: its samples, twice, against its "
           "references. Returns {passed, deterministic, worst_output, "
           "max_error, relative_error, tolerance, compared, non_finite, "
           "run_ms}; raises for a file without one. The inputs hold the "
           "samples afterwards.")
      .def("close", &Session::close,
           "Frees the session now (once no input_array() array views it).")
      .def("__enter__", [](py::object Self) { return Self; })
      .def("__exit__", [](Session &S, py::args) { S.close(); });
}

} // namespace kiln::python

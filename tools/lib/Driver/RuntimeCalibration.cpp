#include "Driver/RuntimeCalibration.h"

#include "backends/common/KilnWriter.h"
#include "backends/kilnops/KilnOps.h"
#include "kiln/kiln.h"

#include "Support/Error.h"
#include "Support/Logging.h"
#include "Support/Scratch.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"

#include <set>

namespace kiln {

namespace {

struct ModelDeleter {
  void operator()(kiln_model *M) const { kiln_model_destroy(M); }
};
using ModelPtr = std::unique_ptr<kiln_model, ModelDeleter>;

/// Graph value -> index of the runtime tensor holding it.
using ValueReads = std::vector<std::pair<const Value *, size_t>>;

llvm::Error runtimeFailure(const char *What) {
  return internalError("calibration on the kiln runtime: {0}: {1}", What,
                       kiln_last_error());
}

class RuntimeExecutor : public SampleExecutor {
public:
  RuntimeExecutor(kiln_session *S, const ValueReads &Reads)
      : Session(S), Reads(Reads) {}
  ~RuntimeExecutor() override { kiln_session_destroy(Session); }
  RuntimeExecutor(const RuntimeExecutor &) = delete;
  RuntimeExecutor &operator=(const RuntimeExecutor &) = delete;

  llvm::Error run(llvm::ArrayRef<Tensor> Inputs, ObserveFn Observe) override {
    for (size_t I = 0; I < Inputs.size(); ++I)
      if (kiln_session_set_input(Session, I, Inputs[I].buffer().data(),
                                 Inputs[I].buffer().size()) != KILN_OK)
        return runtimeFailure("setting an input");
    if (kiln_session_run(Session) != KILN_OK)
      return runtimeFailure("running");
    for (const auto &[V, T] : Reads) {
      kiln_tensor_value TV;
      if (kiln_session_tensor(Session, T, &TV) != KILN_OK)
        return runtimeFailure("reading a tensor");
      Observe(V, static_cast<const float *>(TV.data),
              TV.info.byte_size / sizeof(float));
    }
    return llvm::Error::success();
  }

private:
  kiln_session *Session;
  const ValueReads &Reads;
};

/// The CPU's model name (Linux), or "".
std::string cpuModelName() {
  auto Info = llvm::MemoryBuffer::getFileAsStream("/proc/cpuinfo");
  if (!Info)
    return "";
  llvm::SmallVector<llvm::StringRef, 64> Lines;
  (*Info)->getBuffer().split(Lines, '\n');
  for (llvm::StringRef L : Lines)
    if (L.startswith("model name"))
      return L.split(':').second.trim().str();
  return "";
}

class RuntimeEngine : public CalibrationEngine {
public:
  RuntimeEngine(ModelPtr Model, ValueReads Reads)
      : Model(std::move(Model)), Reads(std::move(Reads)) {}

  llvm::Expected<std::unique_ptr<SampleExecutor>> newExecutor() override {
    kiln_session_options O;
    kiln_session_options_init(&O);
    O.num_threads = 1; // parallel over samples, not inside kernels
    O.keep_intermediates = 1;
    kiln_session *S = nullptr;
    if (kiln_session_create(Model.get(), &O, &S) != KILN_OK)
      return runtimeFailure("creating a session");
    for (size_t I = 0; I < kiln_session_num_operators(S); ++I)
      Libraries.insert(kiln_session_operator_engine(S, I));
    return std::make_unique<RuntimeExecutor>(S, Reads);
  }

  /// "kiln runtime (onednn, reference, xnnpack) on <CPU>": the kernel
  /// libraries that ran, and the CPU whose instruction set they chose.
  std::string name() const override {
    std::string N = "kiln runtime (";
    for (const std::string &L : Libraries)
      N += (N.back() == '(' ? "" : ", ") + L;
    N += ")";
    std::string Cpu = cpuModelName();
    return Cpu.empty() ? N : N + " on " + Cpu;
  }

private:
  ModelPtr Model;
  ValueReads Reads;
  std::set<std::string> Libraries;
};

/// Lowers G for the CPU and writes it to Path (when not empty); the values
/// calibration observes and the runtime tensors holding them. Why is set
/// (and nothing written) when the CPU lowering cannot stand in for the
/// graph. When Path cannot be written (no space, no folder), the lowering
/// is loaded from memory into InMemory instead, with a warning. The lowered
/// module is gone when this returns: only the file holds its weights.
llvm::Expected<ValueReads> writeCpuLowering(const Graph &G,
                                            llvm::StringRef Path,
                                            std::string &Why,
                                            ModelPtr &InMemory) {
  auto Compiled = lowerToKilnOps(G);
  if (!Compiled) {
    Why = llvm::toString(Compiled.takeError());
    return ValueReads();
  }
  const KilnModule &M = Compiled->Module;
  ValueReads Reads;
  for (const Node &N : G.nodes()) {
    if (N.isOp("const"))
      continue;
    for (unsigned I = 0; I < N.numResults(); ++I) {
      const Value *V = N.result(I);
      if (V->type().Elem != ElementType::F32)
        continue;
      auto It = Compiled->ValueTensors.find(V);
      if (It == Compiled->ValueTensors.end()) {
        Why = "no tensor of the CPU lowering holds '" + V->name() + "'";
        return ValueReads();
      }
      const fb::TensorT &T = *M.Model.tensors[size_t(It->second)];
      int64_t Elements = 1;
      for (int64_t D : T.shape)
        Elements *= D;
      if (T.dtype != fb::DType::F32 ||
          Elements != numElements(V->type().Dims).getValueOr(-1)) {
        Why = "the CPU lowering changes '" + V->name() + "'";
        return ValueReads();
      }
      Reads.emplace_back(V, size_t(It->second));
    }
  }
  if (!Path.empty()) {
    llvm::Error E = writeKilnFile(Path, Compiled->Module);
    if (!E)
      return Reads;
    log().warn("calibration: {}; the float model is held in memory instead",
               llvm::toString(std::move(E)));
  }
  auto Bytes = serializeKilnModule(Compiled->Module);
  if (!Bytes)
    return Bytes.takeError();
  kiln_model *Raw = nullptr;
  if (kiln_model_load_buffer(Bytes->data(), Bytes->size(), &Raw) != KILN_OK)
    return runtimeFailure("loading the lowered model");
  InMemory.reset(Raw);
  return Reads;
}

} // namespace

llvm::Expected<std::unique_ptr<CalibrationEngine>>
runtimeCalibrationEngine(const Graph &G) {
  // The lowered model goes through a scratch file, as a .kiln would, rather
  // than a string: the runtime maps it, so its weights are page cache (one
  // resident copy while the samples run, none on the heap), and the graph's
  // own weights leave resident memory as they are written.
  llvm::SmallString<256> Path;
  if (std::error_code EC = llvm::sys::fs::createUniqueFile(
          scratchDirectory() + "/.kiln-calibration-%%%%%%%%.kiln", Path)) {
    log().warn("calibration: {}: cannot create a scratch file ({}); the float "
               "model is held in memory instead",
               scratchDirectory(), EC.message());
    Path.clear();
  }
  llvm::FileRemover Remove(Path);
  std::string Why;
  ModelPtr Model;
  auto Reads = writeCpuLowering(G, Path, Why, Model);
  if (!Reads)
    return Reads.takeError();
  if (!Why.empty()) {
    log().info("calibration: {}; the reference interpreter runs the samples",
               Why);
    return nullptr;
  }
  if (!Model) {
    kiln_model *Raw = nullptr;
    if (kiln_model_load(Path.c_str(), &Raw) != KILN_OK)
      return runtimeFailure("loading the lowered model");
    Model.reset(Raw);
  }
  kiln_model *Raw = Model.get();
  if (kiln_model_num_inputs(Raw) != G.numInputs()) {
    log().info("calibration: the CPU lowering has other inputs; the "
               "reference interpreter runs the samples");
    return nullptr;
  }
  log().info("calibration: the kiln runtime runs the samples ({} values "
             "read per sample)",
             Reads->size());
  return std::make_unique<RuntimeEngine>(std::move(Model), std::move(*Reads));
}

} // namespace kiln

#include "Tooling/CompiledModel.h"

#include "Tooling/KilnTensorView.h"
#include "Support/Error.h"

#include "kiln/kiln.h"

#include <cstring>

namespace kiln {

void CompiledModel::ModelDeleter::operator()(kiln_model *M) const {
  kiln_model_destroy(M);
}
void CompiledModel::SessionDeleter::operator()(kiln_session *S) const {
  kiln_session_destroy(S);
}

CompiledModel::~CompiledModel() = default;

llvm::Error CompiledModel::fail(const char *What) const {
  return inputError("{0}: {1}: {2}", Path, What, kiln_last_error());
}

/// A symbolic dim of a batch-polymorphic file (-1) becomes an unknown dim,
/// which takes any size.
static CompiledIo ioOf(const kiln_tensor_info &I) {
  Shape S;
  for (size_t D = 0; D < I.rank; ++D)
    S.push_back(I.shape[D] < 0 ? Dim() : Dim(I.shape[D]));
  return {I.name, TensorType(static_cast<ElementType>(I.dtype), S)};
}

bool CompiledModel::isPolymorphic() const {
  for (const auto *Io : {&Inputs, &Outputs})
    for (const CompiledIo &X : *Io)
      if (!X.Type.isStatic())
        return true;
  return false;
}

llvm::Error CompiledModel::resizeFor(llvm::ArrayRef<Tensor> In) {
  std::vector<std::vector<int64_t>> Shapes;
  std::vector<const int64_t *> Pointers;
  for (const Tensor &T : In)
    Shapes.push_back(staticSizes(T.type().Dims));
  for (const auto &S : Shapes)
    Pointers.push_back(S.data());
  if (kiln_session_resize_inputs(Session.get(), Pointers.size(),
                                 Pointers.data()) != KILN_OK)
    return fail("sizing the session for the inputs");
  return llvm::Error::success();
}

llvm::Expected<CompiledModel> CompiledModel::load(llvm::StringRef Path) {
  CompiledModel M;
  M.Path = Path.str();
  kiln_model *Raw = nullptr;
  if (kiln_model_load(M.Path.c_str(), &Raw) != KILN_OK)
    return inputError("{0}", kiln_last_error());
  M.Model.reset(Raw);
  for (size_t I = 0; I < kiln_model_num_inputs(Raw); ++I) {
    kiln_tensor_info Info;
    if (kiln_model_input_info(Raw, I, &Info) != KILN_OK)
      return M.fail("reading its inputs");
    M.Inputs.push_back(ioOf(Info));
  }
  for (size_t I = 0; I < kiln_model_num_outputs(Raw); ++I) {
    kiln_tensor_info Info;
    if (kiln_model_output_info(Raw, I, &Info) != KILN_OK)
      return M.fail("reading its outputs");
    M.Outputs.push_back(ioOf(Info));
  }
  return M;
}

llvm::Error CompiledModel::createSession(const SessionSettings &S) {
  kiln_cpu_options Cpu;
  kiln_cpu_options_init(&Cpu);
  Cpu.force_reference = S.ForceReference;
  Cpu.disable_onednn = S.DisableOnednn;
  Cpu.huge_page_weights = S.HugePages;
  kiln_vulkan_options Vulkan;
  kiln_vulkan_options_init(&Vulkan);
  Vulkan.device_index = S.VulkanDevice;
  Vulkan.validation = S.VulkanValidation;
  Vulkan.pipeline_cache_dir =
      S.PipelineCacheDir.empty() ? nullptr : S.PipelineCacheDir.c_str();
  kiln_session_options O;
  kiln_session_options_init(&O);
  O.num_threads = S.Threads;
  O.keep_intermediates = S.KeepIntermediates;
  O.verify_weight_hashes = S.VerifyWeightHashes;
  O.cpu = &Cpu;
  O.vulkan = &Vulkan;
  std::vector<const int64_t *> Shapes;
  for (const auto &Shape : S.InputShapes)
    Shapes.push_back(Shape.data());
  if (!Shapes.empty() && isPolymorphic()) {
    O.input_shapes = Shapes.data();
    O.num_input_shapes = Shapes.size();
  }
  kiln_session *Raw = nullptr;
  if (kiln_session_create(Model.get(), &O, &Raw) != KILN_OK)
    return fail(isVulkan() ? "creating a Vulkan session"
                           : "creating a session");
  Session.reset(Raw);
  return llvm::Error::success();
}

llvm::Expected<std::vector<Tensor>>
CompiledModel::run(llvm::ArrayRef<Tensor> In) {
  if (llvm::Error E = setInputs(In))
    return E;
  if (llvm::Error E = rerun())
    return E;
  return outputValues();
}

llvm::Error CompiledModel::setInputs(llvm::ArrayRef<Tensor> In) {
  if (!Session) {
    SessionSettings EveryCore;
    EveryCore.Threads = 0;
    if (llvm::Error E = createSession(EveryCore))
      return E;
  }
  if (isPolymorphic())
    if (llvm::Error E = resizeFor(In))
      return E;
  for (size_t I = 0; I < In.size(); ++I)
    if (kiln_session_set_input(Session.get(), I, In[I].buffer().data(),
                               In[I].buffer().size()) != KILN_OK)
      return fail("setting an input");
  return llvm::Error::success();
}

std::optional<kiln_image_info> CompiledModel::imageInput(size_t Index) const {
  kiln_image_info Info;
  if (kiln_model_input_image(Model.get(), Index, &Info) != KILN_OK)
    return std::nullopt;
  return Info;
}

llvm::Error CompiledModel::setImage(size_t Index, const uint8_t *Pixels,
                                    int64_t Width, int64_t Height,
                                    size_t RowStride, kiln_pixel_format Format) {
  if (!Session || kiln_session_set_image(Session.get(), Index, Pixels, Width,
                                         Height, RowStride, Format,
                                         nullptr) != KILN_OK)
    return fail("setting an image input");
  return llvm::Error::success();
}

llvm::Error CompiledModel::runOperators(size_t First, size_t Count) {
  if (!Session || kiln_session_run_operators(Session.get(), First, Count) != KILN_OK)
    return fail("running operators one at a time");
  return llvm::Error::success();
}

llvm::Expected<std::vector<Tensor>> CompiledModel::outputValues() {
  std::vector<Tensor> Out;
  for (size_t I = 0; I < Outputs.size(); ++I) {
    const void *Data = nullptr;
    size_t Bytes = 0;
    kiln_tensor_info Info;
    if (kiln_session_get_output(Session.get(), I, &Data, &Bytes) != KILN_OK ||
        kiln_session_output_info(Session.get(), I, &Info) != KILN_OK)
      return fail("reading an output");
    Out.emplace_back(ioOf(Info).Type,
                     Buffer::copy({static_cast<const uint8_t *>(Data), Bytes}));
  }
  return Out;
}

bool CompiledModel::hasSelfTest() const {
  return kiln_model_has_self_test(Model.get()) != 0;
}

llvm::Expected<kiln_self_test_result> CompiledModel::selfTest() {
  kiln_self_test_result R;
  R.struct_size = sizeof R;
  if (!Session || kiln_session_self_test(Session.get(), &R) != KILN_OK)
    return fail("running the self-test");
  return R;
}

llvm::Error CompiledModel::rerun() {
  if (kiln_session_run(Session.get()) != KILN_OK)
    return fail("running");
  return llvm::Error::success();
}

std::vector<CompiledModel::OperatorInfo> CompiledModel::operators() const {
  std::vector<OperatorInfo> Ops;
  for (size_t I = 0; Session && I < kiln_session_num_operators(Session.get());
       ++I) {
    kiln_operator_info Info;
    if (kiln_session_operator_info(Session.get(), I, &Info) == KILN_OK)
      Ops.push_back({Info.kind, Info.name,
                     kiln_session_operator_engine(Session.get(), I),
                     Info.last_run_ms});
  }
  return Ops;
}

std::vector<CompiledModel::PartitionInfo> CompiledModel::partitions() const {
  std::vector<PartitionInfo> Parts;
  for (size_t I = 0; Session && I < kiln_session_num_partitions(Session.get());
       ++I) {
    kiln_partition_info Info;
    Info.struct_size = sizeof Info;
    if (kiln_session_partition_info(Session.get(), I, &Info) == KILN_OK)
      Parts.push_back({Info.target, Info.first_operator, Info.num_operators,
                       Info.last_run_ms, Info.last_transfer_ms});
  }
  return Parts;
}

std::optional<CompiledModel::OperatorOutput>
CompiledModel::operatorOutput(size_t Op) const {
  size_t T = 0;
  kiln_tensor_value V;
  if (!Session || kiln_session_operator_output(Session.get(), Op, 0, &T) != KILN_OK ||
      kiln_session_tensor(Session.get(), T, &V) != KILN_OK)
    return std::nullopt;
  std::optional<Tensor> Ir = toIrView(V);
  if (!Ir)
    return std::nullopt;
  OperatorOutput Out{std::move(*Ir), V.info.name ? V.info.name : "", std::nullopt};
  bool Int8 = V.info.dtype == KILN_DTYPE_I8 || V.info.dtype == KILN_DTYPE_U8;
  if (Int8 && V.num_scales == 1)
    Out.Quantum = double(V.scales[0]);
  return Out;
}

CompiledModel::SetOutcome CompiledModel::setOperatorOutput(size_t Op,
                                                          const Tensor &Ir) {
  size_t T = 0;
  kiln_tensor_value V;
  if (!Session || kiln_session_operator_output(Session.get(), Op, 0, &T) != KILN_OK ||
      kiln_session_tensor(Session.get(), T, &V) != KILN_OK)
    return SetOutcome::Refused;
  // A graph output is the caller's to read as the model's result. With
  // intermediates kept, no two tensors share bytes, so the output's bytes
  // identify it (names do not: a layout copy may carry the output's name).
  for (size_t I = 0; I < Outputs.size(); ++I) {
    const void *Data = nullptr;
    size_t Bytes = 0;
    if (kiln_session_get_output(Session.get(), I, &Data, &Bytes) == KILN_OK &&
        Data == V.data)
      return SetOutcome::GraphOutput;
  }
  std::optional<std::vector<uint8_t>> Bytes = fromIrView(Ir, V);
  if (!Bytes || kiln_session_set_tensor(Session.get(), T, Bytes->data(),
                                        Bytes->size()) != KILN_OK)
    return SetOutcome::Refused;
  return SetOutcome::Set;
}

std::string CompiledModel::target() const {
  const char *T = Model ? kiln_model_target(Model.get()) : nullptr;
  return T ? T : "";
}

CompiledModel::EngineInfo CompiledModel::engineInfo() const {
  EngineInfo Out;
  kiln_engine_info I;
  I.struct_size = sizeof I;
  if (!Session || kiln_session_engine_info(Session.get(), &I) != KILN_OK)
    return Out;
  Out.Target = I.target ? I.target : "";
  Out.Device = I.device ? I.device : "";
  Out.Dispatches = I.dispatches;
  Out.Pipelines = I.pipelines;
  Out.PipelineCacheBytes = I.pipeline_cache_bytes;
  Out.GpuTimestamps = I.gpu_timestamps != 0;
  Out.Precision = I.precision ? I.precision : "";
  Out.WeightsMappedBytes = I.weights_mapped_bytes;
  Out.WeightsReleasedBytes = I.weights_released_bytes;
  return Out;
}

void CompiledModel::setProfiling(bool On) {
  if (Session)
    (void)kiln_session_set_profiling(Session.get(), On);
}

size_t CompiledModel::arenaBytes() const {
  return Session ? kiln_session_arena_bytes(Session.get()) : 0;
}

size_t CompiledModel::scratchBytes() const {
  return Session ? kiln_session_scratch_bytes(Session.get()) : 0;
}

} // namespace kiln

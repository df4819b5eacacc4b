// The C API (include/kiln/kiln.h) over LoadedModel and Session. Every entry
// point checks its arguments, never throws (allocation failures become
// KILN_ERROR_OUT_OF_MEMORY) and records the message of a failure for
// kiln_last_error() on the calling thread.
#include "kiln/kiln.h"

#include "gpu/KernelCatalog.h"
#include "image/FrameResize.h"
#include "loader/LoadedModel.h"
#include "loader/OpValidation.h"
#include "target/RuntimeTargets.h"
#include "loader/WeightHashes.h"
#include "session/SelfTest.h"
#include "session/Session.h"
#include "schema/KilnSchemaVersion.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <new>

using namespace kiln::rt;

struct kiln_model {
  std::shared_ptr<const LoadedModel> Model;
  std::vector<kiln_tensor_info> Inputs, Outputs;
  /// A batch-polymorphic model's input and output shapes, -1 for each
  /// symbolic dim (what Inputs and Outputs point at).
  std::vector<std::vector<int64_t>> OpenShapes;
};

struct kiln_session {
  std::unique_ptr<Session> S;
  std::vector<std::string> Kinds; // storage for kiln_operator_info::kind
  std::string Device;             // storage for kiln_engine_info::device
  std::string Precision;          // storage for kiln_engine_info::precision
  /// kiln_session_set_image's resized frame, kept between calls (a fresh
  /// buffer of this size would be mapped and faulted in on every frame).
  std::vector<uint8_t> Image;
};

namespace {

thread_local std::string LastError;

kiln_status fail(const Status &S) {
  LastError = S.message();
  return S.code();
}

kiln_status failArgument(const char *Message) {
  LastError = Message;
  return KILN_ERROR_INVALID_ARGUMENT;
}

/// Runs F, turning a thrown std::bad_alloc into KILN_ERROR_OUT_OF_MEMORY.
template <typename Fn> kiln_status guarded(Fn &&F) {
  try {
    return F();
  } catch (const std::bad_alloc &) {
    LastError = "out of memory";
    return KILN_ERROR_OUT_OF_MEMORY;
  } catch (...) {
    LastError = "internal error in the kiln runtime";
    return KILN_ERROR_RUNTIME;
  }
}

kiln_tensor_info infoOf(const TensorDesc &D) {
  kiln_tensor_info I;
  I.name = D.Name.c_str();
  I.dtype = static_cast<kiln_dtype>(D.DType);
  // A C4 activation reaches the host as NHWC (gpu/GpuReadback.h).
  I.layout = D.Layout == kiln::fb::Layout::NCHW ? KILN_LAYOUT_NCHW
             : D.Layout == kiln::fb::Layout::NHWC || D.Layout == kiln::fb::Layout::C4
                 ? KILN_LAYOUT_NHWC
                 : KILN_LAYOUT_PLAIN;
  I.rank = D.Shape.size();
  I.shape = D.Shape.data();
  I.byte_size = size_t(D.Bytes);
  return I;
}

kiln_status finishLoad(std::shared_ptr<ModelBytes> Bytes,
                       kiln_model **OutModel) {
  std::shared_ptr<const LoadedModel> LM;
  if (Status S = loadVerifiedModel(std::move(Bytes), LM))
    return fail(S);
  auto M = std::make_unique<kiln_model>();
  M->Model = LM;
  M->OpenShapes.reserve(LM->Inputs.size() + LM->Outputs.size());
  auto Describe = [&](int32_t T) {
    kiln_tensor_info I = infoOf(LM->Tensors[size_t(T)]);
    if (!LM->isPolymorphic() || LM->TensorSymbols[size_t(T)].empty())
      return I;
    std::vector<int64_t> Shape = LM->Tensors[size_t(T)].Shape;
    for (const SymbolicDimDesc &D : LM->TensorSymbols[size_t(T)])
      Shape[size_t(D.Axis)] = -1;
    M->OpenShapes.push_back(std::move(Shape));
    I.shape = M->OpenShapes.back().data();
    I.byte_size = 0;
    return I;
  };
  for (int32_t T : LM->Inputs)
    M->Inputs.push_back(Describe(T));
  for (int32_t T : LM->Outputs)
    M->Outputs.push_back(Describe(T));
  *OutModel = M.release();
  return KILN_OK;
}

/// The C API's input shapes (a pointer per input, each to that input's
/// rank dims, or null) as the session takes them.
Status readInputShapes(const LoadedModel &M, size_t Count,
                       const int64_t *const *Shapes,
                       std::vector<std::vector<int64_t>> &Out) {
  if (Count != M.Inputs.size())
    return invalidArgument(Count, " input shapes for a model with ",
                           M.Inputs.size(), " inputs");
  Out.assign(Count, {});
  for (size_t I = 0; I < Count; ++I)
    if (Shapes[I]) {
      const TensorDesc &D = M.Tensors[size_t(M.Inputs[I])];
      Out[I].assign(Shapes[I], Shapes[I] + D.Shape.size());
    }
  return Status::ok();
}

kiln_status sessionInfo(const kiln_session *Session, size_t Index, bool Input,
                        kiln_tensor_info *Out) {
  if (!Session || !Out)
    return failArgument("kiln_session_input_info/output_info: null argument");
  const LoadedModel &M = Session->S->model();
  const std::vector<int32_t> &Io = Input ? M.Inputs : M.Outputs;
  if (Index >= Io.size())
    return failArgument("kiln_session_input_info/output_info: index out of "
                        "range");
  *Out = infoOf(M.Tensors[size_t(Io[Index])]);
  return KILN_OK;
}

} // namespace

extern "C" {

const char *kiln_version(void) { return KILN_RUNTIME_VERSION; }

void kiln_schema_version(uint32_t *Major, uint32_t *Minor) {
  if (Major)
    *Major = kiln::fb::SchemaMajor;
  if (Minor)
    *Minor = kiln::fb::SchemaMinor;
}

const char *kiln_last_error(void) { return LastError.c_str(); }

kiln_status kiln_model_load(const char *Path, kiln_model **OutModel) {
  if (!Path || !OutModel)
    return failArgument("kiln_model_load: null argument");
  *OutModel = nullptr;
  return guarded([&] {
    std::shared_ptr<ModelBytes> Bytes;
    if (Status S = ModelBytes::mapFile(Path, Bytes))
      return fail(S);
    kiln_status R = finishLoad(std::move(Bytes), OutModel);
    if (R != KILN_OK)
      LastError = std::string(Path) + ": " + LastError;
    return R;
  });
}

kiln_status kiln_model_load_buffer(const void *Data, size_t Size,
                                   kiln_model **OutModel) {
  if (!OutModel)
    return failArgument("kiln_model_load_buffer: null argument");
  *OutModel = nullptr;
  return guarded([&] {
    std::shared_ptr<ModelBytes> Bytes;
    if (Status S = ModelBytes::copyBuffer(Data, Size, Bytes))
      return fail(S);
    return finishLoad(std::move(Bytes), OutModel);
  });
}

kiln_status kiln_verify_buffer(const void *Data, size_t Size) {
  if (!Data || Size == 0)
    return failArgument("kiln_verify_buffer: empty or null buffer");
  return guarded([&] {
    std::shared_ptr<const LoadedModel> LM;
    if (Status S = loadVerifiedModel(ModelBytes::borrow(Data, Size), LM))
      return fail(S);
    return KILN_OK;
  });
}

kiln_status kiln_set_gpu_kernel_policy(int Policy) {
  if (Policy != KILN_GPU_KERNELS_CATALOG && Policy != KILN_GPU_KERNELS_ANY_VALID)
    return failArgument("kiln_set_gpu_kernel_policy: unknown policy");
  allowAnyValidGpuKernel(Policy == KILN_GPU_KERNELS_ANY_VALID);
  return KILN_OK;
}

kiln_status kiln_verify_hashes(const void *Data, size_t Size,
                               kiln_hash_report *Report) {
  if (!Data || Size == 0)
    return failArgument("kiln_verify_hashes: empty or null buffer");
  if (Report && Report->struct_size < offsetof(kiln_hash_report, problems) +
                                          sizeof Report->problems)
    return failArgument("kiln_verify_hashes: report.struct_size is too small");
  if (Report) {
    size_t StructSize = Report->struct_size;
    *Report = kiln_hash_report{};
    Report->struct_size = StructSize;
  }
  return guarded([&] {
    std::shared_ptr<const LoadedModel> LM;
    if (Status S = loadVerifiedModel(ModelBytes::borrow(Data, Size), LM))
      return fail(S);
    HashCheck C = checkWeightHashes(*LM);
    std::vector<std::string> Problems = C.Mismatches;
    // A file of schema 1.7 or later records every hash: one missing is
    // damage (a zeroed field), not age.
    if (LM->Root->schema_minor() >= 7 || LM->Root->schema_major() > 1)
      for (const std::string &U : C.Unrecorded)
        Problems.push_back(U + ", which every file of schema 1.7 or later "
                               "records");
    if (Report) {
      Report->structure_hashed = C.StructureHashed;
      Report->segments_hashed = C.SegmentsHashed;
      Report->bytes_hashed = C.BytesHashed;
      Report->segments_without_hash = C.SegmentsWithoutHash;
      Report->problems = Problems.size();
    }
    if (Problems.empty())
      return KILN_OK;
    std::string Lines;
    for (const std::string &P : Problems)
      Lines += (Lines.empty() ? "" : "\n") + P;
    return fail(invalidModel(Lines));
  });
}

void kiln_model_destroy(kiln_model *Model) { delete Model; }

size_t kiln_model_num_inputs(const kiln_model *Model) {
  return Model ? Model->Inputs.size() : 0;
}

size_t kiln_model_num_outputs(const kiln_model *Model) {
  return Model ? Model->Outputs.size() : 0;
}

kiln_status kiln_model_input_info(const kiln_model *Model, size_t Index,
                                  kiln_tensor_info *Out) {
  if (!Model || !Out)
    return failArgument("kiln_model_input_info: null argument");
  if (Index >= Model->Inputs.size())
    return failArgument("kiln_model_input_info: index out of range");
  *Out = Model->Inputs[Index];
  return KILN_OK;
}

kiln_status kiln_model_output_info(const kiln_model *Model, size_t Index,
                                   kiln_tensor_info *Out) {
  if (!Model || !Out)
    return failArgument("kiln_model_output_info: null argument");
  if (Index >= Model->Outputs.size())
    return failArgument("kiln_model_output_info: index out of range");
  *Out = Model->Outputs[Index];
  return KILN_OK;
}

const char *kiln_model_target(const kiln_model *Model) {
  return Model ? targetName(Model->Model->Target) : nullptr;
}

const char *kiln_model_metadata(const kiln_model *Model, const char *Key) {
  if (!Model || !Key)
    return nullptr;
  auto It = Model->Model->Metadata.find(Key);
  return It == Model->Model->Metadata.end() ? nullptr : It->second.c_str();
}

void kiln_session_options_init(kiln_session_options *Options) {
  if (!Options)
    return;
  Options->struct_size = sizeof(kiln_session_options);
  Options->num_threads = 0;
  Options->force_reference = 0;
  Options->max_arena_bytes = 0;
  Options->keep_intermediates = 0;
  Options->disable_onednn = 0;
  Options->huge_page_weights = 0;
  Options->cpu = nullptr;
  Options->vulkan = nullptr;
  Options->nnapi = nullptr;
  Options->metal = nullptr;
  Options->verify_weight_hashes = 0;
  Options->input_shapes = nullptr;
  Options->num_input_shapes = 0;
}

void kiln_metal_options_init(kiln_metal_options *Options) {
  if (!Options)
    return;
  Options->struct_size = sizeof(kiln_metal_options);
  Options->binary_archive_path = nullptr;
}

void kiln_nnapi_options_init(kiln_nnapi_options *Options) {
  if (!Options)
    return;
  Options->struct_size = sizeof(kiln_nnapi_options);
  Options->library = nullptr;
  Options->preference = KILN_NNAPI_PREFER_FAST_SINGLE_ANSWER;
  Options->disallow_cpu = 0;
  Options->cache_dir = nullptr;
}

void kiln_vulkan_options_init(kiln_vulkan_options *Options) {
  if (!Options)
    return;
  Options->struct_size = sizeof(kiln_vulkan_options);
  Options->device_index = -1;
  Options->validation = 0;
  Options->pipeline_cache_dir = nullptr;
  Options->fp16_arithmetic = KILN_VULKAN_FP16_ARITHMETIC_AUTO;
  Options->robust_buffer_access = KILN_VULKAN_ROBUST_BUFFER_ACCESS_AUTO;
  Options->run_timeout_ms = 0;
}

void kiln_cpu_options_init(kiln_cpu_options *Options) {
  if (!Options)
    return;
  Options->struct_size = sizeof(kiln_cpu_options);
  Options->force_reference = 0;
  Options->disable_onednn = 0;
  Options->huge_page_weights = 0;
}

kiln_status kiln_session_create(const kiln_model *Model,
                                const kiln_session_options *Options,
                                kiln_session **OutSession) {
  if (!Model || !OutSession)
    return failArgument("kiln_session_create: null argument");
  *OutSession = nullptr;
  // The struct of a caller built before a field was appended ends at that
  // field.
  constexpr size_t KeepAt = offsetof(kiln_session_options, keep_intermediates);
  constexpr size_t OnednnAt = offsetof(kiln_session_options, disable_onednn);
  constexpr size_t HugeAt = offsetof(kiln_session_options, huge_page_weights);
  constexpr size_t CpuAt = offsetof(kiln_session_options, cpu);
  constexpr size_t VulkanAt = offsetof(kiln_session_options, vulkan);
  constexpr size_t NnapiAt = offsetof(kiln_session_options, nnapi);
  constexpr size_t MetalAt = offsetof(kiln_session_options, metal);
  constexpr size_t HashesAt = offsetof(kiln_session_options, verify_weight_hashes);
  constexpr size_t ShapesAt = offsetof(kiln_session_options, input_shapes);
  if (Options && Options->struct_size != sizeof(kiln_session_options) &&
      Options->struct_size != KeepAt && Options->struct_size != OnednnAt &&
      Options->struct_size != HugeAt && Options->struct_size != CpuAt &&
      Options->struct_size != VulkanAt && Options->struct_size != NnapiAt &&
      Options->struct_size != MetalAt && Options->struct_size != HashesAt &&
      Options->struct_size != ShapesAt)
    return failArgument("kiln_session_create: options not initialized with "
                        "kiln_session_options_init");
  return guarded([&] {
    SessionOptions O;
    if (Options) {
      O.Threads = Options->num_threads;
      O.MaxArenaBytes = Options->max_arena_bytes;
      O.KeepIntermediates =
          Options->struct_size > KeepAt && Options->keep_intermediates != 0;
      // Each target reads its own struct (cpu, vulkan, ...: RuntimeTarget).
      if (Status S = readTargetOptions(*Options, O))
        return fail(S);
    }
    if (Options && Options->struct_size > HashesAt &&
        Options->verify_weight_hashes != 0)
      if (Status S = verifyWeightHashes(*Model->Model))
        return fail(S);
    if (Options && Options->struct_size > ShapesAt && Options->input_shapes)
      if (Status S = readInputShapes(*Model->Model, Options->num_input_shapes,
                                     Options->input_shapes, O.InputShapes))
        return fail(S);
    auto KS = std::make_unique<kiln_session>();
    if (Status S = Session::create(Model->Model, O, KS->S))
      return fail(S);
    for (size_t I = 0; I < Model->Model->numOperators(); ++I)
      KS->Kinds.push_back(opKindName(Model->Model->op(I).kind()));
    *OutSession = KS.release();
    return KILN_OK;
  });
}

void kiln_session_destroy(kiln_session *Session) { delete Session; }

kiln_status kiln_session_resize_inputs(kiln_session *Session,
                                       size_t NumInputs,
                                       const int64_t *const *Shapes) {
  if (!Session || (NumInputs && !Shapes))
    return failArgument("kiln_session_resize_inputs: null argument");
  return guarded([&] {
    std::vector<std::vector<int64_t>> Wanted;
    if (Status S = readInputShapes(Session->S->model(), NumInputs, Shapes,
                                   Wanted))
      return fail(S);
    if (Status S = Session->S->resizeInputs(Wanted))
      return fail(S);
    return KILN_OK;
  });
}

kiln_status kiln_session_input_info(const kiln_session *Session, size_t Index,
                                    kiln_tensor_info *Out) {
  return sessionInfo(Session, Index, true, Out);
}

kiln_status kiln_session_output_info(const kiln_session *Session, size_t Index,
                                     kiln_tensor_info *Out) {
  return sessionInfo(Session, Index, false, Out);
}

kiln_status kiln_session_set_input(kiln_session *Session, size_t Index,
                                   const void *Data, size_t ByteSize) {
  if (!Session)
    return failArgument("kiln_session_set_input: null session");
  if (Status S = Session->S->setInput(Index, Data, ByteSize))
    return fail(S);
  return KILN_OK;
}

kiln_status kiln_session_input_buffer(kiln_session *Session, size_t Index,
                                     void **OutData, size_t *OutByteSize) {
  if (!Session || !OutData || !OutByteSize)
    return failArgument("kiln_session_input_buffer: null argument");
  uint8_t *Data = nullptr;
  size_t Bytes = 0;
  if (Status S = Session->S->inputBuffer(Index, &Data, &Bytes))
    return fail(S);
  *OutData = Data;
  *OutByteSize = Bytes;
  return KILN_OK;
}

kiln_status kiln_session_run(kiln_session *Session) {
  if (!Session)
    return failArgument("kiln_session_run: null session");
  return guarded([&] {
    if (Status S = Session->S->run())
      return fail(S);
    return KILN_OK;
  });
}

kiln_status kiln_session_run_operators(kiln_session *Session, size_t First,
                                       size_t Count) {
  if (!Session)
    return failArgument("kiln_session_run_operators: null session");
  return guarded([&] {
    if (Status S = Session->S->runOperators(First, Count))
      return fail(S);
    return KILN_OK;
  });
}

kiln_status kiln_session_set_tensor(kiln_session *Session, size_t Index,
                                    const void *Data, size_t Bytes) {
  if (!Session)
    return failArgument("kiln_session_set_tensor: null session");
  if (Status S = Session->S->setTensor(Index, Data, Bytes))
    return fail(S);
  return KILN_OK;
}

kiln_status kiln_session_get_output(kiln_session *Session, size_t Index,
                                    const void **Data, size_t *ByteSize) {
  if (!Session)
    return failArgument("kiln_session_get_output: null session");
  if (Status S = Session->S->output(Index, Data, ByteSize))
    return fail(S);
  return KILN_OK;
}

size_t kiln_session_num_operators(const kiln_session *Session) {
  return Session ? Session->S->numOperators() : 0;
}

kiln_status kiln_session_operator_info(const kiln_session *Session,
                                       size_t Index, kiln_operator_info *Out) {
  if (!Session || !Out)
    return failArgument("kiln_session_operator_info: null argument");
  if (Index >= Session->S->numOperators())
    return failArgument("kiln_session_operator_info: index out of range");
  const kiln::fb::Operator &Op = Session->S->model().op(Index);
  Out->kind = Session->Kinds[Index].c_str();
  Out->name = Op.name() ? Op.name()->c_str() : "";
  Out->uses_xnnpack = std::strcmp(Session->S->engine(Index), "xnnpack") == 0;
  const std::vector<uint64_t> &Times = Session->S->operatorTimes();
  Out->last_run_ms = Index < Times.size() ? double(Times[Index]) / 1e6 : 0.0;
  return KILN_OK;
}

const char *kiln_session_operator_engine(const kiln_session *Session,
                                         size_t Index) {
  if (!Session || Index >= Session->S->numOperators())
    return nullptr;
  return Session->S->engine(Index);
}

kiln_status kiln_session_set_profiling(kiln_session *Session, int Enable) {
  if (!Session)
    return failArgument("kiln_session_set_profiling: null session");
  Session->S->setProfiling(Enable != 0);
  return KILN_OK;
}

size_t kiln_session_arena_bytes(const kiln_session *Session) {
  return Session ? size_t(Session->S->arenaBytes()) : 0;
}

size_t kiln_session_scratch_bytes(const kiln_session *Session) {
  return Session ? size_t(Session->S->scratchBytes()) : 0;
}

int kiln_model_has_self_test(const kiln_model *Model) {
  return Model && Model->Model->Root->self_test() ? 1 : 0;
}

kiln_status kiln_session_self_test(kiln_session *Session,
                                   kiln_self_test_result *Out) {
  if (!Session || !Out)
    return failArgument("kiln_session_self_test: null argument");
  if (Out->struct_size < offsetof(kiln_self_test_result, deterministic))
    return failArgument("kiln_session_self_test: struct_size is too small");
  return guarded([&] {
    SelfTestOutcome T;
    if (Status S = runSelfTest(*Session->S, T))
      return fail(S);
    kiln_self_test_result R;
    R.struct_size = Out->struct_size;
    R.passed = T.Passed ? 1 : 0;
    R.deterministic = T.Deterministic ? 1 : 0;
    R.worst_output = T.WorstOutput;
    R.max_error = T.MaxError;
    R.tolerance = T.Tolerance;
    R.relative_error = T.RelativeError;
    R.compared = T.Compared;
    R.non_finite = T.NonFinite;
    R.run_ms = T.RunMs;
    std::memcpy(Out, &R, std::min(Out->struct_size, sizeof R));
    return KILN_OK;
  });
}

kiln_status kiln_session_engine_info(const kiln_session *Session,
                                     kiln_engine_info *Out) {
  if (!Session || !Out)
    return failArgument("kiln_session_engine_info: null argument");
  if (Out->struct_size < offsetof(kiln_engine_info, device))
    return failArgument("kiln_session_engine_info: struct_size is too small");
  return guarded([&] {
    EngineInfo E = Session->S->executor().engineInfo();
    // The session is const to the caller; the name is its own storage.
    const_cast<kiln_session *>(Session)->Device = E.Device;
    const_cast<kiln_session *>(Session)->Precision = E.Precision;
    kiln_engine_info I;
    I.struct_size = Out->struct_size;
    I.target = targetName(Session->S->model().Target);
    I.device = Session->Device.c_str();
    I.dispatches = E.Dispatches;
    I.pipelines = E.Pipelines;
    I.pipeline_cache_bytes = E.PipelineCacheBytes;
    I.gpu_timestamps = E.GpuTimestamps ? 1 : 0;
    I.precision = Session->Precision.c_str();
    I.weights_mapped_bytes = E.WeightsMappedBytes;
    I.weights_released_bytes = E.WeightsReleasedBytes;
    // A caller built against an older header gets the fields it knows.
    std::memcpy(Out, &I, std::min(Out->struct_size, sizeof I));
    return KILN_OK;
  });
}

size_t kiln_session_num_partitions(const kiln_session *Session) {
  if (!Session)
    return 0;
  size_t N = Session->S->executor().partitions().size();
  return N ? N : 1;
}

kiln_status kiln_session_partition_info(const kiln_session *Session,
                                        size_t Index,
                                        kiln_partition_info *Out) {
  if (!Session || !Out)
    return failArgument("kiln_session_partition_info: null argument");
  if (Out->struct_size != sizeof(kiln_partition_info))
    return failArgument("kiln_session_partition_info: set struct_size to "
                        "sizeof(kiln_partition_info)");
  std::vector<PartitionRun> Parts = Session->S->executor().partitions();
  if (Parts.empty()) { // the whole model on its target
    PartitionRun Whole;
    Whole.Target = Session->S->model().Target;
    Whole.NumOperators = Session->S->numOperators();
    for (uint64_t T : Session->S->operatorTimes())
      Whole.RunNs += T;
    Parts.push_back(Whole);
  }
  if (Index >= Parts.size())
    return failArgument("kiln_session_partition_info: index out of range");
  const PartitionRun &P = Parts[Index];
  Out->target = targetName(P.Target);
  Out->first_operator = P.FirstOperator;
  Out->num_operators = P.NumOperators;
  Out->last_run_ms = double(P.RunNs) / 1e6;
  Out->last_transfer_ms = double(P.TransferNs) / 1e6;
  return KILN_OK;
}

size_t kiln_session_num_tensors(const kiln_session *Session) {
  return Session ? Session->S->model().Tensors.size() : 0;
}

size_t kiln_session_operator_num_outputs(const kiln_session *Session,
                                         size_t Op) {
  if (!Session || Op >= Session->S->numOperators())
    return 0;
  const auto *Outs = Session->S->model().op(Op).outputs();
  return Outs ? Outs->size() : 0;
}

kiln_status kiln_session_operator_output(const kiln_session *Session,
                                         size_t Op, size_t K,
                                         size_t *OutTensor) {
  if (!Session || !OutTensor)
    return failArgument("kiln_session_operator_output: null argument");
  if (K >= kiln_session_operator_num_outputs(Session, Op))
    return failArgument("kiln_session_operator_output: operator or output "
                        "index out of range");
  int32_t T = Session->S->model().op(Op).outputs()->Get(unsigned(K));
  if (T < 0)
    return failArgument("kiln_session_operator_output: output not used");
  *OutTensor = size_t(T) + size_t(Session->S->model().tensorBase(Op));
  return KILN_OK;
}

kiln_status kiln_session_tensor(const kiln_session *Session, size_t Index,
                                kiln_tensor_value *Out) {
  if (!Session || !Out)
    return failArgument("kiln_session_tensor: null argument");
  const LoadedModel &M = Session->S->model();
  if (Index >= M.Tensors.size())
    return failArgument("kiln_session_tensor: index out of range");
  const TensorDesc &D = M.Tensors[Index];
  auto IsIo = [&](const std::vector<int32_t> &Io) {
    for (int32_t T : Io)
      if (size_t(T) == Index)
        return true;
    return false;
  };
  if (!D.isConstant() && !Session->S->keepsIntermediates() &&
      !IsIo(M.Inputs) && !IsIo(M.Outputs)) {
    LastError = "kiln_session_tensor: tensor " + std::to_string(Index) + " '" +
                D.Name + "' is an intermediate; create the session with "
                         "keep_intermediates to read it";
    return KILN_ERROR_INVALID_ARGUMENT;
  }
  const uint8_t *Data = Session->S->tensorData(Index);
  if (D.Layout == kiln::fb::Layout::PACKED) {
    LastError = "kiln_session_tensor: tensor " + std::to_string(Index) + " '" +
                D.Name + "' is a PACKED constant (its bytes are in the order "
                         "of the target's kernels, not its shape's)";
    return KILN_ERROR_UNSUPPORTED;
  }
  if (!Data && D.Bytes) {
    LastError = "kiln_session_tensor: tensor " + std::to_string(Index) + " '" +
                D.Name + "' has no bytes on the host on the " +
                targetName(M.Target) + " target (no place to read it back from)";
    return KILN_ERROR_UNSUPPORTED;
  }
  Out->info = infoOf(D);
  Out->data = Data;
  Out->num_scales = D.Scales.size();
  Out->scales = D.Scales.empty() ? nullptr : D.Scales.data();
  Out->zero_points = D.ZeroPoints.empty() ? nullptr : D.ZeroPoints.data();
  Out->quant_axis = D.QuantAxis;
  Out->is_constant = D.isConstant() ? 1 : 0;
  return KILN_OK;
}

} // extern "C"

extern "C" {

kiln_status kiln_model_input_image(const kiln_model *Model, size_t Index,
                                   kiln_image_info *Out) {
  if (!Model || !Out)
    return failArgument("kiln_model_input_image: null argument");
  const kiln::fb::ImageInputInfo *I = Model->Model->imageInput(Index);
  if (!I)
    return failArgument("kiln_model_input_image: not an image input");
  Out->format = kiln_pixel_format(I->format());
  Out->channels = I->channels();
  Out->channel_bgr = I->channel_bgr() ? 1 : 0;
  Out->num_mean = I->mean() ? I->mean()->size() : 0;
  Out->mean = I->mean() ? I->mean()->data() : nullptr;
  Out->num_std = I->std() ? I->std()->size() : 0;
  Out->std = I->std() ? I->std()->data() : nullptr;
  return KILN_OK;
}

void kiln_image_options_init(kiln_image_options *Options) {
  if (!Options)
    return;
  Options->struct_size = sizeof(kiln_image_options);
  Options->rotation = 0;
  Options->center_crop = 0;
}

kiln_status kiln_session_set_image(kiln_session *Session, size_t Index,
                                   const void *Pixels, int64_t Width,
                                   int64_t Height, size_t RowStride,
                                   kiln_pixel_format Format,
                                   const kiln_image_options *Options) {
  using kiln::numerics::PixelFormat;
  if (!Session)
    return failArgument("kiln_session_set_image: null session");
  const LoadedModel &M = Session->S->model();
  const kiln::fb::ImageInputInfo *Info = M.imageInput(Index);
  if (!Info)
    return failArgument("kiln_session_set_image: the input is not an image "
                        "input (convert with --image-input NAME=FORMAT)");
  auto Dst = PixelFormat(Info->format());
  const TensorDesc &T = M.Tensors[size_t(M.Inputs[Index])];
  // The loader checked the description against the tensor
  // (checkImageInputs); checked again here, as this call writes by it.
  if (T.DType != kiln::fb::DType::U8 || T.rank() != 4 ||
      kiln::numerics::pixelBytes(Dst) == 0 ||
      T.dim(3) != kiln::numerics::pixelBytes(Dst))
    return fail(invalidModel("image input '", T.Name, "' is not a ",
                             kiln::numerics::pixelFormatName(Dst), " frame"));
  if (T.dim(0) != 1)
    return fail(invalidArgument("kiln_session_set_image: input '", T.Name,
                                "' has a batch of ", T.dim(0),
                                "; set batches with kiln_session_set_input"));
  FrameView F;
  F.Pixels = static_cast<const uint8_t *>(Pixels);
  F.Width = Width;
  F.Height = Height;
  F.RowStride = RowStride;
  F.Format = PixelFormat(Format);
  FrameOptions O;
  if (Options) {
    if (Options->struct_size < sizeof(kiln_image_options))
      return failArgument("kiln_session_set_image: options not initialized "
                          "with kiln_image_options_init");
    O.Rotation = Options->rotation;
    O.CenterCrop = Options->center_crop != 0;
  }
  if (Status S = checkFrame(F, O, Dst))
    return fail(invalidArgument("kiln_session_set_image: ", S.message()));
  int64_t OutH = Dst == PixelFormat::Nv21 ? T.dim(1) / 3 * 2 : T.dim(1);
  return guarded([&] {
    std::vector<uint8_t> &Image = Session->Image;
    Image.resize(size_t(T.Bytes));
    resizeFrame(F, O, Dst, OutH, T.dim(2), Image.data(),
                Session->S->threadPool());
    if (Status S = Session->S->setInput(Index, Image.data(), Image.size()))
      return fail(S);
    return KILN_OK;
  });
}

} // extern "C"

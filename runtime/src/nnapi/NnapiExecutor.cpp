#include "nnapi/NnapiExecutor.h"

#include "nnapi/NnapiPayloadVerifier.h"
#include "nnapi/NnapiHostSteps.h"

#include <cerrno>
#include <chrono>
#include <sys/stat.h>
#include <cstdlib>
#include <cstring>

namespace kiln::rt {

namespace nn = kiln::nnapi;

namespace {

/// A failed NNAPI call: out of memory, or the device refusing the model.
Status nnError(const char *Call, int Code, const std::string &Detail = "") {
  std::string Message =
      concat("NNAPI ", Call, Detail.empty() ? "" : " (", Detail,
             Detail.empty() ? "" : ")", " failed: ", resultName(Code));
  if (Code == nn::OUT_OF_MEMORY)
    return {KILN_ERROR_OUT_OF_MEMORY, Message};
  return {KILN_ERROR_UNSUPPORTED, Message};
}

bool envFlag(const char *Name) {
  const char *V = std::getenv(Name);
  return V && std::strcmp(V, "1") == 0;
}

/// The 32-byte compilation cache token of a file: its metadata
/// source_hash and the bytes of the whole file (weights included), mixed
/// into four 64-bit lanes, 8 bytes at a time (FNV-1a's prime, then a
/// final avalanche). Not cryptographic: it only tells files apart.
void cacheToken(const LoadedModel &M, uint8_t *Token) {
  uint64_t Lane[4] = {0xcbf29ce484222325ull, 0x84222325cbf29ce4ull,
                      0x9e3779b97f4a7c15ull, 0xc2b2ae3d27d4eb4full};
  auto Mix = [&](size_t L, uint64_t W) {
    Lane[L] = (Lane[L] ^ W) * 0x100000001b3ull;
  };
  auto It = M.Metadata.find("source_hash");
  std::string Source = It == M.Metadata.end() ? "" : It->second;
  for (size_t I = 0; I < Source.size(); ++I)
    Mix(I % 4, uint8_t(Source[I]));
  const uint8_t *P = M.Bytes->data();
  size_t N = M.Bytes->size(), Words = N / 8;
  for (size_t I = 0; I < Words; ++I) {
    uint64_t W;
    std::memcpy(&W, P + I * 8, 8);
    Mix(I % 4, W);
  }
  for (size_t I = Words * 8; I < N; ++I)
    Mix(I % 4, P[I]);
  for (size_t L = 0; L < 4; ++L) {
    uint64_t H = Lane[L] ^ uint64_t(N) ^ Lane[(L + 1) % 4];
    H ^= H >> 33;
    H *= 0xff51afd7ed558ccdull;
    H ^= H >> 33;
    H *= 0xc4ceb9fe1a85ec53ull;
    H ^= H >> 33;
    std::memcpy(Token + L * 8, &H, 8);
  }
}

bool isQuant8(int32_t T) {
  return T == nn::TENSOR_QUANT8_ASYMM || T == nn::TENSOR_QUANT8_ASYMM_SIGNED ||
         T == nn::TENSOR_QUANT8_SYMM_PER_CHANNEL;
}

} // namespace

NnapiExecutor::~NnapiExecutor() {
  if (!Lib)
    return;
  if (Reusable)
    Lib->ANeuralNetworksExecution_free(Reusable);
  if (Compilation)
    Lib->ANeuralNetworksCompilation_free(Compilation);
  if (NnModel)
    Lib->ANeuralNetworksModel_free(NnModel);
  if (FileMemory)
    Lib->ANeuralNetworksMemory_free(FileMemory);
}

uint8_t *NnapiExecutor::buffer(size_t T) {
  std::vector<uint8_t> &B = Host[T];
  if (B.empty() && Model->Tensors[T].Bytes) {
    B.assign(size_t(Model->Tensors[T].Bytes), 0);
    HostBytes += B.size();
  }
  return B.data();
}

uint8_t *NnapiExecutor::hostTensor(size_t T) const {
  const TensorDesc &D = Model->Tensors[T];
  if (D.isConstant())
    return const_cast<uint8_t *>(D.ConstData);
  return Host[T].empty() ? nullptr : const_cast<uint8_t *>(Host[T].data());
}

const char *NnapiExecutor::engine(size_t Op) const {
  return Op < OnHost.size() && OnHost[Op] ? "host" : "nnapi";
}

EngineInfo NnapiExecutor::engineInfo() const {
  EngineInfo E;
  E.Device = Devices;
  E.Precision = Precision;
  return E;
}

Status NnapiExecutor::checkLevel() const {
  // A function each level added, standing for the level.
  struct Mark {
    int32_t Level;
    bool Present;
    const char *Name;
  };
  const Mark Marks[] = {
      {28,
       Lib->ANeuralNetworksModel_relaxComputationFloat32toFloat16 != nullptr,
       "ANeuralNetworksModel_relaxComputationFloat32toFloat16"},
      {29, Lib->ANeuralNetworksExecution_compute != nullptr,
       "ANeuralNetworksExecution_compute"},
      {31, Lib->ANeuralNetworksExecution_setReusable != nullptr,
       "ANeuralNetworksExecution_setReusable"},
      // Level 6 added no function: the runtime says its level.
      {nn::FeatureLevel6,
       Lib->ANeuralNetworks_getRuntimeFeatureLevel &&
           Lib->ANeuralNetworks_getRuntimeFeatureLevel() >= nn::FeatureLevel6,
       "ANeuralNetworks_getRuntimeFeatureLevel() >= 1000006"}};
  int32_t Level = payload().feature_level();
  for (const Mark &M : Marks)
    if (Level >= M.Level && !M.Present)
      return unsupported("the file needs NNAPI feature level ", Level,
                         ", and the NNAPI library ", Lib->path(), " lacks ",
                         M.Name, " (level ", M.Level, ")");
  return Status::ok();
}

Status NnapiExecutor::setOperandValues() {
  const fb::NnapiPayload &P = payload();
  const ModelBytes &Bytes = *Model->Bytes;
  bool AnySegment = false;
  for (const fb::NnapiOperand *O : *P.operands())
    AnySegment |= O->source() == fb::NnapiValueSource::SEGMENT;
  // The whole file once; where NNAPI cannot map it, values in place.
  if (AnySegment && Bytes.fd() >= 0 &&
      Lib->ANeuralNetworksMemory_createFromFd(Bytes.size(), nn::ProtRead,
                                              Bytes.fd(), 0,
                                              &FileMemory) != nn::NO_ERROR)
    FileMemory = nullptr;
  for (unsigned I = 0; I < P.operands()->size(); ++I) {
    const fb::NnapiOperand &O = *P.operands()->Get(I);
    int R = nn::NO_ERROR;
    const char *Call = "ANeuralNetworksModel_setOperandValue";
    if (O.source() == fb::NnapiValueSource::OMITTED) {
      R = Lib->ANeuralNetworksModel_setOperandValue(NnModel, int32_t(I),
                                                    nullptr, 0);
    } else if (O.source() == fb::NnapiValueSource::INLINE) {
      R = Lib->ANeuralNetworksModel_setOperandValue(
          NnModel, int32_t(I), O.value()->data(), O.value()->size());
    } else if (O.source() == fb::NnapiValueSource::SEGMENT) {
      const fb::Buffer *B = Model->Root->buffers()->Get(unsigned(O.segment()));
      if (FileMemory) {
        Call = "ANeuralNetworksModel_setOperandValueFromMemory";
        R = Lib->ANeuralNetworksModel_setOperandValueFromMemory(
            NnModel, int32_t(I), FileMemory, size_t(B->offset()),
            size_t(B->size()));
      } else { // NNAPI keeps the pointer (> 128 bytes): the model outlives it
        R = Lib->ANeuralNetworksModel_setOperandValue(
            NnModel, int32_t(I), Bytes.data() + B->offset(), size_t(B->size()));
      }
    }
    if (R != nn::NO_ERROR)
      return nnError(Call, R, concat("operand ", I));
  }
  return Status::ok();
}

Status NnapiExecutor::buildModel(bool KeepIntermediates) {
  const fb::NnapiPayload &P = payload();
  if (int R = Lib->ANeuralNetworksModel_create(&NnModel))
    return nnError("ANeuralNetworksModel_create", R);
  bool Quantized = false;
  for (unsigned I = 0; I < P.operands()->size(); ++I) {
    const fb::NnapiOperand &O = *P.operands()->Get(I);
    ANeuralNetworksOperandType T{
        O.type(), O.dimensions() ? O.dimensions()->size() : 0,
        O.dimensions() ? O.dimensions()->data() : nullptr, O.scale(),
        O.zero_point()};
    if (T.dimensionCount == 0)
      T.dimensions = nullptr;
    Quantized |= isQuant8(O.type());
    if (int R = Lib->ANeuralNetworksModel_addOperand(NnModel, &T))
      return nnError(
          "ANeuralNetworksModel_addOperand", R,
          concat("operand ", I, ", ", nn::findOperandType(O.type())->Name));
    if (O.type() != nn::TENSOR_QUANT8_SYMM_PER_CHANNEL)
      continue;
    if (!Lib->ANeuralNetworksModel_setOperandSymmPerChannelQuantParams)
      return unsupported("the NNAPI library ", Lib->path(),
                         " lacks "
                         "ANeuralNetworksModel_setOperandSymmPerChannelQuant"
                         "Params (API level 29), which operand ",
                         I, " needs");
    ANeuralNetworksSymmPerChannelQuantParams Q{O.channel_dim(),
                                               O.channel_scales()->size(),
                                               O.channel_scales()->data()};
    if (int R = Lib->ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(
            NnModel, int32_t(I), &Q))
      return nnError("ANeuralNetworksModel_setOperandSymmPerChannelQuantParams",
                     R, concat("operand ", I));
  }
  if (Status S = setOperandValues())
    return S;
  std::vector<uint32_t> Outs(P.outputs()->begin(), P.outputs()->end());
  std::vector<char> IsOut(P.operands()->size(), 0);
  for (uint32_t X : Outs)
    IsOut[X] = 1;
  for (unsigned I = 0; I < P.operations()->size(); ++I) {
    const fb::NnapiOperation &Op = *P.operations()->Get(I);
    if (int R = Lib->ANeuralNetworksModel_addOperation(
            NnModel, Op.type(), Op.inputs()->size(), Op.inputs()->data(),
            Op.outputs()->size(), Op.outputs()->data()))
      return nnError(
          "ANeuralNetworksModel_addOperation", R,
          concat("operation ", I, ", ", nn::findOperation(Op.type())->Name));
    // The debug compilation: every output that maps a tensor is read back.
    if (KeepIntermediates)
      for (uint32_t X : *Op.outputs())
        if (P.operands()->Get(X)->tensor() >= 0 && !IsOut[X]) {
          IsOut[X] = 1;
          Outs.push_back(X);
        }
  }
  if (int R = Lib->ANeuralNetworksModel_identifyInputsAndOutputs(
          NnModel, P.inputs()->size(), P.inputs()->data(),
          uint32_t(Outs.size()), Outs.data()))
    return nnError("ANeuralNetworksModel_identifyInputsAndOutputs", R);
  if (P.relax_fp32_to_fp16()) {
    if (!Lib->ANeuralNetworksModel_relaxComputationFloat32toFloat16)
      return unsupported("the NNAPI library ", Lib->path(),
                         " lacks "
                         "ANeuralNetworksModel_relaxComputationFloat32toFloat16"
                         " (API level 28)");
    if (int R = Lib->ANeuralNetworksModel_relaxComputationFloat32toFloat16(
            NnModel, true))
      return nnError("ANeuralNetworksModel_relaxComputationFloat32toFloat16",
                     R);
  }
  if (int R = Lib->ANeuralNetworksModel_finish(NnModel))
    return nnError("ANeuralNetworksModel_finish", R);
  Precision = P.relax_fp32_to_fp16() ? "fp16-relaxed"
              : Quantized            ? "int8"
                                     : "fp32";
  // Host buffers and staging for the model's io.
  for (unsigned Pass = 0; Pass < 2; ++Pass) {
    const std::vector<uint32_t> Ops =
        Pass == 0
            ? std::vector<uint32_t>(P.inputs()->begin(), P.inputs()->end())
            : Outs;
    for (uint32_t X : Ops) {
      const fb::NnapiOperand &O = *P.operands()->Get(X);
      Io IoRec{X, size_t(O.tensor()), {}};
      buffer(IoRec.Tensor);
      if (O.type() == nn::TENSOR_QUANT8_ASYMM &&
          Model->Tensors[IoRec.Tensor].DType == fb::DType::I8)
        IoRec.Staging.assign(size_t(Model->Tensors[IoRec.Tensor].Bytes), 0);
      (Pass == 0 ? Inputs : Outputs).push_back(std::move(IoRec));
    }
  }
  return Status::ok();
}

Status
NnapiExecutor::chooseDevices(std::vector<const ANeuralNetworksDevice *> &Out) {
  uint32_t Count = 0;
  if (int R = Lib->ANeuralNetworks_getDeviceCount(&Count))
    return nnError("ANeuralNetworks_getDeviceCount", R);
  for (uint32_t I = 0; I < Count; ++I) {
    ANeuralNetworksDevice *D = nullptr;
    int32_t Type = nn::DEVICE_UNKNOWN;
    const char *Name = nullptr;
    if (int R = Lib->ANeuralNetworks_getDevice(I, &D))
      return nnError("ANeuralNetworks_getDevice", R, concat("device ", I));
    if (int R = Lib->ANeuralNetworksDevice_getType(D, &Type))
      return nnError("ANeuralNetworksDevice_getType", R, concat("device ", I));
    if (Type == nn::DEVICE_CPU)
      continue;
    if (Lib->ANeuralNetworksDevice_getName(D, &Name) != nn::NO_ERROR || !Name)
      Name = "?";
    Devices += (Devices.empty() ? "" : ", ") + std::string(Name);
    Out.push_back(D);
  }
  if (Out.empty())
    return unsupported("no NNAPI device other than the CPU (", Count,
                       " devices; disallow_cpu is set)");
  return Status::ok();
}

Status NnapiExecutor::compile(const NnapiOptions &Opts) {
  bool DisallowCpu = Opts.DisallowCpu || envFlag("KILN_NNAPI_DISALLOW_CPU");
  // Device selection needs API level 29; before it NNAPI picks.
  bool Choose = DisallowCpu && Lib->ANeuralNetworks_getDeviceCount &&
                Lib->ANeuralNetworks_getDevice &&
                Lib->ANeuralNetworksDevice_getType &&
                Lib->ANeuralNetworksDevice_getName &&
                Lib->ANeuralNetworksCompilation_createForDevices;
  if (Choose) {
    std::vector<const ANeuralNetworksDevice *> Chosen;
    if (Status S = chooseDevices(Chosen))
      return S;
    if (int R = Lib->ANeuralNetworksCompilation_createForDevices(
            NnModel, Chosen.data(), uint32_t(Chosen.size()), &Compilation))
      return nnError("ANeuralNetworksCompilation_createForDevices", R, Devices);
  } else {
    Devices = "nnapi (default devices)";
    if (int R = Lib->ANeuralNetworksCompilation_create(NnModel, &Compilation))
      return nnError("ANeuralNetworksCompilation_create", R);
  }
  if (int R = Lib->ANeuralNetworksCompilation_setPreference(Compilation,
                                                            Opts.Preference))
    return nnError("ANeuralNetworksCompilation_setPreference", R);
  std::string CacheDir = Opts.CacheDir;
  if (CacheDir.empty())
    if (const char *Env = std::getenv("KILN_NNAPI_CACHE_DIR"))
      CacheDir = Env;
  if (!CacheDir.empty() && Lib->ANeuralNetworksCompilation_setCaching) {
    // NNAPI writes into an existing folder; make it (not its parents).
    if (mkdir(CacheDir.c_str(), 0700) != 0 && errno != EEXIST)
      return invalidArgument("the NNAPI cache folder ", CacheDir,
                             " cannot be created: ", std::strerror(errno));
    uint8_t Token[nn::BYTE_SIZE_OF_CACHE_TOKEN];
    cacheToken(*Model, Token);
    if (int R = Lib->ANeuralNetworksCompilation_setCaching(
            Compilation, CacheDir.c_str(), Token))
      return nnError("ANeuralNetworksCompilation_setCaching", R, CacheDir);
  }
  if (int R = Lib->ANeuralNetworksCompilation_finish(Compilation))
    return nnError("ANeuralNetworksCompilation_finish", R);
  return Status::ok();
}

Status NnapiExecutor::createExecution(ANeuralNetworksExecution *&Out,
                                      bool Reuse) {
  ANeuralNetworksExecution *E = nullptr;
  if (int R = Lib->ANeuralNetworksExecution_create(Compilation, &E))
    return nnError("ANeuralNetworksExecution_create", R);
  auto Fail = [&](const char *Call, int R, const std::string &Detail) {
    Lib->ANeuralNetworksExecution_free(E);
    return nnError(Call, R, Detail);
  };
  if (Reuse)
    if (int R = Lib->ANeuralNetworksExecution_setReusable(E, true))
      return Fail("ANeuralNetworksExecution_setReusable", R, "");
  for (size_t I = 0; I < Inputs.size(); ++I) {
    Io &In = Inputs[I];
    const void *Data =
        In.Staging.empty() ? Host[In.Tensor].data() : In.Staging.data();
    if (int R = Lib->ANeuralNetworksExecution_setInput(
            E, int32_t(I), nullptr, Data,
            size_t(Model->Tensors[In.Tensor].Bytes)))
      return Fail("ANeuralNetworksExecution_setInput", R, concat("input ", I));
  }
  for (size_t I = 0; I < Outputs.size(); ++I) {
    Io &O = Outputs[I];
    void *Data = O.Staging.empty() ? Host[O.Tensor].data() : O.Staging.data();
    if (int R = Lib->ANeuralNetworksExecution_setOutput(
            E, int32_t(I), nullptr, Data,
            size_t(Model->Tensors[O.Tensor].Bytes)))
      return Fail("ANeuralNetworksExecution_setOutput", R,
                  concat("output ", I));
  }
  Out = E;
  return Status::ok();
}

Status NnapiExecutor::compute(ANeuralNetworksExecution *E) {
  int R;
  if (Lib->ANeuralNetworksExecution_compute) {
    R = Lib->ANeuralNetworksExecution_compute(E);
    if (R != nn::NO_ERROR)
      return {KILN_ERROR_RUNTIME,
              concat("NNAPI ANeuralNetworksExecution_compute"
                     " failed: ",
                     resultName(R))};
    return Status::ok();
  }
  ANeuralNetworksEvent *Event = nullptr;
  R = Lib->ANeuralNetworksExecution_startCompute(E, &Event);
  if (R != nn::NO_ERROR)
    return {KILN_ERROR_RUNTIME, concat("NNAPI ANeuralNetworksExecution_start"
                                       "Compute failed: ",
                                       resultName(R))};
  R = Lib->ANeuralNetworksEvent_wait(Event);
  Lib->ANeuralNetworksEvent_free(Event);
  if (R != nn::NO_ERROR)
    return {KILN_ERROR_RUNTIME,
            concat("NNAPI ANeuralNetworksEvent_wait failed: ", resultName(R))};
  return Status::ok();
}

void NnapiExecutor::hostSteps(const flatbuffers::Vector<uint32_t> *Ops,
                              std::vector<uint64_t> *OpTimes) {
  if (!Ops)
    return;
  for (uint32_t Op : *Ops) {
    auto Start = std::chrono::steady_clock::now();
    runNnapiHostStep(*Model, Op, [this](size_t T) { return buffer(T); });
    if (OpTimes)
      (*OpTimes)[Op] =
          uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                       std::chrono::steady_clock::now() - Start)
                       .count());
  }
}

Status NnapiExecutor::run(std::vector<uint64_t> *OpTimes) {
  const fb::NnapiPayload &P = payload();
  hostSteps(P.host_before(), OpTimes);
  for (Io &In : Inputs) // i8 -> NNAPI's QUANT8_ASYMM: plus 128
    for (size_t K = 0; K < In.Staging.size(); ++K)
      In.Staging[K] = Host[In.Tensor][K] ^ 0x80;
  if (Reusable) {
    if (Status S = compute(Reusable))
      return S;
  } else {
    ANeuralNetworksExecution *E = nullptr;
    if (Status S = createExecution(E, false))
      return S;
    Status S = compute(E);
    Lib->ANeuralNetworksExecution_free(E);
    if (S)
      return S;
  }
  for (Io &Out : Outputs)
    for (size_t K = 0; K < Out.Staging.size(); ++K)
      Host[Out.Tensor][K] = Out.Staging[K] ^ 0x80;
  hostSteps(P.host_after(), OpTimes);
  return Status::ok();
}

Status NnapiExecutor::create(std::shared_ptr<const LoadedModel> Model,
                             const SessionOptions &Opts,
                             std::unique_ptr<NnapiExecutor> &Out) {
  std::unique_ptr<NnapiExecutor> E(new NnapiExecutor());
  E->Model = std::move(Model);
  const LoadedModel &M = *E->Model;
  if (Status S = NnapiLibrary::open(Opts.Nnapi.Library, E->Lib))
    return S;
  if (Status S = E->checkLevel())
    return S;
  E->Host.resize(M.Tensors.size());
  E->OnHost.assign(M.numOperators(), 0);
  const fb::NnapiPayload &P = E->payload();
  for (const auto *Ops : {P.host_before(), P.host_after()})
    if (Ops)
      for (uint32_t Op : *Ops) {
        E->OnHost[Op] = 1;
        for (int32_t T : *M.op(Op).inputs())
          if (!M.Tensors[size_t(T)].isConstant())
            E->buffer(size_t(T));
        for (int32_t T : *M.op(Op).outputs())
          E->buffer(size_t(T));
      }
  for (const std::vector<int32_t> *List : {&M.Inputs, &M.Outputs})
    for (int32_t T : *List)
      E->buffer(size_t(T));
  if (Status S = E->buildModel(Opts.KeepIntermediates))
    return S;
  if (Status S = E->compile(Opts.Nnapi))
    return S;
  if (E->Lib->ANeuralNetworksExecution_setReusable)
    if (Status S = E->createExecution(E->Reusable, true))
      return S;
  Out = std::move(E);
  return Status::ok();
}

} // namespace kiln::rt

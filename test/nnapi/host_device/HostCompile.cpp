// The host NNAPI device: devices, compilations (with the compilation
// cache), executions and events.
#include "HostDevice.h"
#include "QuantMath.h"

#include <sys/stat.h>

#include <cstring>
#include <new>

using namespace kiln::nnapi;
using namespace kiln::nnapi::host;

struct ANeuralNetworksDevice {
  const char *Name;
  int32_t Type;
};

struct ANeuralNetworksCompilation {
  ANeuralNetworksModel *Model = nullptr;
  std::vector<const ANeuralNetworksDevice *> Devices;
  int32_t Preference = PREFER_FAST_SINGLE_ANSWER;
  bool Caching = false;
  std::string CacheDir;
  uint8_t Token[BYTE_SIZE_OF_CACHE_TOKEN] = {};
  bool Finished = false;
};

struct ANeuralNetworksExecution {
  ANeuralNetworksCompilation *Compilation = nullptr;
  std::vector<const void *> Inputs;
  std::vector<void *> Outputs;
  bool Reusable = false;
  unsigned Computes = 0;
};

struct ANeuralNetworksEvent {
  int Result = NO_ERROR;
};

namespace {

ANeuralNetworksDevice Devices[] = {
    {"kiln-host-accelerator", DEVICE_ACCELERATOR},
    {"nnapi-reference", DEVICE_CPU},
};
constexpr uint32_t DeviceCount = sizeof(Devices) / sizeof(Devices[0]);

bool isOurDevice(const ANeuralNetworksDevice *D) {
  for (const ANeuralNetworksDevice &Ours : Devices)
    if (D == &Ours)
      return true;
  return false;
}

/// FNV-1a over what determines the compiled model: the cache file's
/// content.
uint64_t modelChecksum(const ANeuralNetworksModel &M) {
  uint64_t H = 1469598103934665603ull;
  auto Mix = [&](const void *P, size_t N) {
    const auto *B = static_cast<const uint8_t *>(P);
    for (size_t I = 0; I < N; ++I) {
      H ^= B[I];
      H *= 1099511628211ull;
    }
  };
  for (const Operand &O : M.Operands) {
    Mix(&O.Type, sizeof O.Type);
    Mix(O.Dims.data(), O.Dims.size() * sizeof(uint32_t));
    Mix(&O.Scale, sizeof O.Scale);
    Mix(&O.ZeroPoint, sizeof O.ZeroPoint);
    Mix(O.ChannelScales.data(), O.ChannelScales.size() * sizeof(float));
    if (O.IsConstant)
      Mix(O.constData(), O.Length);
  }
  for (const Operation &Op : M.Operations) {
    Mix(&Op.Type, sizeof Op.Type);
    Mix(Op.Inputs.data(), Op.Inputs.size() * sizeof(uint32_t));
    Mix(Op.Outputs.data(), Op.Outputs.size() * sizeof(uint32_t));
  }
  Mix(M.Inputs.data(), M.Inputs.size() * sizeof(uint32_t));
  Mix(M.Outputs.data(), M.Outputs.size() * sizeof(uint32_t));
  Mix(&M.Relaxed, sizeof M.Relaxed);
  return H;
}

int createCompilation(ANeuralNetworksModel *model,
                      std::vector<const ANeuralNetworksDevice *> Chosen,
                      ANeuralNetworksCompilation **compilation) {
  if (!model || !compilation)
    return UNEXPECTED_NULL;
  *compilation = nullptr;
  if (!model->Finished) {
    report("Compilation_create: the model is not finished");
    return BAD_STATE;
  }
  auto *C = new (std::nothrow) ANeuralNetworksCompilation;
  if (!C)
    return OUT_OF_MEMORY;
  C->Model = model;
  C->Devices = std::move(Chosen);
  *compilation = C;
  return NO_ERROR;
}

/// Checks a type given to setInput / setOutput against the operand.
bool typeMatches(const Operand &O, const ANeuralNetworksOperandType *T,
                 const std::string &Where) {
  if (!T)
    return true;
  if (T->type != O.Type) {
    report(Where + ": type " + operandTypeName(T->type) + " for a " +
           operandTypeName(O.Type) + " operand");
    return false;
  }
  std::vector<uint32_t> D(T->dimensions, T->dimensions + T->dimensionCount);
  if (T->dimensionCount && D != O.Dims) {
    report(Where + ": dimensions " + dimsString(D) + " for an operand of " +
           dimsString(O.Dims));
    return false;
  }
  return true;
}

int compute(ANeuralNetworksExecution *E) {
  const ANeuralNetworksModel &M = *E->Compilation->Model;
  for (size_t I = 0; I < E->Inputs.size(); ++I)
    if (!E->Inputs[I]) {
      report("compute: input " + std::to_string(I) + " is not set");
      return BAD_DATA;
    }
  for (size_t I = 0; I < E->Outputs.size(); ++I)
    if (!E->Outputs[I]) {
      report("compute: output " + std::to_string(I) + " is not set");
      return BAD_DATA;
    }
  if (E->Computes > 0 && !E->Reusable) {
    report("compute: the execution was computed already and is not reusable");
    return BAD_STATE;
  }
  // One "execution compute" per compute; a reusable execution's computes
  // after its first also say "execution reused".
  logEvent("execution compute");
  if (E->Computes > 0)
    logEvent("execution reused");
  ++E->Computes;
  try {
    std::vector<uint8_t *> Buffers(M.Operands.size(), nullptr);
    std::vector<std::vector<uint8_t>> Storage(M.Operands.size());
    for (size_t I = 0; I < M.Operands.size(); ++I)
      if (M.Operands[I].IsConstant)
        Buffers[I] = const_cast<uint8_t *>(M.Operands[I].constData());
    for (size_t I = 0; I < M.Inputs.size(); ++I)
      Buffers[M.Inputs[I]] =
          const_cast<uint8_t *>(static_cast<const uint8_t *>(E->Inputs[I]));
    // A strict fp16 driver holds every float value in fp16: the weights
    // and the inputs too, not only what the operations write.
    const bool Fp16 = M.Relaxed && relaxedMode() == RelaxedMode::StrictFp16;
    auto ToHalf = [&](size_t I) {
      const Operand &O = M.Operands[I];
      if (O.Type != TENSOR_FLOAT32 || !Buffers[I])
        return;
      const float *Src = reinterpret_cast<const float *>(Buffers[I]);
      std::vector<uint8_t> Copy(O.byteSize());
      float *Dst = reinterpret_cast<float *>(Copy.data());
      for (size_t K = 0, N = O.elementCount(); K < N; ++K)
        Dst[K] = roundToHalf(Src[K]);
      Storage[I] = std::move(Copy);
      Buffers[I] = Storage[I].data();
    };
    if (Fp16)
      for (size_t I = 0; I < M.Operands.size(); ++I)
        ToHalf(I);
    for (size_t I = 0; I < M.Operations.size(); ++I) {
      const Operation &Op = M.Operations[I];
      for (uint32_t Out : Op.Outputs) {
        Storage[Out].assign(M.Operands[Out].byteSize(), 0);
        Buffers[Out] = Storage[Out].data();
      }
      try {
        runOperation(OpContext{M, Op, Buffers, Fp16});
      } catch (const ComputeFailure &F) {
        report("operation " + std::to_string(I) + " (" +
               operationName(Op.Type) + "): " + F.what());
        return OP_FAILED;
      }
      injectFault(M, Op, I, Buffers);
      if (Fp16)
        for (uint32_t Out : Op.Outputs)
          ToHalf(Out);
    }
    for (size_t I = 0; I < M.Outputs.size(); ++I)
      std::memcpy(E->Outputs[I], Buffers[M.Outputs[I]],
                  M.Operands[M.Outputs[I]].byteSize());
  } catch (const std::bad_alloc &) {
    return OUT_OF_MEMORY;
  }
  return NO_ERROR;
}

} // namespace

extern "C" {

int ANeuralNetworks_getDeviceCount(uint32_t *numDevices) {
  if (!functionAvailable("ANeuralNetworks_getDeviceCount", 29))
    return BAD_DATA;
  if (!numDevices)
    return UNEXPECTED_NULL;
  *numDevices = DeviceCount;
  return NO_ERROR;
}

int ANeuralNetworks_getDevice(uint32_t devIndex, ANeuralNetworksDevice **device) {
  if (!functionAvailable("ANeuralNetworks_getDevice", 29))
    return BAD_DATA;
  if (!device)
    return UNEXPECTED_NULL;
  if (devIndex >= DeviceCount) {
    report("getDevice: index " + std::to_string(devIndex) + " out of range");
    return BAD_DATA;
  }
  *device = &Devices[devIndex];
  return NO_ERROR;
}

int ANeuralNetworksDevice_getName(const ANeuralNetworksDevice *device,
                                  const char **name) {
  if (!functionAvailable("ANeuralNetworksDevice_getName", 29))
    return BAD_DATA;
  if (!device || !name)
    return UNEXPECTED_NULL;
  *name = device->Name;
  return NO_ERROR;
}

int ANeuralNetworksDevice_getType(const ANeuralNetworksDevice *device,
                                  int32_t *type) {
  if (!functionAvailable("ANeuralNetworksDevice_getType", 29))
    return BAD_DATA;
  if (!device || !type)
    return UNEXPECTED_NULL;
  *type = device->Type;
  return NO_ERROR;
}

int ANeuralNetworksDevice_getFeatureLevel(const ANeuralNetworksDevice *device,
                                          int64_t *featureLevel) {
  if (!functionAvailable("ANeuralNetworksDevice_getFeatureLevel", 29))
    return BAD_DATA;
  if (!device || !featureLevel)
    return UNEXPECTED_NULL;
  *featureLevel = deviceLevel();
  return NO_ERROR;
}

int ANeuralNetworksCompilation_create(ANeuralNetworksModel *model,
                                      ANeuralNetworksCompilation **compilation) {
  std::vector<const ANeuralNetworksDevice *> All;
  for (const ANeuralNetworksDevice &D : Devices)
    All.push_back(&D);
  return createCompilation(model, std::move(All), compilation);
}

int ANeuralNetworksCompilation_createForDevices(
    ANeuralNetworksModel *model, const ANeuralNetworksDevice *const *devices,
    uint32_t numDevices, ANeuralNetworksCompilation **compilation) {
  if (!functionAvailable("ANeuralNetworksCompilation_createForDevices", 29))
    return BAD_DATA;
  if (!devices)
    return UNEXPECTED_NULL;
  if (numDevices == 0) {
    report("Compilation_createForDevices: no devices");
    return BAD_DATA;
  }
  std::vector<const ANeuralNetworksDevice *> Chosen;
  for (uint32_t I = 0; I < numDevices; ++I) {
    if (!devices[I])
      return UNEXPECTED_NULL;
    if (!isOurDevice(devices[I])) {
      report("Compilation_createForDevices: device " + std::to_string(I) +
             " is not one of getDevice's");
      return BAD_DATA;
    }
    Chosen.push_back(devices[I]);
  }
  return createCompilation(model, std::move(Chosen), compilation);
}

void ANeuralNetworksCompilation_free(ANeuralNetworksCompilation *compilation) {
  delete compilation;
}

int ANeuralNetworksCompilation_setPreference(
    ANeuralNetworksCompilation *compilation, int32_t preference) {
  if (!compilation)
    return UNEXPECTED_NULL;
  if (compilation->Finished) {
    report("Compilation_setPreference after finish");
    return BAD_STATE;
  }
  if (preference < PREFER_LOW_POWER || preference > PREFER_SUSTAINED_SPEED) {
    report("Compilation_setPreference: preference " + std::to_string(preference));
    return BAD_DATA;
  }
  compilation->Preference = preference;
  return NO_ERROR;
}

int ANeuralNetworksCompilation_setCaching(ANeuralNetworksCompilation *compilation,
                                          const char *cacheDir,
                                          const uint8_t *token) {
  if (!functionAvailable("ANeuralNetworksCompilation_setCaching", 29))
    return BAD_DATA;
  if (!compilation || !cacheDir || !token)
    return UNEXPECTED_NULL;
  if (compilation->Finished) {
    report("Compilation_setCaching after finish");
    return BAD_STATE;
  }
  compilation->Caching = true;
  compilation->CacheDir = cacheDir;
  std::memcpy(compilation->Token, token, BYTE_SIZE_OF_CACHE_TOKEN);
  return NO_ERROR;
}

int ANeuralNetworksCompilation_finish(ANeuralNetworksCompilation *compilation) {
  if (!compilation)
    return UNEXPECTED_NULL;
  ANeuralNetworksCompilation &C = *compilation;
  if (C.Finished) {
    report("Compilation_finish twice");
    return BAD_STATE;
  }
  std::string Cache = "none";
  if (C.Caching) {
    static const char Hex[] = "0123456789abcdef";
    std::string Name;
    for (uint8_t B : C.Token) {
      Name += Hex[B >> 4];
      Name += Hex[B & 15];
    }
    const std::string Path = C.CacheDir + "/" + Name + ".kiln-nnapi-host";
    struct stat St;
    if (stat(Path.c_str(), &St) == 0) {
      Cache = "hit";
    } else {
      Cache = "miss";
      if (FILE *F = std::fopen(Path.c_str(), "w")) {
        std::fprintf(F, "kiln-nnapi-host model %016llx\n",
                     static_cast<unsigned long long>(modelChecksum(*C.Model)));
        std::fclose(F);
      } else {
        report("Compilation_finish: cannot write the cache file " + Path);
      }
    }
  }
  std::string Names;
  for (const ANeuralNetworksDevice *D : C.Devices)
    Names += (Names.empty() ? "" : ",") + std::string(D->Name);
  logEvent("compile devices=" + Names + " preference=" +
           std::to_string(C.Preference) + " cache=" + Cache +
           (C.Model->Relaxed
                ? std::string(" relaxed=") + relaxedModeName(relaxedMode())
                : std::string()));
  C.Finished = true;
  return NO_ERROR;
}

int ANeuralNetworksExecution_create(ANeuralNetworksCompilation *compilation,
                                    ANeuralNetworksExecution **execution) {
  if (!compilation || !execution)
    return UNEXPECTED_NULL;
  *execution = nullptr;
  if (!compilation->Finished) {
    report("Execution_create: the compilation is not finished");
    return BAD_STATE;
  }
  auto *E = new (std::nothrow) ANeuralNetworksExecution;
  if (!E)
    return OUT_OF_MEMORY;
  E->Compilation = compilation;
  E->Inputs.assign(compilation->Model->Inputs.size(), nullptr);
  E->Outputs.assign(compilation->Model->Outputs.size(), nullptr);
  *execution = E;
  return NO_ERROR;
}

void ANeuralNetworksExecution_free(ANeuralNetworksExecution *execution) {
  delete execution;
}

int ANeuralNetworksExecution_setInput(ANeuralNetworksExecution *execution,
                                      int32_t index,
                                      const ANeuralNetworksOperandType *type,
                                      const void *buffer, size_t length) {
  if (!execution)
    return UNEXPECTED_NULL;
  const ANeuralNetworksModel &M = *execution->Compilation->Model;
  if (index < 0 || size_t(index) >= M.Inputs.size()) {
    report("Execution_setInput: index " + std::to_string(index) +
           " out of range");
    return BAD_DATA;
  }
  const Operand &O = M.Operands[M.Inputs[size_t(index)]];
  const std::string Where = "Execution_setInput " + std::to_string(index);
  if (!buffer) {
    report(Where + ": null buffer (omitted inputs are not supported)");
    return length ? UNEXPECTED_NULL : BAD_DATA;
  }
  if (!typeMatches(O, type, Where))
    return BAD_DATA;
  if (length != O.byteSize()) {
    report(Where + ": " + std::to_string(length) + " bytes for an operand of " +
           std::to_string(O.byteSize()));
    return BAD_DATA;
  }
  execution->Inputs[size_t(index)] = buffer;
  return NO_ERROR;
}

int ANeuralNetworksExecution_setOutput(ANeuralNetworksExecution *execution,
                                       int32_t index,
                                       const ANeuralNetworksOperandType *type,
                                       void *buffer, size_t length) {
  if (!execution)
    return UNEXPECTED_NULL;
  const ANeuralNetworksModel &M = *execution->Compilation->Model;
  if (index < 0 || size_t(index) >= M.Outputs.size()) {
    report("Execution_setOutput: index " + std::to_string(index) +
           " out of range");
    return BAD_DATA;
  }
  const Operand &O = M.Operands[M.Outputs[size_t(index)]];
  const std::string Where = "Execution_setOutput " + std::to_string(index);
  if (!buffer) {
    report(Where + ": null buffer");
    return length ? UNEXPECTED_NULL : BAD_DATA;
  }
  if (!typeMatches(O, type, Where))
    return BAD_DATA;
  if (length != O.byteSize()) {
    report(Where + ": " + std::to_string(length) + " bytes for an operand of " +
           std::to_string(O.byteSize()));
    return BAD_DATA;
  }
  execution->Outputs[size_t(index)] = buffer;
  return NO_ERROR;
}

int ANeuralNetworksExecution_startCompute(ANeuralNetworksExecution *execution,
                                          ANeuralNetworksEvent **event) {
  if (!execution || !event)
    return UNEXPECTED_NULL;
  *event = nullptr;
  int R = compute(execution);
  if (R == BAD_DATA || R == BAD_STATE || R == OUT_OF_MEMORY)
    return R;
  auto *Ev = new (std::nothrow) ANeuralNetworksEvent;
  if (!Ev)
    return OUT_OF_MEMORY;
  Ev->Result = R;
  *event = Ev;
  return NO_ERROR;
}

int ANeuralNetworksExecution_compute(ANeuralNetworksExecution *execution) {
  if (!functionAvailable("ANeuralNetworksExecution_compute", 29))
    return BAD_DATA;
  if (!execution)
    return UNEXPECTED_NULL;
  return compute(execution);
}

int64_t ANeuralNetworks_getRuntimeFeatureLevel() { return deviceLevel(); }

int ANeuralNetworksExecution_setReusable(ANeuralNetworksExecution *execution,
                                         bool reusable) {
  // API level 31; implemented at every device level so that the
  // executor's reuse path can be tested.
  if (!execution)
    return UNEXPECTED_NULL;
  if (execution->Computes > 0) {
    report("Execution_setReusable after a compute");
    return BAD_STATE;
  }
  execution->Reusable = reusable;
  return NO_ERROR;
}

int ANeuralNetworksEvent_wait(ANeuralNetworksEvent *event) {
  if (!event)
    return UNEXPECTED_NULL;
  return event->Result;
}

void ANeuralNetworksEvent_free(ANeuralNetworksEvent *event) { delete event; }

} // extern "C"

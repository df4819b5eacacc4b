// A stand-in NNAPI library for the executor's plumbing tests, not an NNAPI
// implementation: it accepts any model, and an execution copies model input
// 0's bytes into every output (truncated or zero-filled). It logs the calls
// that matter (kilnFakeNnapiLog) so tests see what the executor asked for.
// Two devices: "fake-cpu" (DEVICE_CPU) and "fake-npu" (DEVICE_ACCELERATOR);
// with KILN_FAKE_NNAPI_CPU_ONLY=1 only the first. Built twice: API level 31
// (every function) and 27 (KILN_FAKE_NNAPI_LEVEL: no device choice, no
// caching, startCompute instead of compute, an execution per run).
// The real device for end-to-end tests is test/nnapi/host_device.
#include "schema/nnapi/NeuralNetworksApi.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

// The API level it implements: functions added later are absent.
#ifndef KILN_FAKE_NNAPI_LEVEL
#define KILN_FAKE_NNAPI_LEVEL 31
#endif

namespace {

std::string Log;

void note(const std::string &S) { Log += S + "\n"; }

} // namespace

struct ANeuralNetworksMemory {
  int Fd;
};
struct ANeuralNetworksModel {
  int Unused = 0;
};
struct ANeuralNetworksCompilation {
  int Unused = 0;
};
struct ANeuralNetworksExecution {
  std::vector<std::pair<const void *, size_t>> In;
  std::vector<std::pair<void *, size_t>> Out;
};
struct ANeuralNetworksEvent {
  int Unused = 0;
};
struct ANeuralNetworksDevice {
  const char *Name;
  int32_t Type;
};

namespace {
[[maybe_unused]] ANeuralNetworksDevice Devices[] = {
    {"fake-cpu", kiln::nnapi::DEVICE_CPU},
    {"fake-npu", kiln::nnapi::DEVICE_ACCELERATOR}};
} // namespace

extern "C" {

__attribute__((visibility("default"))) const char *kilnFakeNnapiLog() {
  return Log.c_str();
}
__attribute__((visibility("default"))) void kilnFakeNnapiClear() {
  Log.clear();
}

#define API __attribute__((visibility("default")))

API int ANeuralNetworksMemory_createFromFd(size_t, int, int Fd, size_t,
                                           ANeuralNetworksMemory **M) {
  note("createFromFd");
  *M = new ANeuralNetworksMemory{Fd};
  return 0;
}
API void ANeuralNetworksMemory_free(ANeuralNetworksMemory *M) { delete M; }
API int ANeuralNetworksModel_create(ANeuralNetworksModel **M) {
  *M = new ANeuralNetworksModel();
  return 0;
}
API void ANeuralNetworksModel_free(ANeuralNetworksModel *M) { delete M; }
API int ANeuralNetworksModel_finish(ANeuralNetworksModel *) { return 0; }
API int ANeuralNetworksModel_addOperand(ANeuralNetworksModel *,
                                        const ANeuralNetworksOperandType *T) {
  return T->dimensionCount && !T->dimensions ? 3 : 0;
}
API int ANeuralNetworksModel_setOperandValue(ANeuralNetworksModel *, int32_t,
                                             const void *, size_t) {
  return 0;
}
API int ANeuralNetworksModel_setOperandValueFromMemory(
    ANeuralNetworksModel *, int32_t I, const ANeuralNetworksMemory *, size_t,
    size_t) {
  note("fromMemory " + std::to_string(I));
  return 0;
}
API int ANeuralNetworksModel_addOperation(ANeuralNetworksModel *, int32_t Type,
                                          uint32_t, const uint32_t *, uint32_t,
                                          const uint32_t *) {
  return Type == kiln::nnapi::HARD_SWISH ? kiln::nnapi::BAD_DATA : 0;
}
API int ANeuralNetworksModel_identifyInputsAndOutputs(ANeuralNetworksModel *,
                                                      uint32_t NumIn,
                                                      const uint32_t *,
                                                      uint32_t NumOut,
                                                      const uint32_t *) {
  note("io " + std::to_string(NumIn) + " " + std::to_string(NumOut));
  return 0;
}
API int ANeuralNetworksCompilation_create(ANeuralNetworksModel *,
                                          ANeuralNetworksCompilation **C) {
  note("create");
  *C = new ANeuralNetworksCompilation();
  return 0;
}
API void ANeuralNetworksCompilation_free(ANeuralNetworksCompilation *C) {
  delete C;
}
API int ANeuralNetworksCompilation_setPreference(ANeuralNetworksCompilation *,
                                                 int32_t P) {
  note("preference " + std::to_string(P));
  return 0;
}
API int ANeuralNetworksCompilation_finish(ANeuralNetworksCompilation *) {
  return 0;
}
API int ANeuralNetworksExecution_create(ANeuralNetworksCompilation *,
                                        ANeuralNetworksExecution **E) {
  *E = new ANeuralNetworksExecution();
  return 0;
}
API void ANeuralNetworksExecution_free(ANeuralNetworksExecution *E) {
  delete E;
}
API int ANeuralNetworksExecution_setInput(ANeuralNetworksExecution *E,
                                          int32_t I,
                                          const ANeuralNetworksOperandType *,
                                          const void *B, size_t N) {
  E->In.resize(std::max<size_t>(E->In.size(), size_t(I) + 1));
  E->In[size_t(I)] = {B, N};
  return 0;
}
API int ANeuralNetworksExecution_setOutput(ANeuralNetworksExecution *E,
                                           int32_t I,
                                           const ANeuralNetworksOperandType *,
                                           void *B, size_t N) {
  E->Out.resize(std::max<size_t>(E->Out.size(), size_t(I) + 1));
  E->Out[size_t(I)] = {B, N};
  return 0;
}
static int computeAll(ANeuralNetworksExecution *E) {
  note("compute");
  if (!E->In.empty() && E->In[0].second) // the first byte NNAPI sees
    note("in " + std::to_string(*static_cast<const uint8_t *>(E->In[0].first)));
  for (auto &O : E->Out) {
    size_t N = std::min(O.second, E->In[0].second);
    std::memcpy(O.first, E->In[0].first, N);
    std::memset(static_cast<uint8_t *>(O.first) + N, 0, O.second - N);
  }
  return 0;
}
#if KILN_FAKE_NNAPI_LEVEL >= 29
API int ANeuralNetworksExecution_compute(ANeuralNetworksExecution *E) {
  return computeAll(E);
}
#endif
API int ANeuralNetworksExecution_startCompute(ANeuralNetworksExecution *E,
                                              ANeuralNetworksEvent **Ev) {
  *Ev = new ANeuralNetworksEvent();
  return computeAll(E);
}
API int ANeuralNetworksEvent_wait(ANeuralNetworksEvent *) { return 0; }
API void ANeuralNetworksEvent_free(ANeuralNetworksEvent *Ev) { delete Ev; }
#if KILN_FAKE_NNAPI_LEVEL >= 28
API int
ANeuralNetworksModel_relaxComputationFloat32toFloat16(ANeuralNetworksModel *,
                                                      bool) {
  note("relax");
  return 0;
}
#endif
#if KILN_FAKE_NNAPI_LEVEL >= 29
API int ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(
    ANeuralNetworksModel *, int32_t,
    const ANeuralNetworksSymmPerChannelQuantParams *) {
  return 0;
}
API int ANeuralNetworks_getDeviceCount(uint32_t *N) {
  const char *CpuOnly = std::getenv("KILN_FAKE_NNAPI_CPU_ONLY");
  *N = CpuOnly && *CpuOnly == '1' ? 1 : 2;
  return 0;
}
API int ANeuralNetworks_getDevice(uint32_t I, ANeuralNetworksDevice **D) {
  *D = &Devices[I];
  return 0;
}
API int ANeuralNetworksDevice_getName(const ANeuralNetworksDevice *D,
                                      const char **Name) {
  *Name = D->Name;
  return 0;
}
API int ANeuralNetworksDevice_getType(const ANeuralNetworksDevice *D,
                                      int32_t *Type) {
  *Type = D->Type;
  return 0;
}
API int ANeuralNetworksDevice_getFeatureLevel(const ANeuralNetworksDevice *,
                                              int64_t *L) {
  *L = 31;
  return 0;
}
API int ANeuralNetworksCompilation_createForDevices(
    ANeuralNetworksModel *, const ANeuralNetworksDevice *const *D, uint32_t N,
    ANeuralNetworksCompilation **C) {
  for (uint32_t I = 0; I < N; ++I)
    note(std::string("device ") + D[I]->Name);
  *C = new ANeuralNetworksCompilation();
  return 0;
}
API int ANeuralNetworksCompilation_setCaching(ANeuralNetworksCompilation *,
                                              const char *Dir,
                                              const uint8_t *) {
  note(std::string("caching ") + Dir);
  return 0;
}
#endif
#if KILN_FAKE_NNAPI_LEVEL >= 31
API int ANeuralNetworksExecution_setReusable(ANeuralNetworksExecution *, bool) {
  note("reusable");
  return 0;
}

#endif

} // extern "C"

// The host NNAPI device: memories and models (building, and the checks a
// driver makes at finish).
#include "HostDevice.h"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <sstream>

using namespace kiln::nnapi;
using namespace kiln::nnapi::host;

namespace kiln::nnapi::host {

int deviceLevel() {
  const char *Env = std::getenv("KILN_NNAPI_HOST_FEATURE_LEVEL");
  if (!Env || !*Env)
    return FeatureLevelMax;
  // The highest level kiln knows at or below the one asked for.
  int Level = std::atoi(Env), Device = FeatureLevelMin;
  for (int32_t L : FeatureLevels)
    if (L <= Level)
      Device = L;
  return Device;
}

/// Whether environment variable Name says Alternative (true) or, unset,
/// empty or Default, not; any other value is reported and taken as Default.
static bool envSays(const char *Name, const char *Default, const char *Alternative) {
  const char *Env = std::getenv(Name);
  if (!Env || !*Env || std::string(Env) == Default)
    return false;
  if (std::string(Env) == Alternative)
    return true;
  report(std::string(Name) + "=" + Env + " is neither '" + Default +
         "' nor '" + Alternative + "'; taking '" + Default + "'");
  return false;
}

RelaxedMode relaxedMode() {
  return envSays("KILN_NNAPI_HOST_RELAXED", "reference", "fp16")
             ? RelaxedMode::StrictFp16
             : RelaxedMode::Reference;
}

const char *relaxedModeName(RelaxedMode Mode) {
  return Mode == RelaxedMode::StrictFp16 ? "fp16" : "reference";
}

ResizeRounding resizeRounding() {
  return envSays("KILN_NNAPI_HOST_RESIZE_ROUNDING", "offset", "truncate")
             ? ResizeRounding::Truncate
             : ResizeRounding::Offset;
}

void injectFault(const ANeuralNetworksModel &M, const Operation &Op,
                 size_t OpIndex, const std::vector<uint8_t *> &Buffers) {
  static const std::string Fault = [] {
    const char *Env = std::getenv("KILN_NNAPI_HOST_FAULT");
    return std::string(Env ? Env : "");
  }();
  static std::atomic<uint64_t> Executions{0};
  if (Fault.empty())
    return;
  bool Flaky = Fault == "flaky";
  if (Flaky ? OpIndex != 0 : operationName(Op.Type) != Fault)
    return;
  if (Flaky && Executions.fetch_add(1) % 2 == 0)
    return;
  const Operand &O = M.Operands[Op.Outputs[0]];
  uint8_t *Data = Buffers[Op.Outputs[0]];
  size_t N = Flaky ? std::min<size_t>(1, O.elementCount()) : O.elementCount();
  for (size_t K = 0; K < N; ++K) {
    if (O.Type == TENSOR_FLOAT32)
      reinterpret_cast<float *>(Data)[K] += 0.5f;
    else if (O.Type == TENSOR_FLOAT16)
      reinterpret_cast<uint16_t *>(Data)[K] ^= 0x4000; // exponent + 16
    else if (O.isQuant())
      Data[K] ^= 0x10;
  }
}

void report(const std::string &Message) {
  std::fprintf(stderr, "kiln-nnapi-host: %s\n", Message.c_str());
}

void logEvent(const std::string &Line) {
  const char *Path = std::getenv("KILN_NNAPI_HOST_LOG");
  if (!Path || !*Path)
    return;
  if (FILE *F = std::fopen(Path, "a")) {
    std::fprintf(F, "%s\n", Line.c_str());
    std::fclose(F);
  }
}

std::string operationName(int32_t Code) {
  if (const OperationInfo *I = findOperation(Code))
    return I->Name;
  return "operation " + std::to_string(Code);
}

std::string operandTypeName(int32_t Code) {
  if (const OperationInfo *I = findOperandType(Code))
    return I->Name;
  return "operand type " + std::to_string(Code);
}

std::string dimsString(const std::vector<uint32_t> &Dims) {
  std::string S = "[";
  for (size_t I = 0; I < Dims.size(); ++I)
    S += (I ? ", " : "") + std::to_string(Dims[I]);
  return S + "]";
}

bool functionAvailable(const char *Name, int Level) {
  int Device = deviceLevel();
  if (Level <= Device)
    return true;
  report(std::string(Name) + " needs feature level " + std::to_string(Level) +
         "; the device is at " + std::to_string(Device));
  return false;
}

} // namespace kiln::nnapi::host

namespace {

bool isFloatScalarOrTensor(int32_t T) {
  return T == FLOAT32 || T == TENSOR_FLOAT32 || T == FLOAT16 ||
         T == TENSOR_FLOAT16 || T == BOOL || T == TENSOR_BOOL8 ||
         T == UINT32 || T == INT32;
}

/// The operand-level checks of addOperand; empty if fine.
std::string checkOperandType(const ANeuralNetworksOperandType &T) {
  const OperationInfo *Info = findOperandType(T.type);
  if (!Info)
    return "unknown operand type " + std::to_string(T.type);
  if (Info->Level > deviceLevel())
    return std::string(Info->Name) + " needs feature level " +
           std::to_string(Info->Level) + "; the device is at " +
           std::to_string(deviceLevel());
  if (!isTensorType(T.type) && T.dimensionCount != 0)
    return std::string("scalar ") + Info->Name + " with " +
           std::to_string(T.dimensionCount) + " dimensions";
  if (T.dimensionCount && !T.dimensions)
    return "null dimensions";
  if (isFloatScalarOrTensor(T.type) && (T.scale != 0 || T.zeroPoint != 0))
    return std::string(Info->Name) + " with a scale or zero point";
  switch (T.type) {
  case TENSOR_QUANT8_ASYMM:
  case TENSOR_QUANT8_ASYMM_SIGNED: {
    if (!(T.scale > 0) || !std::isfinite(T.scale))
      return std::string(Info->Name) + " with scale " +
             std::to_string(T.scale) + " (must be > 0)";
    int32_t Lo = T.type == TENSOR_QUANT8_ASYMM ? 0 : -128;
    int32_t Hi = T.type == TENSOR_QUANT8_ASYMM ? 255 : 127;
    if (T.zeroPoint < Lo || T.zeroPoint > Hi)
      return std::string(Info->Name) + " with zero point " +
             std::to_string(T.zeroPoint) + " (must be in " +
             std::to_string(Lo) + ".." + std::to_string(Hi) + ")";
    break;
  }
  case TENSOR_QUANT8_SYMM_PER_CHANNEL:
    if (T.zeroPoint != 0)
      return "TENSOR_QUANT8_SYMM_PER_CHANNEL with zero point " +
             std::to_string(T.zeroPoint) + " (must be 0)";
    if (T.scale != 0)
      return "TENSOR_QUANT8_SYMM_PER_CHANNEL with a per-tensor scale";
    break;
  case TENSOR_INT32:
    if (!(T.scale >= 0) || !std::isfinite(T.scale))
      return "TENSOR_INT32 with scale " + std::to_string(T.scale);
    break;
  default:
    break;
  }
  return {};
}

int modelUsable(ANeuralNetworksModel *M, const char *What) {
  if (!M)
    return UNEXPECTED_NULL;
  if (M->Finished) {
    report(std::string(What) + " on a finished model");
    return BAD_STATE;
  }
  return NO_ERROR;
}

} // namespace

extern "C" {

int ANeuralNetworksMemory_createFromFd(size_t size, int protect, int fd,
                                       size_t offset,
                                       ANeuralNetworksMemory **memory) {
  if (!memory)
    return UNEXPECTED_NULL;
  *memory = nullptr;
  if (size == 0 || fd < 0) {
    report("Memory_createFromFd: size 0 or a bad file descriptor");
    return BAD_DATA;
  }
  if (protect != ProtRead && protect != (PROT_READ | PROT_WRITE)) {
    report("Memory_createFromFd: protection " + std::to_string(protect));
    return BAD_DATA;
  }
  const size_t Page = size_t(sysconf(_SC_PAGESIZE));
  const size_t Start = offset / Page * Page;
  const size_t Delta = offset - Start;
  void *Base = mmap(nullptr, size + Delta, protect, MAP_SHARED, fd, off_t(Start));
  if (Base == MAP_FAILED) {
    report("Memory_createFromFd: mmap failed: " + std::string(strerror(errno)));
    return UNMAPPABLE;
  }
  auto *Mem = new (std::nothrow) ANeuralNetworksMemory;
  if (!Mem) {
    munmap(Base, size + Delta);
    return OUT_OF_MEMORY;
  }
  Mem->MapBase = Base;
  Mem->MapSize = size + Delta;
  Mem->Data = static_cast<const uint8_t *>(Base) + Delta;
  Mem->Size = size;
  *memory = Mem;
  return NO_ERROR;
}

void ANeuralNetworksMemory_free(ANeuralNetworksMemory *memory) {
  if (!memory)
    return;
  munmap(memory->MapBase, memory->MapSize);
  delete memory;
}

int ANeuralNetworksModel_create(ANeuralNetworksModel **model) {
  if (!model)
    return UNEXPECTED_NULL;
  *model = new (std::nothrow) ANeuralNetworksModel;
  return *model ? NO_ERROR : OUT_OF_MEMORY;
}

void ANeuralNetworksModel_free(ANeuralNetworksModel *model) { delete model; }

int ANeuralNetworksModel_addOperand(ANeuralNetworksModel *model,
                                    const ANeuralNetworksOperandType *type) {
  if (int R = modelUsable(model, "addOperand"))
    return R;
  if (!type)
    return UNEXPECTED_NULL;
  std::string Error = checkOperandType(*type);
  if (!Error.empty()) {
    report("operand " + std::to_string(model->Operands.size()) + ": " + Error);
    return BAD_DATA;
  }
  try {
    Operand O;
    O.Type = type->type;
    O.Dims.assign(type->dimensions, type->dimensions + type->dimensionCount);
    O.Scale = type->scale;
    O.ZeroPoint = type->zeroPoint;
    model->Operands.push_back(std::move(O));
  } catch (const std::bad_alloc &) {
    return OUT_OF_MEMORY;
  }
  return NO_ERROR;
}

int ANeuralNetworksModel_setOperandValue(ANeuralNetworksModel *model,
                                         int32_t index, const void *buffer,
                                         size_t length) {
  if (int R = modelUsable(model, "setOperandValue"))
    return R;
  if (index < 0 || size_t(index) >= model->Operands.size()) {
    report("setOperandValue: operand " + std::to_string(index) +
           " out of range");
    return BAD_DATA;
  }
  Operand &O = model->Operands[size_t(index)];
  if (!buffer) {
    if (length != 0) {
      report("setOperandValue: null buffer of " + std::to_string(length) +
             " bytes");
      return UNEXPECTED_NULL;
    }
    // An omitted optional input; the operation's validation says whether
    // it may be left out.
    O.IsConstant = true;
    O.Omitted = true;
    O.Length = 0;
    O.Copy.clear();
    O.Ref = nullptr;
    return NO_ERROR;
  }
  if (length != O.byteSize()) {
    report("setOperandValue: operand " + std::to_string(index) + " (" +
           operandTypeName(O.Type) + " " + dimsString(O.Dims) + ") is " +
           std::to_string(O.byteSize()) + " bytes, given " +
           std::to_string(length));
    return BAD_DATA;
  }
  O.IsConstant = true;
  O.Omitted = false;
  O.Length = length;
  if (length <= 128) {
    const auto *B = static_cast<const uint8_t *>(buffer);
    O.Copy.assign(B, B + length);
    O.Ref = nullptr;
  } else {
    O.Copy.clear();
    O.Ref = static_cast<const uint8_t *>(buffer);
  }
  return NO_ERROR;
}

int ANeuralNetworksModel_setOperandValueFromMemory(
    ANeuralNetworksModel *model, int32_t index,
    const ANeuralNetworksMemory *memory, size_t offset, size_t length) {
  if (int R = modelUsable(model, "setOperandValueFromMemory"))
    return R;
  if (!memory)
    return UNEXPECTED_NULL;
  if (index < 0 || size_t(index) >= model->Operands.size()) {
    report("setOperandValueFromMemory: operand " + std::to_string(index) +
           " out of range");
    return BAD_DATA;
  }
  Operand &O = model->Operands[size_t(index)];
  if (length != O.byteSize()) {
    report("setOperandValueFromMemory: operand " + std::to_string(index) +
           " is " + std::to_string(O.byteSize()) + " bytes, given " +
           std::to_string(length));
    return BAD_DATA;
  }
  if (offset > memory->Size || length > memory->Size - offset) {
    report("setOperandValueFromMemory: operand " + std::to_string(index) +
           ": bytes " + std::to_string(offset) + "+" + std::to_string(length) +
           " outside the memory's " + std::to_string(memory->Size));
    return BAD_DATA;
  }
  O.IsConstant = true;
  O.Omitted = false;
  O.Length = length;
  O.Copy.clear();
  O.Ref = memory->Data + offset;
  return NO_ERROR;
}

int ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(
    ANeuralNetworksModel *model, int32_t index,
    const ANeuralNetworksSymmPerChannelQuantParams *channelQuant) {
  if (!functionAvailable("ANeuralNetworksModel_setOperandSymmPerChannelQuantParams", 29))
    return BAD_DATA;
  if (int R = modelUsable(model, "setOperandSymmPerChannelQuantParams"))
    return R;
  if (!channelQuant)
    return UNEXPECTED_NULL;
  if (index < 0 || size_t(index) >= model->Operands.size()) {
    report("setOperandSymmPerChannelQuantParams: operand " +
           std::to_string(index) + " out of range");
    return BAD_DATA;
  }
  Operand &O = model->Operands[size_t(index)];
  std::string Where = "setOperandSymmPerChannelQuantParams: operand " +
                      std::to_string(index) + ": ";
  if (O.Type != TENSOR_QUANT8_SYMM_PER_CHANNEL) {
    report(Where + operandTypeName(O.Type) +
           " is not TENSOR_QUANT8_SYMM_PER_CHANNEL");
    return BAD_DATA;
  }
  if (channelQuant->channelDim >= O.Dims.size()) {
    report(Where + "channelDim " + std::to_string(channelQuant->channelDim) +
           " of a rank " + std::to_string(O.Dims.size()) + " tensor");
    return BAD_DATA;
  }
  if (channelQuant->scaleCount != O.Dims[channelQuant->channelDim]) {
    report(Where + std::to_string(channelQuant->scaleCount) +
           " scales for dimension " + std::to_string(channelQuant->channelDim) +
           " of " + dimsString(O.Dims));
    return BAD_DATA;
  }
  if (!channelQuant->scales && channelQuant->scaleCount)
    return UNEXPECTED_NULL;
  for (uint32_t I = 0; I < channelQuant->scaleCount; ++I) {
    float S = channelQuant->scales[I];
    if (!(S > 0) || !std::isfinite(S)) {
      report(Where + "scale " + std::to_string(I) + " is " + std::to_string(S) +
             " (must be > 0)");
      return BAD_DATA;
    }
  }
  O.HasChannelQuant = true;
  O.ChannelDim = channelQuant->channelDim;
  O.ChannelScales.assign(channelQuant->scales,
                         channelQuant->scales + channelQuant->scaleCount);
  return NO_ERROR;
}

int ANeuralNetworksModel_addOperation(ANeuralNetworksModel *model,
                                      ANeuralNetworksOperationType type,
                                      uint32_t inputCount,
                                      const uint32_t *inputs,
                                      uint32_t outputCount,
                                      const uint32_t *outputs) {
  if (int R = modelUsable(model, "addOperation"))
    return R;
  if ((inputCount && !inputs) || (outputCount && !outputs))
    return UNEXPECTED_NULL;
  const std::string Where =
      "operation " + std::to_string(model->Operations.size()) + " (" +
      operationName(type) + "): ";
  const OperationInfo *Info = findOperation(type);
  if (!Info) {
    report(Where + "unknown operation code " + std::to_string(type));
    return BAD_DATA;
  }
  if (Info->Level > deviceLevel()) {
    report(Where + "needs feature level " + std::to_string(Info->Level) +
           "; the device is at " + std::to_string(deviceLevel()));
    return BAD_DATA;
  }
  if (outputCount == 0) {
    report(Where + "no outputs");
    return BAD_DATA;
  }
  for (uint32_t I = 0; I < inputCount + outputCount; ++I) {
    uint32_t Index = I < inputCount ? inputs[I] : outputs[I - inputCount];
    if (Index >= model->Operands.size()) {
      report(Where + (I < inputCount ? "input " : "output ") +
             std::to_string(I < inputCount ? I : I - inputCount) +
             " is operand " + std::to_string(Index) + ", out of range");
      return BAD_DATA;
    }
  }
  try {
    Operation Op;
    Op.Type = type;
    Op.Inputs.assign(inputs, inputs + inputCount);
    Op.Outputs.assign(outputs, outputs + outputCount);
    model->Operations.push_back(std::move(Op));
  } catch (const std::bad_alloc &) {
    return OUT_OF_MEMORY;
  }
  return NO_ERROR;
}

int ANeuralNetworksModel_identifyInputsAndOutputs(ANeuralNetworksModel *model,
                                                  uint32_t inputCount,
                                                  const uint32_t *inputs,
                                                  uint32_t outputCount,
                                                  const uint32_t *outputs) {
  if (int R = modelUsable(model, "identifyInputsAndOutputs"))
    return R;
  if ((inputCount && !inputs) || (outputCount && !outputs))
    return UNEXPECTED_NULL;
  for (uint32_t I = 0; I < inputCount + outputCount; ++I) {
    uint32_t Index = I < inputCount ? inputs[I] : outputs[I - inputCount];
    if (Index >= model->Operands.size()) {
      report("identifyInputsAndOutputs: operand " + std::to_string(Index) +
             " out of range");
      return BAD_DATA;
    }
    if (model->Operands[Index].IsConstant) {
      report("identifyInputsAndOutputs: operand " + std::to_string(Index) +
             " is a constant");
      return BAD_DATA;
    }
  }
  model->Inputs.assign(inputs, inputs + inputCount);
  model->Outputs.assign(outputs, outputs + outputCount);
  return NO_ERROR;
}

int ANeuralNetworksModel_relaxComputationFloat32toFloat16(
    ANeuralNetworksModel *model, bool allow) {
  if (!functionAvailable("ANeuralNetworksModel_relaxComputationFloat32toFloat16", 28))
    return BAD_DATA;
  if (int R = modelUsable(model, "relaxComputationFloat32toFloat16"))
    return R;
  model->Relaxed = allow;
  return NO_ERROR;
}

int ANeuralNetworksModel_finish(ANeuralNetworksModel *model) {
  if (int R = modelUsable(model, "finish"))
    return R;
  ANeuralNetworksModel &M = *model;
  if (M.Outputs.empty()) {
    report("finish: the model has no outputs (identifyInputsAndOutputs)");
    return BAD_DATA;
  }
  const int Level = deviceLevel();
  std::vector<char> Known(M.Operands.size(), 0);
  for (size_t I = 0; I < M.Operands.size(); ++I) {
    const Operand &O = M.Operands[I];
    Known[I] = O.IsConstant;
    if (O.Type == TENSOR_QUANT8_SYMM_PER_CHANNEL && !O.HasChannelQuant) {
      report("operand " + std::to_string(I) +
             ": TENSOR_QUANT8_SYMM_PER_CHANNEL without "
             "setOperandSymmPerChannelQuantParams");
      return BAD_DATA;
    }
  }
  for (uint32_t In : M.Inputs) {
    if (Known[In]) {
      report("finish: model input operand " + std::to_string(In) +
             " listed twice");
      return BAD_DATA;
    }
    Known[In] = 1;
  }
  for (size_t I = 0; I < M.Operations.size(); ++I) {
    const Operation &Op = M.Operations[I];
    const std::string Where = "operation " + std::to_string(I) + " (" +
                              operationName(Op.Type) + "): ";
    for (size_t J = 0; J < Op.Inputs.size(); ++J) {
      if (!Known[Op.Inputs[J]]) {
        report(Where + "input " + std::to_string(J) + " (operand " +
               std::to_string(Op.Inputs[J]) +
               ") is not a constant, a model input or the output of an "
               "earlier operation");
        return BAD_DATA;
      }
    }
    for (size_t J = 0; J < Op.Outputs.size(); ++J) {
      uint32_t Out = Op.Outputs[J];
      if (Known[Out]) {
        report(Where + "output " + std::to_string(J) + " (operand " +
               std::to_string(Out) +
               ") is a constant, a model input or already written");
        return BAD_DATA;
      }
      Known[Out] = 1;
    }
    for (uint32_t Index : Op.Inputs) {
      const Operand &O = M.Operands[Index];
      if (isTensorType(O.Type))
        for (uint32_t D : O.Dims)
          if (D == 0) {
            report(Where + "operand " + std::to_string(Index) +
                   " has unspecified dimensions " + dimsString(O.Dims));
            return BAD_DATA;
          }
    }
    try {
      validateOperation(M, I, Level);
    } catch (const Invalid &E) {
      report(Where + E.what());
      return BAD_DATA;
    } catch (const std::bad_alloc &) {
      return OUT_OF_MEMORY;
    }
  }
  for (uint32_t Out : M.Outputs) {
    if (!Known[Out]) {
      report("finish: model output operand " + std::to_string(Out) +
             " is never written");
      return BAD_DATA;
    }
  }
  M.Finished = true;
  return NO_ERROR;
}

} // extern "C"

// The NNAPI target's executor: it runs a file's NnapiPayload through the
// NNAPI library (NnapiLibrary.h) and never reads its operators, except the
// host steps around the model (NnapiHostSteps.h). At creation it builds the
// ANeuralNetworksModel (weight segments from the mapped file through
// ANeuralNetworksMemory, or in place), compiles it (devices other than
// NNAPI's CPU only when asked; NNAPI's compilation cache when given a
// folder) and, where NNAPI has reusable executions (API level 31), binds
// one to the host buffers once. run() runs host_before, the model and
// host_after. Graph tensors live in host buffers in kiln's encoding; a
// TENSOR_QUANT8_ASYMM operand of an i8 tensor holds its values plus 128,
// converted in a staging buffer on the way in and out.
#pragma once

#include "nnapi/NnapiLibrary.h"
#include "target/Executor.h"

#include <string>
#include <vector>

namespace kiln::rt {

class NnapiExecutor final : public Executor {
public:
  ~NnapiExecutor() override;
  NnapiExecutor(const NnapiExecutor &) = delete;
  NnapiExecutor &operator=(const NnapiExecutor &) = delete;

  /// KILN_ERROR_UNSUPPORTED when the library cannot be loaded, lacks a
  /// function the model needs, or NNAPI refuses the model or compilation
  /// (the message names the call, the result code and, for an operation,
  /// its index and name).
  static Status create(std::shared_ptr<const LoadedModel> Model,
                       const SessionOptions &Opts,
                       std::unique_ptr<NnapiExecutor> &Out);

  /// Graph inputs and outputs, the host steps' tensors, the model's io
  /// and (KeepIntermediates) every tensor an operation output maps: their
  /// host buffers. Constants: their bytes in the file. Others: null.
  uint8_t *hostTensor(size_t T) const override;
  Status run(std::vector<uint64_t> *OpTimes) override;
  /// "host" for the host steps, "nnapi" for the rest.
  const char *engine(size_t Op) const override;
  /// The host buffers' bytes.
  uint64_t arenaBytes() const override { return HostBytes; }
  EngineInfo engineInfo() const override;

private:
  NnapiExecutor() = default;
  const fb::NnapiPayload &payload() const {
    return *Model->Root->payload_as_NnapiPayload();
  }
  /// The library has the functions of the payload's feature level.
  Status checkLevel() const;
  Status buildModel(bool KeepIntermediates);
  Status setOperandValues();
  Status compile(const NnapiOptions &Opts);
  Status chooseDevices(std::vector<const ANeuralNetworksDevice *> &Out);
  /// An execution bound to the host buffers (Reuse: setReusable first).
  Status createExecution(ANeuralNetworksExecution *&Out, bool Reuse);
  Status compute(ANeuralNetworksExecution *E);
  void hostSteps(const flatbuffers::Vector<uint32_t> *Ops,
                 std::vector<uint64_t> *OpTimes);
  uint8_t *buffer(size_t T);

  /// A model input or output: its operand and host tensor, and a staging
  /// buffer where NNAPI's bytes differ from kiln's (QUANT8_ASYMM of i8).
  struct Io {
    uint32_t Operand;
    size_t Tensor;
    std::vector<uint8_t> Staging;
  };

  std::shared_ptr<const LoadedModel> Model;
  std::unique_ptr<NnapiLibrary> Lib;
  ANeuralNetworksMemory *FileMemory = nullptr;
  ANeuralNetworksModel *NnModel = nullptr;
  ANeuralNetworksCompilation *Compilation = nullptr;
  /// Bound once (setReusable, API level 31); null: one per run.
  ANeuralNetworksExecution *Reusable = nullptr;
  std::vector<std::vector<uint8_t>> Host; // by tensor
  uint64_t HostBytes = 0;
  std::vector<Io> Inputs, Outputs;
  std::vector<char> OnHost; // by operator
  std::string Devices, Precision;
};

} // namespace kiln::rt

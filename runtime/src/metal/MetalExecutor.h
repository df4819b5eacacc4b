// The Metal target's executor (iOS, macOS; KILN_WITH_METAL): it runs a
// file's MetalPayload and, like the Vulkan executor, never reads its
// operators (except to know which activations an operator wrote, for
// keep_intermediates). At creation it makes one MTLBuffer per buffer of the
// payload (shared storage: the host reads and writes INPUT, OUTPUT and kept
// activations in place), fills the WEIGHTS buffers once from the file's
// weight segments, compiles each kernel's MSL (MetalPipelines.h) and makes
// one compute pipeline per (kernel, function-constant values). run() encodes
// every dispatch, in order, into one serial compute encoder of one command
// buffer, commits it and waits. Profiling and keep_intermediates split the
// run into several command buffers (MetalExecutor.mm says how).
//
// A pure C++ header (the Objective-C++ state is behind Impl), so that
// the registry (MetalTarget.cpp) stays C++.
#pragma once

#include "target/Executor.h"

#include <memory>

namespace kiln::rt::metal {

class MetalExecutor final : public Executor {
public:
  ~MetalExecutor() override;
  MetalExecutor(const MetalExecutor &) = delete;
  MetalExecutor &operator=(const MetalExecutor &) = delete;

  /// KILN_ERROR_UNSUPPORTED without a Metal device, or when the OS lacks the
  /// MSL version the kernels need; KILN_ERROR_INVALID_MODEL when a kernel
  /// does not compile or a dispatch exceeds the device's limits;
  /// KILN_ERROR_OUT_OF_MEMORY when the buffers do not fit.
  static Status create(std::shared_ptr<const LoadedModel> Model,
                       const SessionOptions &Opts,
                       std::unique_ptr<MetalExecutor> &Out);

  /// Graph inputs and outputs: their buffers' bytes (f32, the caller's
  /// layout). Kept activations: their bytes in the host layout after a run.
  /// Constants: their bytes in the file. Other activations: null.
  uint8_t *hostTensor(size_t T) const override;
  Status run(std::vector<uint64_t> *OpTimes) override;
  const char *engine(size_t) const override { return "metal"; }
  /// The ARENA buffers' bytes.
  uint64_t arenaBytes() const override;
  EngineInfo engineInfo() const override;

private:
  MetalExecutor();
  struct Impl;
  std::unique_ptr<Impl> I;
};

} // namespace kiln::rt::metal

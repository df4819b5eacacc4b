// The .kiln metadata every target that writes a .kiln file fills the same
// way from the driver's EmitRequest: producer, pipeline, passes,
// quantization and source model name (the writer adds the source hash).
#pragma once

#include "backends/Target.h"
#include "backends/common/KilnWriter.h"
#include "backends/common/SelfTestRecord.h"
#include "passes/quant/QuantizeGraph.h"
#include "schema/kiln_generated.h"

#include "Support/Error.h"
#include "Support/Hash.h"

#include "llvm/Support/Path.h"

namespace kiln {

inline fb::Quantization fileQuantization(QuantizeMode M) {
  switch (M) {
  case QuantizeMode::None:
    break;
  case QuantizeMode::Fp16:
    return fb::Quantization::FP16_WEIGHTS;
  case QuantizeMode::Int8Dynamic:
    return fb::Quantization::INT8_DYNAMIC;
  case QuantizeMode::Int8:
    return fb::Quantization::INT8_STATIC;
  }
  return fb::Quantization::NONE;
}

inline void fillMetadata(fb::MetadataT &MD, const EmitRequest &R,
                         QuantizeMode Mode) {
  MD.producer = "kiln";
  MD.producer_version = R.ProducerVersion;
  MD.pipeline = R.Pipeline;
  for (const PassSummary &P : R.Passes)
    MD.passes.push_back(P.Name);
  // A model that arrived quantized is static int8 with its own scales.
  if (auto A = arrivedQuantized(R.Passes, Mode != QuantizeMode::None))
    Mode = A->KeptScales ? QuantizeMode::Int8
           : A->Dynamic  ? QuantizeMode::Int8Dynamic
                         : QuantizeMode::None; // every layer kept float
  MD.quantization = fileQuantization(Mode);
  MD.source_model = llvm::sys::path::filename(
                        R.SourceModel.empty() ? R.Input : R.SourceModel)
                        .str();
}

/// Writes M to R.Output as every .kiln target does: the source hash filled
/// in while the segments are written, then (on the complete bytes) the hash
/// error, the target's own Check when given, and the driver's verifier, all
/// before the file replaces R.Output. FileBytes gets the file's size.
inline llvm::Error
writeRequestedKilnFile(const EmitRequest &R, KilnModule &M, uint64_t &FileBytes,
                       llvm::function_ref<llvm::Error()> Check = nullptr) {
  if (R.Bytes) { // a part of a partitioned file: the same checks, in memory
                 // (a part carries no self-test: the outer file does)
    if (R.SourceHash && M.Model.metadata)
      M.Model.metadata->source_hash = hashToHex(R.SourceHash());
    auto Bytes = serializeKilnModule(M);
    if (!Bytes)
      return Bytes.takeError();
    if (R.SourceHashError)
      if (llvm::Error HashError = R.SourceHashError())
        return HashError;
    FileBytes = Bytes->size();
    if (Check)
      if (llvm::Error E = Check())
        return E;
    if (R.VerifyFile)
      if (llvm::Error E = R.VerifyFile(*Bytes))
        return E;
    *R.Bytes = std::move(*Bytes);
    return llvm::Error::success();
  }
  if (R.SelfTest)
    attachSelfTest(M, *R.SelfTest);
  return writeKilnFile(
      R.Output, M,
      [&](llvm::StringRef Written) {
        if (R.SourceHashError)
          if (llvm::Error HashError = R.SourceHashError())
            return HashError;
        FileBytes = Written.size();
        if (Check)
          if (llvm::Error E = Check())
            return E;
        return R.VerifyFile ? R.VerifyFile(Written) : llvm::Error::success();
      },
      R.SourceHash ? LateSourceHash([&R] { return R.SourceHash(); })
                   : LateSourceHash());
}

/// What every .kiln target's Emit ends with: M's metadata filled from R
/// (fillMetadata), then the file written (writeRequestedKilnFile, with the
/// target's own Check when given).
inline llvm::Error emitKilnModule(const EmitRequest &R, QuantizeMode Mode,
                                  KilnModule &M, uint64_t &FileBytes,
                                  llvm::function_ref<llvm::Error()> Check = nullptr) {
  fillMetadata(*M.Model.metadata, R, Mode);
  return writeRequestedKilnFile(R, M, FileBytes, Check);
}

/// The refusal of int8 by a target that does not take it (Target::TakesInt8
/// false: the GPU targets, whose kernels have no int8 variants yet), naming
/// the target ("Vulkan", "Metal"); success for none and fp16. Its Emit
/// says it, and so does `--fallback cpu` before placement (a device part
/// of an int8 graph could not be written).
inline llvm::Error refuseGpuInt8(llvm::StringRef Input, QuantizeMode Mode,
                                 llvm::StringRef Target) {
  if (Mode == QuantizeMode::None || Mode == QuantizeMode::Fp16)
    return llvm::Error::success();
  return unsupportedError("{0}: the {1} target does not take --quantize {2} yet; "
                    "convert without --quantize or with --quantize fp16",
                    Input, Target,
                    Mode == QuantizeMode::Int8 ? "int8" : "int8-dynamic");
}
inline llvm::Error refuseGpuInt8(const EmitRequest &R, QuantizeMode Mode,
                                 llvm::StringRef Target) {
  return refuseGpuInt8(R.Input, Mode, Target);
}

} // namespace kiln

#include "Accepted.h"
#include "InputFuzzTargets.h"

#include "Build/Manifest.h"
#include "Driver/PassRecord.h"
#include "IR/Verifier.h"
#include "frontends/onnx/OnnxImporter.h"
#include "passes/PassManager.h"
#include "passes/Pipelines.h"

#include "llvm/ADT/StringRef.h"

namespace kiln::fuzz {

namespace {

bool runOnnx(llvm::StringRef Bytes) {
  auto G = importOnnxBuffer(Bytes, "fuzz.onnx");
  if (!accepted(G))
    return false;
  if (!accepted(verifyGraph(**G)))
    return false;
  PassManager PM;
  for (const std::string &Pass : pipelineForLevel(2))
    if (!accepted(PM.add(Pass)))
      return false;
  return accepted(PM.run(**G));
}

bool runManifest(llvm::StringRef Bytes) {
  auto M = parseManifest(Bytes, "fuzz.toml", "/nonexistent-kiln-fuzz");
  return accepted(M);
}

bool runPassRecord(llvm::StringRef Bytes) {
  auto R = parsePassRecord(Bytes, "fuzz.passes.json");
  if (!accepted(R))
    return false;
  // Printed and read again, it is the same record.
  std::string Text = llvm::formatv("{0}", passRecordJson(*R)).str();
  auto Again = parsePassRecord(Text, "fuzz.passes.json");
  if (!Again || Again->Passes.size() != R->Passes.size() ||
      Again->OpsBefore != R->OpsBefore || Again->IrHash != R->IrHash)
    __builtin_trap();
  return true;
}


} // namespace

bool runInput(InputKind Kind, const uint8_t *Data, size_t Size) {
  if (isDataKind(Kind))
    return runDataInput(Kind, Data, Size);
  llvm::StringRef Bytes(reinterpret_cast<const char *>(Data), Size);
  switch (Kind) {
  case InputKind::Manifest:
    return runManifest(Bytes);
  case InputKind::PassRecord:
    return runPassRecord(Bytes);
  default:
    return runOnnx(Bytes);
  }
}

} // namespace kiln::fuzz

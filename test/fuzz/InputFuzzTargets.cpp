#include "Accepted.h"
#include "InputFuzzTargets.h"

#include "Build/Manifest.h"
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

} // namespace

bool runInput(InputKind Kind, const uint8_t *Data, size_t Size) {
  if (isDataKind(Kind))
    return runDataInput(Kind, Data, Size);
  llvm::StringRef Bytes(reinterpret_cast<const char *>(Data), Size);
  return Kind == InputKind::Manifest ? runManifest(Bytes) : runOnnx(Bytes);
}

} // namespace kiln::fuzz

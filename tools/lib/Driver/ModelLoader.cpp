// Model loading by file extension: .kir goes to the IR parser, .onnx to the
// ONNX frontend, .pt/.pth to the TorchScript frontend (when built with it).
#include "Driver/ModelLoader.h"

#include "IR/Parser.h"
#include "kiln/kiln.h"
#include "Support/Error.h"
#include "Support/FileSystem.h"
#include "Support/ZipCheck.h"
#include "frontends/onnx/OnnxImporter.h"
#ifdef KILN_WITH_TORCHSCRIPT
#include "frontends/torchscript/TorchScriptImporter.h"
#endif

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace kiln {

llvm::Expected<std::unique_ptr<Graph>> loadModel(llvm::StringRef Path,
                                                 const ModelLoadOptions &Opts) {
  if (llvm::sys::fs::is_directory(Path))
    return inputError("{0}: is a directory, expected a model file", Path);
  // Whatever reads it (libtorch reads .pt itself), -o must not replace it.
  noteInputFile(Path);
  llvm::StringRef Ext = llvm::sys::path::extension(Path);
  if (Ext.equals_insensitive(".kir")) {
    auto G = parseGraphFile(Path);
    if (!G)
      return G.takeError();
    if (llvm::Error E = fixInputShapes(**G, Opts.InputShapes))
      return addContext(std::move(E), Path);
    return G;
  }
  if (Ext.equals_insensitive(".onnx")) {
    OnnxImportOptions O;
    O.InputShapes = Opts.InputShapes;
    return importOnnxFile(Path, O);
  }
  if (Ext.equals_insensitive(".pt") || Ext.equals_insensitive(".pth")) {
    // The archive is checked even when the frontend is not built, so a
    // malformed file is reported as such rather than as a build problem.
    if (llvm::Error E = checkZipArchive(Path))
      return E;
#ifdef KILN_WITH_TORCHSCRIPT
    TorchScriptImportOptions O;
    O.InputShapes = Opts.InputShapes;
    return importTorchScriptFile(Path, O);
#else
    return inputError("{0}: this kiln was built without the TorchScript "
                      "frontend; install libtorch-dev and reconfigure with "
                      "-DKILN_WITH_TORCHSCRIPT=ON (or export the model to "
                      "ONNX)",
                      Path);
#endif
  }
  if (Ext.equals_insensitive(".kiln")) {
    // A compiled file: name its target, so that a Vulkan file given to a
    // command that compiles or interprets models says what it is.
    std::string Target = "compiled";
    kiln_model *M = nullptr;
    if (kiln_model_load(Path.str().c_str(), &M) == KILN_OK) {
      Target = std::string(kiln_model_target(M)) + " target";
      kiln_model_destroy(M);
    }
    return inputError("{0}: a compiled .kiln file ({1}); this command reads "
                      "source models (.kir, .onnx, .pt). kiln run, bench, "
                      "diff and inspect take .kiln files",
                      Path, Target);
  }
  return inputError("{0}: unknown model kind '{1}'; kiln reads .kir (kiln IR "
                    "text), .onnx (ONNX) and .pt (TorchScript) models, and "
                    "kiln run, bench, diff and inspect also take compiled "
                    ".kiln files",
                    Path, Ext.empty() ? "(no extension)" : Ext);
}

llvm::Expected<ModelLoadOptions>
makeLoadOptions(const std::vector<std::string> &InputShapeSpecs) {
  ModelLoadOptions O;
  for (const std::string &Spec : InputShapeSpecs)
    if (llvm::Error E = parseInputShapeSpec(Spec, O.InputShapes))
      return E;
  return O;
}

void addInputShapeOption(CLI::App &Sub, std::vector<std::string> &Specs) {
  Sub.add_option("--input-shape", Specs,
                 "fix an input's shape: NAME=1x3x224x224, or 1x3x224x224 for "
                 "a single-input model (repeatable)")
      ->allow_extra_args(false);
}

} // namespace kiln

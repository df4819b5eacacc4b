// Model loading by file extension: .kir goes to the IR parser, .onnx to the
// ONNX frontend.
#include "ModelLoader.h"

#include "IR/Parser.h"
#include "Support/Error.h"
#include "frontends/onnx/OnnxImporter.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace kiln {

llvm::Expected<std::unique_ptr<Graph>> loadModel(llvm::StringRef Path,
                                                 const ModelLoadOptions &Opts) {
  if (llvm::sys::fs::is_directory(Path))
    return inputError("{0}: is a directory, expected a model file", Path);
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
  return inputError("{0}: unknown model kind '{1}'; kiln reads .kir (kiln IR "
                    "text) and .onnx (ONNX) models",
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
                 "a single-input model (repeatable)");
}

} // namespace kiln

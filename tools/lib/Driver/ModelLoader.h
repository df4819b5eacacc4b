// Loading a model for any kiln command: the reader is picked from the file
// extension (.kir text IR, .onnx), so commands never deal with formats.
// --input-shape (repeatable) fixes input dims: the ONNX frontend takes them
// while importing (so auto_pad and friends see static dims); a .kir graph
// gets them afterwards, with its types re-inferred (IR/InputShapes.h).
#pragma once

#include "IR/Graph.h"
#include "IR/InputShapes.h"

#include "llvm/Support/Error.h"

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

namespace kiln {

struct ModelLoadOptions {
  /// name -> dims; the empty name means "the only input".
  InputShapeMap InputShapes;
};

/// Reads Path with the reader for its extension. Errors name the file; an
/// unknown extension lists the supported kinds.
llvm::Expected<std::unique_ptr<Graph>> loadModel(llvm::StringRef Path,
                                                 const ModelLoadOptions &Opts);

/// Builds the options from --input-shape specs (usage error on bad syntax).
llvm::Expected<ModelLoadOptions>
makeLoadOptions(const std::vector<std::string> &InputShapeSpecs);

/// Adds the repeatable --input-shape option to a subcommand.
void addInputShapeOption(CLI::App &Sub, std::vector<std::string> &Specs);

} // namespace kiln

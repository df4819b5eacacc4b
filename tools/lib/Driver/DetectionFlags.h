// `--nms iou=0.45,score=0.25,max=100[,output=NAME]`, shared by `kiln
// convert` and `kiln opt`: NMS appended to a YOLO-style model
// (passes/DetectionNms.h).
#pragma once

#include "IR/Graph.h"

#include <CLI/CLI.hpp>

#include "llvm/Support/Error.h"

#include <string>

namespace kiln {

void addDetectionFlags(CLI::App &Sub, std::string &Nms);

/// Usage errors in the flag, before any model is read.
llvm::Error checkDetectionFlags(const std::string &Nms);

/// Appends the post-processing when the flag is given.
llvm::Error applyDetectionFlags(const std::string &Nms, Graph &G);

} // namespace kiln

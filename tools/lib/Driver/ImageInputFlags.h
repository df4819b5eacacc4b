// The command-line options for camera-frame inputs and mask outputs, shared
// by `kiln convert` and `kiln opt`:
//   --image-input NAME=FORMAT   input NAME takes u8 frames (passes/ImageInput.h)
//   --mean a,b,c --std a,b,c    normalization, in 0-255 pixel units
//   --image-channels rgb|bgr    the channel order the model was trained on
//   --argmax-output NAME        output NAME as a u8 argmax mask
#pragma once

#include "IR/Graph.h"

#include <CLI/CLI.hpp>

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace kiln {

class PassManager;

struct ImageInputFlags {
  std::vector<std::string> Inputs;
  std::string Mean, Std;
  std::string ChannelOrder = "rgb";
  std::vector<std::string> ArgmaxOutputs;

  bool any() const { return !Inputs.empty() || !ArgmaxOutputs.empty(); }
};

void addImageInputFlags(CLI::App &Sub, ImageInputFlags &F);

/// Usage errors in the flags, before any model is read.
llvm::Error checkImageInputFlags(const ImageInputFlags &F);

/// Rewrites G's image inputs and mask outputs, then runs
/// fold-image-normalization through PM (so it is verified, printed and
/// reported like every other pass).
llvm::Error applyImageInputFlags(const ImageInputFlags &F, Graph &G,
                                 PassManager &PM);

} // namespace kiln

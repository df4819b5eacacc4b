// Image inputs (`kiln convert --image-input NAME=FORMAT --mean --std`): the
// graph input NAME, a float image f32[N, C, H, W], becomes the frame an app
// holds, u8[N, H, W, bytes] (nv21: u8[N, H + H/2, W, 1]), read by one
// pixels_to_tensor node that converts, reorders and normalizes it
// (lib/IR/ops/ImageOps.cpp). fold-image-normalization then hands the 1/std
// to the first conv where it can.
#pragma once

#include "IR/Graph.h"

#include "numerics/PixelFormats.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace kiln {

struct ImageInputSpec {
  std::string Input;
  numerics::PixelFormat Format = numerics::PixelFormat::Unknown;
  /// Per model channel (or one for all), in 0-255 pixel units.
  std::vector<double> Mean = {0.0}, Std = {1.0};
  /// The channel order the model was trained on: "rgb" or "bgr".
  std::string ChannelOrder = "rgb";
};

/// Parses "NAME=FORMAT"; usage errors name the flag and the formats.
llvm::Expected<ImageInputSpec> parseImageInputFlag(llvm::StringRef Text);

/// Rewrites input S.Input as described above. Errors (an unknown input, a
/// type that is not a static-size image of 1 or 3 channels, a std of 0)
/// name the input.
llvm::Error attachImageInput(Graph &G, const ImageInputSpec &S);

} // namespace kiln

namespace kiln {

/// `--argmax-output NAME`: output NAME, scores f32[N, C, H, W] (C <= 256),
/// becomes the u8[N, H, W] index of the largest score along C (the first on
/// ties), the mask a segmentation app draws. Errors name the output.
llvm::Error attachArgmaxOutput(Graph &G, llvm::StringRef Output);

} // namespace kiln

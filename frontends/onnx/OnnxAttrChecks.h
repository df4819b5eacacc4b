// Range checks on node attributes that ONNX shape inference divides by,
// allocates from or loops over. libonnx trusts them (strides=0 is a SIGFPE
// inside convPoolShapeInference), so they run before onnx::shape_inference.
#pragma once

#include "llvm/Support/Error.h"

#include <string>

namespace onnx {
class NodeProto;
} // namespace onnx

namespace kiln::onnx_import {

/// Checks the window attributes of Conv/ConvTranspose/pooling (strides,
/// dilations, kernel_shape >= 1; pads, output_padding >= 0; all at most
/// limits::MaxSpatialParam; group >= 1) and the block size of
/// DepthToSpace/SpaceToDepth. Where: "FILE: node 'NAME' (OP)".
llvm::Error checkNodeAttributes(const onnx::NodeProto &N,
                                const std::string &Where);

} // namespace kiln::onnx_import

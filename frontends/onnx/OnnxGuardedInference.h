// libonnx's shape inference functions trust that a node's inputs and
// attributes agree in rank: a Conv whose weight has one more dimension than
// its input makes convPoolShapeInference index its pads past their end (a
// SEGV found by kiln-onnx-fuzzer). Attribute values can be range-checked
// before inference (OnnxAttrChecks), but ranks of intermediate values are
// only known during it, so the guard sits inside: a schema registry that
// hands libonnx each sliding-window op's schema with a check in front of its
// inference function. A failed check is an inference error for that node
// only (kiln runs inference with errors ignored); the importer's own
// converters then refuse the node with kiln's message.
#pragma once

namespace onnx {
class ISchemaRegistry;
} // namespace onnx

namespace kiln::onnx_import {

/// The registry to pass to onnx::shape_inference::InferShapes: libonnx's
/// own, with guarded Conv, ConvTranspose, ConvInteger, QLinearConv and the
/// pools. Thread-safe; lives for the process.
const onnx::ISchemaRegistry *guardedSchemaRegistry();

} // namespace kiln::onnx_import

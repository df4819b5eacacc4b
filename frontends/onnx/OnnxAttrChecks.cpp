// Attribute ranges checked before ONNX shape inference sees the model. The
// importer's converters and lib/IR check the same things again on the IR;
// this copy exists because libonnx runs first and crashes on them.
#include "frontends/onnx/OnnxAttrChecks.h"

#include "Support/Error.h"
#include "Support/Limits.h"

#include "llvm/ADT/StringRef.h"

#include <onnx/onnx_pb.h>

namespace kiln::onnx_import {

namespace {

struct IntRule {
  const char *Attr;
  int64_t Min;
  int64_t Max;
};

constexpr int64_t MaxSP = limits::MaxSpatialParam;

/// Attributes of the sliding-window ops: divisors (strides), window sizes
/// (kernel_shape, dilations) and extents (pads, output_padding).
constexpr IntRule WindowRules[] = {
    {"strides", 1, MaxSP},        {"dilations", 1, MaxSP},
    {"kernel_shape", 1, MaxSP},   {"pads", 0, MaxSP},
    {"output_padding", 0, MaxSP}, {"output_shape", 0, limits::MaxDim},
    {"group", 1, MaxSP},
};
constexpr IntRule BlockRules[] = {{"blocksize", 1, MaxSP}};

bool isWindowOp(llvm::StringRef Op) {
  return Op == "Conv" || Op == "ConvTranspose" || Op == "ConvInteger" ||
         Op == "QLinearConv" || Op == "MaxPool" || Op == "AveragePool" ||
         Op == "LpPool" || Op == "MaxUnpool";
}

llvm::Error checkRule(const onnx::AttributeProto &A, const IntRule &R,
                      const std::string &Where) {
  auto Check = [&](int64_t V) -> llvm::Error {
    if (V >= R.Min && V <= R.Max)
      return llvm::Error::success();
    return inputError("{0}: attribute '{1}' has the value {2}, expected {3} "
                      "to {4}",
                      Where, R.Attr, V, R.Min, R.Max);
  };
  // A wrong attribute type is the ONNX checker's to report.
  if (A.type() == onnx::AttributeProto::INT)
    return Check(A.i());
  if (A.type() == onnx::AttributeProto::INTS)
    for (int64_t V : A.ints())
      if (llvm::Error E = Check(V))
        return E;
  return llvm::Error::success();
}

} // namespace

llvm::Error checkNodeAttributes(const onnx::NodeProto &N,
                                const std::string &Where) {
  if (!N.domain().empty() && N.domain() != "ai.onnx")
    return llvm::Error::success();
  llvm::ArrayRef<IntRule> Rules;
  if (isWindowOp(N.op_type()))
    Rules = WindowRules;
  else if (N.op_type() == "DepthToSpace" || N.op_type() == "SpaceToDepth")
    Rules = BlockRules;
  for (const onnx::AttributeProto &A : N.attribute())
    for (const IntRule &R : Rules)
      if (A.name() == R.Attr)
        if (llvm::Error E = checkRule(A, R, Where))
          return E;
  return llvm::Error::success();
}

} // namespace kiln::onnx_import

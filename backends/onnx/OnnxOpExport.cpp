// IR op -> ONNX nodes (opset 14). The IR's canonical ops were modelled on
// ONNX, so most map one to one with renamed attributes; the exceptions:
//   - a fused activation (conv, conv_transpose, add, sub, mul, matmul, gemm,
//     linear with activation=relu|clip|leaky_relu|hard_swish) becomes the
//     op followed by Relu / Clip(min, max) / LeakyRelu(alpha) / HardSwish;
//   - linear(x, w[out,in], b) is Gemm(x, w, b, transB=1) for 2-D x, else
//     MatMul(x, Transpose(w)) (+ Add b);
//   - clip bounds given as attributes become scalar initializers;
//   - quantize without a zero point but with to=i8 gets an int8 zero point
//     (ONNX defaults to uint8).
#include "backends/onnx/OnnxGraphBuilder.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>

namespace kiln::onnx_export {

namespace {

/// Drops trailing absent optional inputs.
std::vector<std::string> trimmed(std::vector<std::string> In) {
  while (!In.empty() && In.back().empty())
    In.pop_back();
  return In;
}

std::vector<std::string> operandNames(const Node &N, GraphBuilder &B) {
  std::vector<std::string> In;
  for (const Value *V : N.operands())
    In.push_back(B.name(V));
  return trimmed(In);
}

std::string activationOf(const Node &N) {
  const AttrValue *A = N.attrOrDefault("activation");
  if (!A || !std::holds_alternative<std::string>(*A))
    return "none";
  return std::get<std::string>(*A);
}

/// Emits Op(In) -> N's result, with N's fused activation (if any) after it.
onnx::NodeProto &withActivation(const std::string &Op,
                                const std::vector<std::string> &In,
                                const Node &N, GraphBuilder &B) {
  std::string Act = activationOf(N);
  std::string Out = B.name(N.result(0));
  if (Act == "none")
    return B.node(Op, In, {Out}, N);
  std::string Pre = B.fresh(Out + "_before_" + Act);
  onnx::NodeProto &Main = B.node(Op, In, {Pre}, N);
  // The activation node gets the name of the source node it was.
  std::string ActName = N.sources().size() > 1 ? N.sources().back() : "";
  if (Act == "relu") {
    B.node("Relu", {Pre}, {Out}, N, ActName);
  } else if (Act == "clip") {
    std::vector<std::string> ClipIn{Pre};
    double Min = N.getFloat("activation_min"), Max = N.getFloat("activation_max");
    ClipIn.push_back(std::isinf(Min) ? "" : B.scalarF32(Out + "_min", float(Min)));
    if (!std::isinf(Max))
      ClipIn.push_back(B.scalarF32(Out + "_max", float(Max)));
    B.node("Clip", trimmed(ClipIn), {Out}, N, ActName);
  } else if (Act == "leaky_relu") {
    setFloat(B.node("LeakyRelu", {Pre}, {Out}, N, ActName), "alpha",
             float(N.getFloat("activation_alpha")));
  } else {
    B.node("HardSwish", {Pre}, {Out}, N, ActName);
  }
  return Main;
}

void copyInts(const Node &N, onnx::NodeProto &P, const char *From,
              const char *To) {
  if (N.hasAttr(From) && !N.getInts(From).empty())
    setInts(P, To, N.getInts(From));
}

bool exportLinear(const Node &N, GraphBuilder &B) {
  const Value *X = N.operand(0);
  std::vector<std::string> In = operandNames(N, B);
  if (X->type().rank() == 2) {
    setInt(withActivation("Gemm", In, N, B), "transB", 1);
    return true;
  }
  std::string WT = B.fresh(In[1] + "_transposed");
  setInts(B.node("Transpose", {In[1]}, {WT}, N), "perm", {1, 0});
  if (In.size() < 3) {
    withActivation("MatMul", {In[0], WT}, N, B);
    return true;
  }
  std::string Product = B.fresh(B.name(N.result(0)) + "_matmul");
  B.node("MatMul", {In[0], WT}, {Product}, N);
  withActivation("Add", {Product, In[2]}, N, B);
  return true;
}

/// Ops exported one to one, without attributes.
const std::map<std::string, std::string> &unaryOps() {
  static const std::map<std::string, std::string> Unary = {
      {"abs", "Abs"},       {"ceil", "Ceil"},         {"floor", "Floor"},
      {"exp", "Exp"},       {"log", "Log"},           {"neg", "Neg"},
      {"reciprocal", "Reciprocal"}, {"relu", "Relu"}, {"sigmoid", "Sigmoid"},
      {"tanh", "Tanh"},     {"sqrt", "Sqrt"},         {"erf", "Erf"},
      {"identity", "Identity"}, {"hard_swish", "HardSwish"},
      {"global_avg_pool", "GlobalAveragePool"},
      {"global_max_pool", "GlobalMaxPool"}};
  return Unary;
}

/// Ops exported one to one, with a fused activation after them if any.
const std::map<std::string, std::string> &binaryOps() {
  static const std::map<std::string, std::string> Binary = {
      {"add", "Add"},   {"sub", "Sub"},         {"mul", "Mul"},
      {"div", "Div"},   {"pow", "Pow"},         {"max", "Max"},
      {"min", "Min"},   {"equal", "Equal"},     {"greater", "Greater"},
      {"less", "Less"}, {"prelu", "PRelu"},     {"matmul", "MatMul"},
      {"reshape", "Reshape"}, {"expand", "Expand"}, {"squeeze", "Squeeze"},
      {"unsqueeze", "Unsqueeze"}, {"slice", "Slice"}};
  return Binary;
}

/// The ops exportNode handles beyond the one-to-one maps.
const char *const SpecialOps[] = {
    "conv",     "conv_transpose", "max_pool",  "avg_pool", "linear",
    "gemm",     "batch_norm",     "clip",      "leaky_relu", "elu",
    "hard_sigmoid", "softmax",    "log_softmax", "concat", "flatten",
    "gather",   "transpose",      "pad",       "cast",     "quantize",
    "dequantize"};

} // namespace

bool exportNode(const Node &N, GraphBuilder &B) {
  const std::map<std::string, std::string> &Unary = unaryOps();
  const std::map<std::string, std::string> &Binary = binaryOps();
  std::string Op = N.opName().str();
  if (N.numResults() != 1 && Op != "max_pool" && Op != "batch_norm")
    return false;
  std::vector<std::string> In = operandNames(N, B);
  std::string Out = B.name(N.result(0));
  if (auto It = Unary.find(Op); It != Unary.end()) {
    B.node(It->second, In, {Out}, N);
    return true;
  }
  if (auto It = Binary.find(Op); It != Binary.end()) {
    withActivation(It->second, In, N, B);
    return true;
  }
  if (Op == "conv" || Op == "conv_transpose") {
    onnx::NodeProto &P =
        withActivation(Op == "conv" ? "Conv" : "ConvTranspose", In, N, B);
    copyInts(N, P, "strides", "strides");
    copyInts(N, P, "pads", "pads");
    copyInts(N, P, "dilations", "dilations");
    copyInts(N, P, "output_padding", "output_padding");
    setInt(P, "group", N.getInt("group"));
    return true;
  }
  if (Op == "max_pool" || Op == "avg_pool") {
    if (N.numResults() != 1)
      return false;
    onnx::NodeProto &P =
        B.node(Op == "max_pool" ? "MaxPool" : "AveragePool", In, {Out}, N);
    setInts(P, "kernel_shape", N.getInts("kernel"));
    copyInts(N, P, "strides", "strides");
    copyInts(N, P, "pads", "pads");
    setInt(P, "ceil_mode", N.getInt("ceil_mode"));
    if (Op == "max_pool")
      copyInts(N, P, "dilations", "dilations");
    else
      setInt(P, "count_include_pad", N.getInt("count_include_pad"));
    return true;
  }
  if (Op == "linear")
    return exportLinear(N, B);
  if (Op == "gemm") {
    onnx::NodeProto &P = withActivation("Gemm", In, N, B);
    setFloat(P, "alpha", float(N.getFloat("alpha")));
    setFloat(P, "beta", float(N.getFloat("beta")));
    setInt(P, "transA", N.getInt("trans_a"));
    setInt(P, "transB", N.getInt("trans_b"));
    return true;
  }
  if (Op == "batch_norm") {
    if (N.numResults() != 1 || N.getInt("training") != 0)
      return false;
    setFloat(B.node("BatchNormalization", In, {Out}, N), "epsilon",
             float(N.getFloat("epsilon")));
    return true;
  }
  if (Op == "clip") {
    if (In.size() == 1) {
      double Min = N.getFloat("min"), Max = N.getFloat("max");
      In.push_back(std::isinf(Min) ? "" : B.scalarF32(Out + "_min", float(Min)));
      if (!std::isinf(Max))
        In.push_back(B.scalarF32(Out + "_max", float(Max)));
    }
    B.node("Clip", trimmed(In), {Out}, N);
    return true;
  }
  if (Op == "leaky_relu" || Op == "elu") {
    setFloat(B.node(Op == "elu" ? "Elu" : "LeakyRelu", In, {Out}, N), "alpha",
             float(N.getFloat("alpha")));
    return true;
  }
  if (Op == "hard_sigmoid") {
    onnx::NodeProto &P = B.node("HardSigmoid", In, {Out}, N);
    setFloat(P, "alpha", float(N.getFloat("alpha")));
    setFloat(P, "beta", float(N.getFloat("beta")));
    return true;
  }
  if (Op == "softmax" || Op == "log_softmax" || Op == "concat" ||
      Op == "flatten" || Op == "gather") {
    static const std::map<std::string, std::string> Names = {
        {"softmax", "Softmax"}, {"log_softmax", "LogSoftmax"},
        {"concat", "Concat"},   {"flatten", "Flatten"}, {"gather", "Gather"}};
    setInt(B.node(Names.at(Op), In, {Out}, N), "axis", N.getInt("axis"));
    return true;
  }
  if (Op == "transpose") {
    onnx::NodeProto &P = B.node("Transpose", In, {Out}, N);
    copyInts(N, P, "perm", "perm");
    return true;
  }
  if (Op == "pad") {
    setString(B.node("Pad", In, {Out}, N), "mode", N.getString("mode"));
    return true;
  }
  if (Op == "cast") {
    setInt(B.node("Cast", In, {Out}, N), "to",
           onnxDataType(N.result(0)->type().Elem));
    return true;
  }
  if (Op == "quantize" || Op == "dequantize") {
    // ONNX reads a missing zero point as uint8; give int8 results theirs.
    if (Op == "quantize" && In.size() == 2 &&
        N.result(0)->type().Elem != ElementType::U8)
      In.push_back(B.zeroOf(Out + "_zero_point", N.result(0)->type().Elem));
    onnx::NodeProto &P = B.node(
        Op == "quantize" ? "QuantizeLinear" : "DequantizeLinear", In, {Out}, N);
    const Value *Scale = N.operand(1);
    if (Scale->type().rank() == 1 && Scale->type().Dims[0].size() != 1)
      setInt(P, "axis", N.getInt("axis"));
    return true;
  }
  return false;
}

/// The node-level conditions under which exportNode declines an op it knows.
bool exportsNode(const Node &N) {
  llvm::StringRef Op = N.opName();
  if (N.numResults() != 1)
    return false;
  if (Op == "batch_norm")
    return N.getInt("training") == 0;
  std::string Name = Op.str();
  return unaryOps().count(Name) || binaryOps().count(Name) ||
         llvm::is_contained(SpecialOps, Op);
}

std::vector<std::string> exportableOps() {
  std::vector<std::string> Ops(std::begin(SpecialOps), std::end(SpecialOps));
  for (const auto &KV : unaryOps())
    Ops.push_back(KV.first);
  for (const auto &KV : binaryOps())
    Ops.push_back(KV.first);
  std::sort(Ops.begin(), Ops.end());
  return Ops;
}

} // namespace kiln::onnx_export

// The -O pipelines: plain ordered lists of pass names (passes/Passes.def).
// test/unit/passes/PipelinesTest.cpp checks that every name is registered.
#include "passes/Pipelines.h"

#include <algorithm>

namespace kiln {

std::vector<std::string> pipelineForLevel(int OptLevel) {
  if (OptLevel <= 0)
    return {}; // -O0: verification only
  // Cleanup first: dropout and no-ops hide patterns from everything after
  // them, and folding runs on the simplified graph. cse after folding merges
  // the constants that folding made identical.
  // fold-integer-op-scales after cse, which has merged the scale products
  // ONNX Runtime's dynamic models repeat.
  std::vector<std::string> Cleanup = {"remove-dropout", "eliminate-noops",
                                      "fold-constants", "cse",
                                      "fold-integer-op-scales"};
  // A model that arrived quantized has its quantize/dequantize pairs made
  // kiln's int8 form once folding has made its zero points constants (the
  // exporters compute some of them) and, at -O2, once canonicalize has made
  // its gemm/matmul layers linear. fold-constants keeps dequantized integer
  // weights, so the int8 weights survive to the backends.
  if (OptLevel == 1) {
    Cleanup.push_back("adopt-imported-qdq");
    Cleanup.push_back("dce"); // last: removes every rewrite's leftovers
    return Cleanup;
  }
  std::vector<std::string> O2 = Cleanup;
  // canonicalize before fusion: matmul/gemm -> linear and conv1d -> conv2d
  // give the fusion passes (and a fused activation) the forms they match.
  O2.push_back("canonicalize");
  // hard_swish as one op before the model's own quantization is adopted:
  // between dequantize and quantize it is then one int8 table.
  O2.push_back("fuse-hard-swish");
  // GELU written out with erf (ONNX exports) as one op, and LayerNorm
  // written out (exports below opset 17).
  O2.push_back("fuse-gelu");
  O2.push_back("fuse-layer-norm");
  O2.push_back("adopt-imported-qdq");
  O2.insert(O2.end(), {
      // BatchNorm and per-channel scales fold into the conv weights before
      // any activation is fused: once conv carries a fused relu, a BN after
      // it can no longer be folded in.
      "fuse-conv-bn",
      "fuse-conv-scale",
      // After the bias add has folded into the packed q/k/v linear.
      "split-sliced-linear",
      "fold-pad-into-conv",
      // Activation fusion last among the fusions, after every rewrite that
      // changes the conv/linear/add it attaches to.
      //
      // Quantization runs after this whole pipeline, so int8 calibration
      // sees fused graphs. relu and clip stay fused under int8: an int8
      // conv, linear or add applies them as its output clamp, so their
      // range is taken after the activation, which is the int8 output's.
      // leaky_relu and hard_swish are not clamps: before calibrating,
      // --quantize int8 and `kiln calibrate` split them back into nodes
      // (unfuse-int8-activations), so the producer's range is taken before
      // the activation and the activation's int8 table maps it to the
      // range taken after. Fusing only relu/clip here would give float
      // builds a slower graph for the sake of int8.
      "fuse-activation",
      "fuse-add-activation",
  });
  // Fusion leaves folded weights and reshapes behind: clean up again, and
  // dce last.
  O2.insert(O2.end(), {"eliminate-noops", "fold-constants", "cse", "dce"});
  return O2;
}

std::vector<std::string> pipelineForRuntimeTarget(int OptLevel) {
  std::vector<std::string> P = pipelineForLevel(OptLevel);
  // Right after the first fold: cse then merges the materialized constants,
  // and the fusions see them. Recurrent layers (whose weights are constant
  // by then) unroll into the ops the targets run, before cse and the
  // fusions.
  auto Fold = std::find(P.begin(), P.end(), "fold-constants");
  if (Fold != P.end())
    P.insert(Fold + 1, {"materialize-constants", "unroll-recurrence"});
  return P;
}

std::vector<std::string> opsRewrittenBy(llvm::StringRef Pass) {
  if (Pass == "unroll-recurrence" || Pass == "unroll-recurrence-keep-lstm" ||
      Pass == "unroll-recurrence-keep-lstm-gru")
    return {"gru", "lstm", "rnn"};
  if (Pass == "expand-layer-norm")
    return {"layer_norm"};
  if (Pass == "expand-gelu")
    return {"gelu"};
  if (Pass == "expand-matmul")
    return {"matmul"};
  // lower-transpose-rank rewrites transposes the target already runs.
  return {};
}

std::vector<std::string>
pipelineWithExpansions(int OptLevel, const std::vector<std::string> &Expansions) {
  std::vector<std::string> P = pipelineForRuntimeTarget(OptLevel);
  if (P.empty())
    return P;
  // After the whole runtime pipeline (so that it is this pipeline's prefix,
  // and a graph optimized for the CPU is one for this target half-way:
  // kiln build optimizes each model once), then the clean-up again: -O2's
  // tail, -O1's dce.
  P.insert(P.end(), Expansions.begin(), Expansions.end());
  if (OptLevel >= 2)
    P.insert(P.end(), {"eliminate-noops", "fold-constants", "cse", "dce"});
  else
    P.push_back("dce");
  return P;
}

std::vector<std::string> pipelineForNnapiTarget(int OptLevel) {
  return pipelineWithExpansions(
      OptLevel, {"narrow-index-inputs", "expand-layer-norm", "expand-gelu",
                 "expand-matmul", "lower-transpose-rank"});
}

} // namespace kiln

#include "passes/quant/QuantizableOps.h"

#include <algorithm>

namespace kiln {

bool Int8OpInfo::isActivationOperand(unsigned I) const {
  return std::find(Activations.begin(), Activations.end(), I) !=
         Activations.end();
}

bool isConstantValue(const Value *V) {
  return V && V->producer() && V->producer()->isOp("const");
}

namespace {
Int8OpInfo weighted(int64_t Axis, int Bias) {
  Int8OpInfo I;
  I.Role = Int8Role::Weighted;
  I.Activations = {0};
  I.Weight = 1;
  I.WeightAxis = Axis;
  I.Bias = Bias;
  return I;
}

Int8OpInfo withRole(Int8Role R, std::vector<unsigned> Activations) {
  Int8OpInfo I;
  I.Role = R;
  I.Activations = std::move(Activations);
  return I;
}
} // namespace

Int8OpInfo int8OpInfo(const Node &N) {
  llvm::StringRef Op = N.opName();
  if (Op == "conv" || Op == "linear")
    return weighted(0, 2);
  if (Op == "conv_transpose") // weight [C, M/group, k...]: one axis only at group 1
    return weighted(N.getInt("group") == 1 ? 1 : -1, 2);
  if (Op == "gemm" || Op == "matmul") {
    if (!isConstantValue(N.operand(1)))
      return withRole(Int8Role::Activation, {0, 1});
    int64_t Rank = N.operand(1)->type().rank();
    if (Op == "matmul")
      return weighted(Rank >= 2 ? Rank - 1 : -1, -1);
    return weighted(N.getInt("trans_b") ? 0 : 1, 2);
  }
  if (Op == "add" || Op == "sub" || Op == "mul")
    return withRole(Int8Role::Activation, {0, 1});
  if (Op == "concat") {
    std::vector<unsigned> All;
    for (unsigned I = 0; I < N.numOperands(); ++I)
      All.push_back(I);
    return withRole(Int8Role::Activation, All);
  }
  if (Op == "avg_pool" || Op == "global_avg_pool" || Op == "relu" ||
      Op == "clip" || Op == "leaky_relu" || Op == "hard_swish" ||
      Op == "sigmoid" || Op == "tanh" || Op == "hard_sigmoid" ||
      Op == "elu" || Op == "resize")
    return withRole(Int8Role::Activation, {0});
  if (Op == "max_pool" || Op == "global_max_pool" || Op == "reshape" ||
      Op == "flatten" || Op == "transpose" || Op == "squeeze" ||
      Op == "unsqueeze" || Op == "depth_to_space" || Op == "space_to_depth" ||
      Op == "identity" || Op == "slice" || Op == "split")
    return withRole(Int8Role::SameScale, {0});
  return {};
}

} // namespace kiln

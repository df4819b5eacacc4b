// FULLY_CONNECTED: x[..., K] times OI weights [OUT][K] plus bias, with a
// fused clamp. The input and output are PLAIN, or C4 [N, 1, 1, C] (whose
// rows are padded to four channels); any other C4 input is made PLAIN first.
#include "backends/gpu/VulkanLowering.h"

namespace kiln::vulkan {

namespace {

/// Row stride of a [rows, C] view of S: C, or C padded to four for a C4
/// tensor with one pixel; 0 when S has no such view.
int64_t rowStride(const Storage &S) {
  int64_t C = S.Dims.back();
  if (!S.C4)
    return C;
  return S.Dims[1] == 1 && S.Dims[2] == 1 ? (C + 3) / 4 * 4 : 0;
}

} // namespace

std::string lowerFullyConnected(Lowering &L, const fb::OperatorT &Op) {
  const auto &O = *Op.options.AsFullyConnectedOptions();
  int32_t X = Op.inputs[0], W = Op.inputs[1], Y = Op.outputs[0];
  const Storage &YS = L.storage(Y);
  int64_t YRow = rowStride(YS);
  if (!YRow)
    return "its output is a C4 tensor with more than one pixel";
  int64_t K = L.storage(X).Dims.back(), Out = YS.Dims.back();
  int64_t XRow = rowStride(L.storage(X));
  BindingRef XB = L.bindTensor(X);
  if (!XRow) {
    XB = L.plainOf(X);
    XRow = K;
  }
  int64_t Rows = 1;
  for (size_t I = 0; I + 1 < YS.Dims.size(); ++I)
    Rows *= YS.Dims[I];
  bool HasBias = Op.inputs.size() > 2 && Op.inputs[2] >= 0;
  BindingRef WB = L.bindFloats(L.floats(W), W);
  BindingRef BB = HasBias ? L.bindFloats(L.floats(Op.inputs[2]), Op.inputs[2])
                          : L.bindFloats({0.0f}, -1);
  PendingDispatch &D = L.dispatch("fully_connected");
  clampConstants(D, O.output_min, O.output_max);
  D.Spec[20] = uint32_t(Rows);
  D.Spec[21] = uint32_t(K);
  D.Spec[22] = uint32_t(Out);
  D.Spec[23] = uint32_t(XRow);
  D.Spec[24] = uint32_t(YRow);
  D.Spec[25] = HasBias ? 1 : 0;
  D.Bindings = {XB, WB, BB, L.bindTensor(Y)};
  flatGroups(D, uint64_t(Rows * YRow));
  return "";
}

} // namespace kiln::vulkan

// LAYER_NORM over the trailing axes of a PLAIN tensor (a C4 input is made
// PLAIN first), with constant weight and bias of one value per normalized
// element.
#include "backends/gpu/VulkanLowering.h"

namespace kiln::vulkan {

std::string lowerLayerNorm(Lowering &L, const fb::OperatorT &Op) {
  const auto &O = *Op.options.AsLayerNormOptions();
  int32_t X = Op.inputs[0], W = Op.inputs[1], Y = Op.outputs[0];
  int32_t B = Op.inputs.size() > 2 ? Op.inputs[2] : -1;
  const Storage &YS = L.storage(Y);
  if (YS.C4)
    return "a layer norm into an NHWC activation";
  if (L.tensor(W).buffer < 0 || (B >= 0 && L.tensor(B).buffer < 0))
    return "a computed weight or bias (the Vulkan target takes constants)";
  int64_t Rows = 1, N = 1;
  for (size_t I = 0; I < YS.Dims.size(); ++I)
    (int(I) < O.axis ? Rows : N) *= YS.Dims[I];
  std::vector<float> WV = L.floats(W), BV = B >= 0 ? L.floats(B)
                                                     : std::vector<float>{0.0f};
  if (int64_t(WV.size()) != N || (B >= 0 && int64_t(BV.size()) != N))
    return "a weight or bias that is not one value per normalized element";
  BindingRef XB = L.plainOf(X);
  BindingRef WB = L.bindFloats(WV, W), BB = L.bindFloats(BV, B);
  PendingDispatch &D = L.dispatch("layer_norm");
  D.Spec[20] = uint32_t(Rows);
  D.Spec[21] = uint32_t(N);
  D.Spec[22] = floatBits(O.epsilon);
  D.Spec[23] = B >= 0 ? 1 : 0;
  D.Bindings = {XB, WB, BB, L.bindTensor(Y)};
  flatGroups(D, uint64_t(Rows));
  return "";
}

std::string lowerMatMul(Lowering &L, const fb::OperatorT &Op) {
  const auto &O = *Op.options.AsMatMulOptions();
  int32_t A = Op.inputs[0], B = Op.inputs[1], Y = Op.outputs[0];
  const Storage &YS = L.storage(Y);
  if (YS.C4)
    return "a matmul into an NHWC activation";
  auto Count = [](const std::vector<int64_t> &D) {
    return int64_t(Storage{D, false}.elements());
  };
  const std::vector<int64_t> &AD = L.tensor(A).shape, &BD = L.tensor(B).shape;
  size_t R = YS.Dims.size();
  int64_t M = YS.Dims[R - 2], N = YS.Dims[R - 1], K = AD.back();
  int64_t P = Count(YS.Dims) / (M * N);
  int64_t PA = Count(AD) / (M * K), PB = Count(BD) / (K * N);
  if ((PA != P && PA != 1) || (PB != P && PB != 1))
    return "a matmul whose batch dims broadcast other than all-or-none";
  BindingRef AB = L.tensor(A).buffer >= 0 ? L.bindFloats(L.floats(A), A)
                                           : L.plainOf(A);
  BindingRef BB = L.tensor(B).buffer >= 0 ? L.bindFloats(L.floats(B), B)
                                           : L.plainOf(B);
  PendingDispatch &D = L.dispatch("matmul");
  clampConstants(D, O.output_min, O.output_max);
  D.Spec[20] = uint32_t(P);
  D.Spec[21] = uint32_t(M);
  D.Spec[22] = uint32_t(K);
  D.Spec[23] = uint32_t(N);
  D.Spec[24] = uint32_t(PA == 1 ? 0 : M * K);
  D.Spec[25] = uint32_t(PB == 1 ? 0 : K * N);
  D.Bindings = {AB, BB, L.bindTensor(Y)};
  flatGroups(D, uint64_t(P * M * N));
  return "";
}

} // namespace kiln::vulkan

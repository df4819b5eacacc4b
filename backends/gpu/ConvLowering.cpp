// CONV_2D on C4 tensors: depthwise (one filter per channel), dense (groups
// 1) with weights packed as 4x4 blocks the kernel multiplies a vec4 by, and
// any other grouping lane by lane. Bias is padded to whole blocks.
#include "backends/gpu/VulkanLowering.h"

namespace kiln::vulkan {

namespace {

std::vector<float> paddedBias(Lowering &L, const fb::OperatorT &Op,
                              int64_t OutC) {
  std::vector<float> Bias(size_t((OutC + 3) / 4 * 4), 0.0f);
  if (Op.inputs.size() > 2 && Op.inputs[2] >= 0) {
    std::vector<float> B = L.floats(Op.inputs[2]);
    std::copy(B.begin(), B.end(), Bias.begin());
  }
  return Bias;
}

/// OHWI [OC][KH][KW][IC] -> [OC4][KH][KW][IC4][4 input lanes][4 output lanes].
std::vector<float> packDense(const std::vector<float> &W, int64_t OC,
                             int64_t KH, int64_t KW, int64_t IC) {
  int64_t OC4 = (OC + 3) / 4, IC4 = (IC + 3) / 4;
  std::vector<float> P(size_t(OC4 * KH * KW * IC4 * 16), 0.0f);
  for (int64_t O = 0; O < OC; ++O)
    for (int64_t Y = 0; Y < KH; ++Y)
      for (int64_t X = 0; X < KW; ++X)
        for (int64_t I = 0; I < IC; ++I) {
          int64_t Block = ((O / 4 * KH + Y) * KW + X) * IC4 + I / 4;
          P[size_t(Block * 16 + (I % 4) * 4 + O % 4)] =
              W[size_t(((O * KH + Y) * KW + X) * IC + I)];
        }
  return P;
}

/// HWO [1][KH][KW][C] -> [C4][KH][KW][4].
std::vector<float> packDepthwise(const std::vector<float> &W, int64_t C,
                                 int64_t KH, int64_t KW) {
  int64_t C4 = (C + 3) / 4;
  std::vector<float> P(size_t(C4 * KH * KW * 4), 0.0f);
  for (int64_t Y = 0; Y < KH; ++Y)
    for (int64_t X = 0; X < KW; ++X)
      for (int64_t Ch = 0; Ch < C; ++Ch)
        P[size_t(((Ch / 4 * KH + Y) * KW + X) * 4 + Ch % 4)] =
            W[size_t((Y * KW + X) * C + Ch)];
  return P;
}

/// HWO [1][KH][KW][C * M] -> OHWI [C * M][KH][KW][1].
std::vector<float> depthwiseAsOhwi(const std::vector<float> &W, int64_t OC,
                                   int64_t KH, int64_t KW) {
  std::vector<float> P(W.size());
  for (int64_t O = 0; O < OC; ++O)
    for (int64_t Y = 0; Y < KH; ++Y)
      for (int64_t X = 0; X < KW; ++X)
        P[size_t((O * KH + Y) * KW + X)] = W[size_t((Y * KW + X) * OC + O)];
  return P;
}

/// conv2d_c4's grid (kernels/conv2d_c4.comp): 64-wide groups over the tiles
/// of four output pixels of a row, times a z of one group per image and
/// pair of output channel blocks.
void denseTiling(PendingDispatch &D, const std::vector<int64_t> &Y) {
  int64_t Tiles = (Y[2] + 3) / 4 * Y[1];
  flatGroups(D, uint64_t(Tiles));
  D.Groups[2] = uint32_t(Y[0] * (((Y[3] + 3) / 4 + 1) / 2));
}

} // namespace

std::string lowerConv(Lowering &L, const fb::OperatorT &Op) {
  const auto &O = *Op.options.AsConv2DOptions();
  int32_t X = Op.inputs[0], W = Op.inputs[1], Y = Op.outputs[0];
  if (!L.storage(X).C4 || !L.storage(Y).C4)
    return "its input or output is not an NHWC activation";
  const auto &XD = L.storage(X).Dims, &YD = L.storage(Y).Dims;
  int64_t IC = XD[3], OC = YD[3];
  int64_t KH = O.kernel_height, KW = O.kernel_width;
  bool Depthwise = O.depthwise && O.group_output_channels == 1 && IC == OC;
  std::vector<float> Weights = L.floats(W);
  const char *Kernel = "conv2d_grouped_c4";
  BindingRef WB;
  if (Depthwise) {
    Kernel = "depthwise_c4";
    WB = L.bindFloats(packDepthwise(Weights, OC, KH, KW), W);
  } else if (O.groups == 1 && !O.depthwise) {
    Kernel = "conv2d_c4";
    WB = L.bindFloats(packDense(Weights, OC, KH, KW, IC), W);
  } else {
    WB = L.bindFloats(O.depthwise ? depthwiseAsOhwi(Weights, OC, KH, KW)
                                  : Weights,
                      W);
  }
  BindingRef BB = L.bindFloats(paddedBias(L, Op, OC),
                               Op.inputs.size() > 2 ? Op.inputs[2] : -1);
  PendingDispatch &D = L.dispatch(Kernel);
  clampConstants(D, O.output_min, O.output_max);
  windowConstants(D, XD, YD, O);
  if (std::string(Kernel) == "conv2d_c4")
    denseTiling(D, YD);
  if (std::string(Kernel) == "conv2d_grouped_c4") {
    D.Spec[36] = O.depthwise ? 1 : O.group_input_channels;
    D.Spec[37] = O.group_output_channels;
  }
  D.Bindings = {L.bindTensor(X), WB, BB, L.bindTensor(Y)};
  return "";
}

} // namespace kiln::vulkan

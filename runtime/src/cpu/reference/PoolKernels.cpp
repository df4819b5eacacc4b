// Reference pooling on NHWC f32: max and average over 2-D windows (padding
// never wins a max; average divides by the real pixels unless
// count_include_pad), and global max/average over the whole image.
#include "cpu/reference/ReferenceKernels.h"

#include <limits>

namespace kiln::rt::ref {

RunFn pool2D(const KernelArgs &A) {
  const auto &O = *A.Op.options_as_Pool2DOptions();
  bool IsMax = A.Op.kind() == fb::OpKind::MAX_POOL_2D;
  const KernelTensor &Xt = A.In[0], &Yt = A.Out[0];
  int64_t N = Xt.dim(0), H = Xt.dim(1), W = Xt.dim(2), C = Xt.dim(3);
  int64_t OH = Yt.dim(1), OW = Yt.dim(2);
  int64_t KH = O.kernel_height(), KW = O.kernel_width();
  int64_t SH = O.stride_height(), SW = O.stride_width();
  int64_t DH = O.dilation_height(), DW = O.dilation_width();
  int64_t PT = O.padding_top(), PL = O.padding_left();
  bool IncludePad = O.count_include_pad();
  float Min = O.output_min(), Max = O.output_max();
  const float *X = Xt.as<const float>();
  float *Y = Yt.as<float>();
  return [=]() {
    std::vector<float> Acc(static_cast<size_t>(C));
    for (int64_t B = 0; B < N; ++B)
      for (int64_t OY = 0; OY < OH; ++OY)
        for (int64_t OX = 0; OX < OW; ++OX) {
          std::fill(Acc.begin(), Acc.end(),
                    IsMax ? -std::numeric_limits<float>::infinity() : 0.0f);
          int64_t Count = 0;
          for (int64_t KY = 0; KY < KH; ++KY) {
            int64_t IY = OY * SH - PT + KY * DH;
            if (IY < 0 || IY >= H)
              continue;
            for (int64_t KX = 0; KX < KW; ++KX) {
              int64_t IX = OX * SW - PL + KX * DW;
              if (IX < 0 || IX >= W)
                continue;
              const float *In = X + ((B * H + IY) * W + IX) * C;
              ++Count;
              for (int64_t Ch = 0; Ch < C; ++Ch)
                Acc[size_t(Ch)] = IsMax ? std::max(Acc[size_t(Ch)], In[Ch])
                                        : Acc[size_t(Ch)] + In[Ch];
            }
          }
          float *Out = Y + ((B * OH + OY) * OW + OX) * C;
          float Divisor = float(IncludePad ? KH * KW : Count);
          for (int64_t Ch = 0; Ch < C; ++Ch) {
            float V = Acc[size_t(Ch)];
            if (!IsMax)
              V = Divisor > 0 ? V / Divisor : 0.0f;
            Out[Ch] = clampValue(V, Min, Max);
          }
        }
    return Status::ok();
  };
}

RunFn globalPool2D(const KernelArgs &A) {
  const auto &O = *A.Op.options_as_Pool2DOptions();
  bool IsMax = A.Op.kind() == fb::OpKind::GLOBAL_MAX_POOL_2D;
  const KernelTensor &Xt = A.In[0];
  int64_t N = Xt.dim(0), Pixels = Xt.dim(1) * Xt.dim(2), C = Xt.dim(3);
  float Min = O.output_min(), Max = O.output_max();
  const float *X = Xt.as<const float>();
  float *Y = A.Out[0].as<float>();
  return [=]() {
    for (int64_t B = 0; B < N; ++B) {
      float *Out = Y + B * C;
      const float *In = X + B * Pixels * C;
      for (int64_t Ch = 0; Ch < C; ++Ch)
        Out[Ch] = IsMax ? -std::numeric_limits<float>::infinity() : 0.0f;
      for (int64_t P = 0; P < Pixels; ++P)
        for (int64_t Ch = 0; Ch < C; ++Ch)
          Out[Ch] = IsMax ? std::max(Out[Ch], In[P * C + Ch])
                          : Out[Ch] + In[P * C + Ch];
      for (int64_t Ch = 0; Ch < C; ++Ch)
        Out[Ch] = clampValue(IsMax ? Out[Ch] : Out[Ch] / float(Pixels), Min,
                             Max);
    }
    return Status::ok();
  };
}

} // namespace kiln::rt::ref

// Reference LAYER_NORM on f32: per row of the dims from `axis` on,
// y = (x - mean) / sqrt(var + eps) * scale + bias, with the mean and the
// (biased) variance accumulated in double, as the IR interpreter does.
#include "cpu/reference/ReferenceKernels.h"

#include <cmath>

namespace kiln::rt::ref {

RunFn layerNorm(const KernelArgs &A) {
  const auto &O = *A.Op.options_as_LayerNormOptions();
  int64_t Rows = 1, Cols = 1;
  for (int64_t D = 0; D < A.In[0].rank(); ++D)
    (D < O.axis() ? Rows : Cols) *= A.In[0].dim(D);
  const float *X = A.In[0].as<const float>(), *Scale = A.In[1].as<const float>();
  const float *Bias = A.In.size() > 2 && A.In[2].present()
                          ? A.In[2].as<const float>()
                          : nullptr;
  bool ScaleOne = A.In[1].elements() == 1;
  bool BiasOne = Bias && A.In[2].elements() == 1;
  double Eps = O.epsilon();
  float *Y = A.Out[0].as<float>();
  return [=]() {
    for (int64_t R = 0; R < Rows; ++R) {
      const float *In = X + R * Cols;
      float *Out = Y + R * Cols;
      double Sum = 0, Sq = 0;
      for (int64_t C = 0; C < Cols; ++C)
        Sum += In[C];
      double Mean = Cols ? Sum / double(Cols) : 0;
      for (int64_t C = 0; C < Cols; ++C)
        Sq += (In[C] - Mean) * (In[C] - Mean);
      double InvStd = 1.0 / std::sqrt((Cols ? Sq / double(Cols) : 0) + Eps);
      for (int64_t C = 0; C < Cols; ++C) {
        double V = (In[C] - Mean) * InvStd * Scale[ScaleOne ? 0 : C];
        if (Bias)
          V += Bias[BiasOne ? 0 : C];
        Out[C] = float(V);
      }
    }
    return Status::ok();
  };
}

} // namespace kiln::rt::ref

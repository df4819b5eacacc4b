// Checks of int8 operands (schema 1.2): QUANTIZE and DEQUANTIZE, the qs8/qc8
// operands of CONV_2D and FULLY_CONNECTED (I8 activations per tensor, I8
// weights per output channel with zero point 0, I32 bias of scale
// input scale * weight scale, stored until 1.7 and derived since), int8 pass-through operators (same parameters
// in and out), and the F16/int8 weights a float operator widens at load.
#include "loader/OpValidation.h"

#include <cmath>

namespace kiln::rt {

using fb::DType;

Status checkInt8Activation(const TensorDesc &T, const char *What) {
  if (Status S = checkDType(T, DType::I8, What))
    return S;
  if (!T.isPerTensorQuantized())
    return invalidModel(What, " '", T.Name,
                        "' needs per-tensor quantization parameters");
  return Status::ok();
}

Status checkSameQuantization(const TensorDesc &A, const TensorDesc &B) {
  if (A.Scales != B.Scales || A.ZeroPoints != B.ZeroPoints ||
      A.QuantAxis != B.QuantAxis)
    return invalidModel("'", A.Name, "' and '", B.Name,
                        "' have different quantization parameters");
  return Status::ok();
}

Status checkQuantizedWeights(const OpView &V, int64_t OutChannels) {
  const TensorDesc &X = *V.In[0], &W = *V.In[1];
  if (Status S = checkDType(W, DType::I8, "weight"))
    return S;
  if (Status S = checkConstant(W, "weight"))
    return S;
  // Per output channel: OHWI and OI on axis 0, depthwise HWO on axis 3.
  int32_t Axis = W.Layout == fb::Layout::HWO ? 3 : 0;
  if (W.QuantAxis != Axis || W.Scales.size() != size_t(OutChannels))
    return invalidModel("weight '", W.Name, "' needs one scale per output "
                        "channel (axis ", Axis, ")");
  for (int64_t Z : W.ZeroPoints)
    if (Z != 0)
      return invalidModel("weight '", W.Name, "' has a zero point ", Z,
                          ", expected 0 (symmetric)");
  if (V.In.size() < 3 || !V.In[2])
    return Status::ok();
  const TensorDesc &B = *V.In[2];
  if (Status S = checkDType(B, DType::I32, "bias"))
    return S;
  if (Status S = checkConstant(B, "bias"))
    return S;
  if (Status S = checkShape(B, {OutChannels}, "bias"))
    return S;
  // Since 1.8 the writer leaves the scales out: they are derivable.
  if (!B.isQuantized())
    return Status::ok();
  for (int64_t C = 0; C < OutChannels; ++C) {
    float Want = X.Scales[0] * W.Scales[size_t(C)];
    float Got = B.Scales[B.Scales.size() == 1 ? 0 : size_t(C)];
    if (B.ZeroPoints[B.Scales.size() == 1 ? 0 : size_t(C)] != 0 ||
        std::fabs(Got - Want) > 1e-3f * Want)
      return invalidModel("bias '", B.Name, "' channel ", C, " has scale ", Got,
                          " and zero point must be 0; expected scale ", Want,
                          " (input scale x weight scale)");
  }
  return Status::ok();
}

Status checkWidenable(const TensorDesc &T, const char *What) {
  if (T.DType == DType::F32)
    return Status::ok();
  if (Status S = checkConstant(T, What))
    return S;
  if (T.DType == DType::F16)
    return Status::ok();
  if ((T.DType == DType::I8 || T.DType == DType::I32) && T.isQuantized())
    return Status::ok();
  return invalidModel(What, " '", T.Name, "' is ", dtypeName(T.DType),
                      ", expected f32, f16 or quantized i8/i32");
}

Status validateQuantize(const OpView &V) {
  if (Status S = checkArity(V, 1, 1, 1))
    return S;
  const TensorDesc &X = *V.In[0], &Y = *V.Out[0];
  bool Quantize = V.Op.kind() == fb::OpKind::QUANTIZE;
  const TensorDesc &F = Quantize ? X : Y, &Q = Quantize ? Y : X;
  if (Status S = checkDType(F, DType::F32, Quantize ? "input" : "output"))
    return S;
  if (Status S = checkInt8Activation(Q, Quantize ? "output" : "input"))
    return S;
  return checkShape(Y, X.Shape, "output");
}

} // namespace kiln::rt

// The loader's checks of LSTM (schema/kiln.fbs): F32 x [T, B, I] (or
// [B, T, I]), constant w [4H, I], r [4H, H] and b [4H], initial states
// [B, H], y [T, B, H] (or [B, T, H]) and the optional y_h [B, H], so that
// the kernel reads and writes inside them.
#include "loader/OpValidation.h"

namespace kiln::rt {

using fb::DType;

Status validateLstm(const OpView &V) {
  if (V.Out.size() != 1 && V.Out.size() != 2)
    return invalidModel(V.Out.size(), " outputs (expected y, and y_h)");
  if (Status S = checkArity(V, 3, 6, V.Out.size()))
    return S;
  const auto &O = *V.Op.options_as_LstmOptions();
  const int64_t H = O.hidden_size();
  if (H < 1 || H > (int64_t(1) << 20))
    return invalidModel("hidden_size ", H, " is not in [1, 2^20]");
  const TensorDesc &X = *V.In[0];
  if (Status S = checkDType(X, DType::F32, "x"))
    return S;
  if (Status S = checkRank(X, 3, "x"))
    return S;
  const bool TimeMajor = O.time_major();
  const int64_t T = X.dim(TimeMajor ? 0 : 1), B = X.dim(TimeMajor ? 1 : 0),
                I = X.dim(2);
  struct Operand {
    size_t Index;
    const char *Name;
    std::vector<int64_t> Shape;
    bool Constant;
  };
  const Operand Operands[] = {{1, "w", {4 * H, I}, true},
                              {2, "r", {4 * H, H}, true},
                              {3, "b", {4 * H}, true},
                              {4, "h0", {B, H}, false},
                              {5, "c0", {B, H}, false}};
  for (const Operand &P : Operands) {
    if (P.Index >= V.In.size() || !V.In[P.Index])
      continue;
    const TensorDesc &D = *V.In[P.Index];
    if (Status S = checkDType(D, DType::F32, P.Name))
      return S;
    if (Status S = checkShape(D, P.Shape, P.Name))
      return S;
    if (P.Constant)
      if (Status S = checkConstant(D, P.Name))
        return S;
  }
  std::vector<int64_t> Y = TimeMajor ? std::vector<int64_t>{T, B, H}
                                     : std::vector<int64_t>{B, T, H};
  if (Status S = checkDType(*V.Out[0], DType::F32, "y"))
    return S;
  if (Status S = checkShape(*V.Out[0], Y, "y"))
    return S;
  if (V.Out.size() == 2) {
    if (Status S = checkDType(*V.Out[1], DType::F32, "y_h"))
      return S;
    if (Status S = checkShape(*V.Out[1], {B, H}, "y_h"))
      return S;
  }
  return Status::ok();
}

} // namespace kiln::rt

// The loader's checks of LSTM and GRU (schema/kiln.fbs): F32 x [T, B, I]
// (or [B, T, I]), constant w [GH, I], r [GH, H] and b (LSTM [4H]; GRU [3H],
// or [4H] with linear_before_reset), initial states [B, H], y [T, B, H] (or
// [B, T, H]) and the optional y_h [B, H], so that the kernels read and write
// inside them.
#include "loader/OpValidation.h"

namespace kiln::rt {

using fb::DType;

namespace {

struct RecurrentShape {
  int64_t H;
  bool TimeMajor;
  /// Rows of w and r (4H, 3H), and elements of b.
  int64_t GateRows, BiasSize;
  /// Initial states after b: h0 (and c0).
  size_t States;
};

/// The operands and results of an LSTM or GRU with shape S.
Status validateRecurrent(const OpView &V, const RecurrentShape &S) {
  if (V.Out.size() != 1 && V.Out.size() != 2)
    return invalidModel(V.Out.size(), " outputs (expected y, and y_h)");
  if (Status St = checkArity(V, 3, 4 + S.States, V.Out.size()))
    return St;
  const int64_t H = S.H;
  if (H < 1 || H > (int64_t(1) << 20))
    return invalidModel("hidden_size ", H, " is not in [1, 2^20]");
  const TensorDesc &X = *V.In[0];
  if (Status St = checkDType(X, DType::F32, "x"))
    return St;
  if (Status St = checkRank(X, 3, "x"))
    return St;
  const int64_t T = X.dim(S.TimeMajor ? 0 : 1), B = X.dim(S.TimeMajor ? 1 : 0),
                I = X.dim(2);
  struct Operand {
    size_t Index;
    const char *Name;
    std::vector<int64_t> Shape;
    bool Constant;
  };
  const Operand Operands[] = {{1, "w", {S.GateRows, I}, true},
                              {2, "r", {S.GateRows, H}, true},
                              {3, "b", {S.BiasSize}, true},
                              {4, "h0", {B, H}, false},
                              {5, "c0", {B, H}, false}};
  for (const Operand &P : Operands) {
    if (P.Index >= V.In.size() || !V.In[P.Index])
      continue;
    const TensorDesc &D = *V.In[P.Index];
    if (Status St = checkDType(D, DType::F32, P.Name))
      return St;
    if (Status St = checkShape(D, P.Shape, P.Name))
      return St;
    if (P.Constant)
      if (Status St = checkConstant(D, P.Name))
        return St;
  }
  std::vector<int64_t> Y = S.TimeMajor ? std::vector<int64_t>{T, B, H}
                                       : std::vector<int64_t>{B, T, H};
  if (Status St = checkDType(*V.Out[0], DType::F32, "y"))
    return St;
  if (Status St = checkShape(*V.Out[0], Y, "y"))
    return St;
  if (V.Out.size() == 2) {
    if (Status St = checkDType(*V.Out[1], DType::F32, "y_h"))
      return St;
    if (Status St = checkShape(*V.Out[1], {B, H}, "y_h"))
      return St;
  }
  return Status::ok();
}

} // namespace

Status validateLstm(const OpView &V) {
  const auto &O = *V.Op.options_as_LstmOptions();
  const int64_t H = O.hidden_size();
  return validateRecurrent(V, {H, O.time_major(), 4 * H, 4 * H, 2});
}

Status validateGru(const OpView &V) {
  const auto &O = *V.Op.options_as_GruOptions();
  const int64_t H = O.hidden_size();
  return validateRecurrent(
      V, {H, O.time_major(), 3 * H, (O.linear_before_reset() ? 4 : 3) * H, 1});
}

} // namespace kiln::rt

// Checks of the elementwise operators: BINARY (numpy broadcasting), UNARY,
// SOFTMAX and PRELU.
#include "loader/OpValidation.h"

namespace kiln::rt {

using fb::DType;

Status validateBinary(const OpView &V) {
  if (Status S = checkArity(V, 2, 2, 1))
    return S;
  const auto &O = *V.Op.options_as_BinaryOptions();
  if (Status S = checkClampRange(O.output_min(), O.output_max()))
    return S;
  const TensorDesc &A = *V.In[0], &B = *V.In[1], &Y = *V.Out[0];
  if (O.op() < fb::BinaryOp::ADD || O.op() > fb::BinaryOp::MAX)
    return unsupported("unknown binary op ", static_cast<int>(O.op()));
  if (A.DType == DType::I8) { // qs8 ADD (schema 1.2) and MUL (1.8)
    if (O.op() != fb::BinaryOp::ADD && O.op() != fb::BinaryOp::MUL)
      return invalidModel(fb::EnumNameBinaryOp(O.op()), " on i8 is not "
                          "supported (only ADD and MUL)");
    for (const TensorDesc *T : {&A, &B, &Y})
      if (Status S = checkInt8Activation(*T, "operand"))
        return S;
  }
  bool IntegerOk = O.op() != fb::BinaryOp::POW;
  if (A.DType != DType::F32 && A.DType != DType::I8 &&
      !(IntegerOk && (A.DType == DType::I32 || A.DType == DType::I64)))
    return invalidModel(fb::EnumNameBinaryOp(O.op()), " on ",
                        dtypeName(A.DType), " is not supported");
  if (Status S = checkDType(B, A.DType, "second operand"))
    return S;
  bool Compare = O.op() >= fb::BinaryOp::EQUAL;
  if (Status S = checkDType(Y, Compare ? DType::BOOL : A.DType, "output"))
    return S;
  std::vector<int64_t> Want;
  if (Status S = broadcastShapes(A.Shape, B.Shape, Want))
    return S;
  return checkShape(Y, Want, "output");
}

Status validateUnary(const OpView &V) {
  if (Status S = checkArity(V, 1, 1, 1))
    return S;
  const auto &O = *V.Op.options_as_UnaryOptions();
  if (O.op() < fb::UnaryOp::CLAMP || O.op() > fb::UnaryOp::MAX)
    return unsupported("unknown unary op ", static_cast<int>(O.op()));
  if (O.op() == fb::UnaryOp::CLAMP)
    if (Status S = checkClampRange(O.min(), O.max()))
      return S;
  const TensorDesc &X = *V.In[0], &Y = *V.Out[0];
  // Int8 (1.8): any unary op on an I8 activation to an I8 activation, each
  // with its own per-tensor parameters; it runs as a 256-entry table.
  DType Want = X.DType == DType::I8 ? DType::I8 : DType::F32;
  if (Status S = checkDType(X, Want, "input"))
    return S;
  if (Status S = checkDType(Y, Want, "output"))
    return S;
  if (Want == DType::I8)
    for (const TensorDesc *T : {&X, &Y})
      if (Status S = checkInt8Activation(*T, "operand"))
        return S;
  return checkShape(Y, X.Shape, "output");
}

Status validateSoftmax(const OpView &V) {
  if (Status S = checkArity(V, 1, 1, 1))
    return S;
  const auto &O = *V.Op.options_as_SoftmaxOptions();
  const TensorDesc &X = *V.In[0], &Y = *V.Out[0];
  if (Status S = checkDType(X, DType::F32, "input"))
    return S;
  if (Status S = checkDType(Y, DType::F32, "output"))
    return S;
  if (O.axis() < 0 || O.axis() >= X.rank())
    return invalidModel("axis ", O.axis(), " out of range for rank ", X.rank());
  return checkShape(Y, X.Shape, "output");
}

Status validateSelect(const OpView &V) {
  if (Status S = checkArity(V, 3, 3, 1))
    return S;
  const TensorDesc &C = *V.In[0], &A = *V.In[1], &B = *V.In[2], &Y = *V.Out[0];
  if (Status S = checkDType(C, DType::BOOL, "condition"))
    return S;
  if (Status S = checkDType(B, A.DType, "second branch"))
    return S;
  if (Status S = checkDType(Y, A.DType, "output"))
    return S;
  std::vector<int64_t> CA, Want;
  if (Status S = broadcastShapes(C.Shape, A.Shape, CA))
    return S;
  if (Status S = broadcastShapes(CA, B.Shape, Want))
    return S;
  return checkShape(Y, Want, "output");
}

Status validateCast(const OpView &V) {
  if (Status S = checkArity(V, 1, 1, 1))
    return S;
  return checkShape(*V.Out[0], V.In[0]->Shape, "output");
}

Status validatePRelu(const OpView &V) {
  if (Status S = checkArity(V, 2, 2, 1))
    return S;
  const TensorDesc &X = *V.In[0], &Slope = *V.In[1], &Y = *V.Out[0];
  for (const TensorDesc *T : {&X, &Slope, &Y})
    if (Status S = checkDType(*T, DType::F32, "tensor"))
      return S;
  if (X.rank() < 1)
    return invalidModel("input '", X.Name, "' must have rank >= 1");
  if (Status S = checkConstant(Slope, "slope"))
    return S;
  if (Status S = checkShape(Slope, {X.Shape.back()}, "slope"))
    return S;
  return checkShape(Y, X.Shape, "output");
}

} // namespace kiln::rt

// Operator checks run by the loader: arity, element types, options and
// shapes, per operator kind (the contract in schema/kiln.fbs). A model that
// passes them cannot make a kernel read or write outside its tensors, so the
// kernels trust shapes and only assert.
#pragma once

#include "Status.h"
#include "loader/TensorDesc.h"

#include <vector>

namespace kiln::rt {

struct OpView {
  const fb::Operator &Op;
  /// One per operator input; null for an absent optional input (-1).
  std::vector<const TensorDesc *> In;
  std::vector<const TensorDesc *> Out;
};

/// Kind-specific checks. Plain messages; the caller names the operator.
Status validateOperator(const OpView &V);

/// The options table each kind must carry.
fb::OpOptions expectedOptions(fb::OpKind Kind);
/// "CONV_2D", ... ("kind(N)" for values this runtime does not know).
std::string opKindName(fb::OpKind Kind);

// Per family (OpValidationSpatial.cpp, OpValidationElementwise.cpp,
// OpValidationShape.cpp).
Status validateConv2D(const OpView &V);
Status validateDeconv2D(const OpView &V);
Status validateFullyConnected(const OpView &V);
Status validatePool2D(const OpView &V);
Status validateGlobalPool2D(const OpView &V);
Status validateBinary(const OpView &V);
Status validateUnary(const OpView &V);
Status validateSoftmax(const OpView &V);
Status validatePRelu(const OpView &V);
Status validateTranspose(const OpView &V);
Status validateReshape(const OpView &V);
Status validateConcat(const OpView &V);
Status validateSlice(const OpView &V);
Status validatePad(const OpView &V);
Status validateReduce(const OpView &V);
Status validateMatMul(const OpView &V);
Status validateBroadcast(const OpView &V);
Status validateGather(const OpView &V);
Status validateCast(const OpView &V);
Status validateSelect(const OpView &V);
Status validateArgReduce(const OpView &V);
Status validateLayerNorm(const OpView &V);
Status validateResize(const OpView &V);
/// QUANTIZE and DEQUANTIZE (OpValidationQuant.cpp).
Status validateQuantize(const OpView &V);
/// PIXELS_TO_TENSOR (OpValidationImage.cpp).
Status validatePixelsToTensor(const OpView &V);
/// BOX_NMS (OpValidationDetection.cpp).
Status validateBoxNms(const OpView &V);
/// LSTM (OpValidationRecurrent.cpp).
Status validateLstm(const OpView &V);
/// GRU (OpValidationRecurrent.cpp).
Status validateGru(const OpView &V);

//===-- Helpers shared by the validators ----------------------------------===//

/// Input count in [MinIn, MaxIn] with the first MinIn present, and exactly
/// NumOut outputs.
Status checkArity(const OpView &V, size_t MinIn, size_t MaxIn, size_t NumOut);
Status checkDType(const TensorDesc &T, fb::DType Want, const char *What);
Status checkShape(const TensorDesc &T, const std::vector<int64_t> &Want,
                  const char *What);
Status checkRank(const TensorDesc &T, int64_t Rank, const char *What);
Status checkConstant(const TensorDesc &T, const char *What);
/// output_min <= output_max, neither NaN.
Status checkClampRange(float Min, float Max);
/// FlatBuffers 2.0 checks the alignment of a vector's length only; a vector
/// of 64-bit values must also have 8-byte aligned elements before it is read.
Status checkAligned(const flatbuffers::Vector<int64_t> *V, const char *What);
/// Int8 (OpValidationQuant.cpp): an I8 tensor with per-tensor parameters;
/// equal parameters; I8 weights per output channel (and the I32 bias) of a
/// qs8 CONV_2D/FULLY_CONNECTED whose input V.In[0] is checked already; a
/// weight or bias a float operator widens at load (F32, or a constant F16 or
/// quantized I8/I32).
Status checkInt8Activation(const TensorDesc &T, const char *What);
Status checkSameQuantization(const TensorDesc &A, const TensorDesc &B);
Status checkQuantizedWeights(const OpView &V, int64_t OutChannels);
Status checkWidenable(const TensorDesc &T, const char *What);
/// Numpy broadcasting of A and B into Out; error when they do not broadcast.
Status broadcastShapes(const std::vector<int64_t> &A,
                       const std::vector<int64_t> &B,
                       std::vector<int64_t> &Out);

} // namespace kiln::rt

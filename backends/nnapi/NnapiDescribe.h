// One-line descriptions of an NNAPI payload's operands and operations, as
// `kiln convert --stats` and `kiln inspect` print them. Header-only: the
// tools read payloads without linking the lowering.
#pragma once

#include "schema/nnapi/NeuralNetworksApi.h"
#include "schema/kiln_generated.h"

#include <cstring>
#include <string>

namespace kiln::nnapi {

/// "%3 TENSOR_FLOAT32[1,8,8,4]", "%7 TENSOR_QUANT8_ASYMM[1,8,8,4] s=0.02
/// z=131", "%5 INT32=2".
inline std::string describeOperand(const fb::NnapiPayloadT &P, uint32_t I) {
  if (I >= P.operands.size())
    return "%" + std::to_string(I) + " (out of range)";
  const fb::NnapiOperandT &O = *P.operands[I];
  const OperationInfo *T = findOperandType(O.type);
  std::string S = "%" + std::to_string(I) + " " + (T ? T->Name : "?");
  if (!isTensorType(O.type)) {
    if (O.value.size() == 4) {
      int32_t V;
      float F;
      std::memcpy(&V, O.value.data(), 4);
      std::memcpy(&F, O.value.data(), 4);
      S += "=" + (O.type == FLOAT32 ? std::to_string(F) : std::to_string(V));
    } else if (O.value.size() == 1) {
      S += O.value[0] ? "=true" : "=false";
    }
    return S;
  }
  S += "[";
  for (size_t K = 0; K < O.dimensions.size(); ++K)
    S += (K ? "," : "") + std::to_string(O.dimensions[K]);
  S += "]";
  if (O.type == TENSOR_QUANT8_ASYMM || O.type == TENSOR_QUANT8_ASYMM_SIGNED)
    S += " s=" + std::to_string(O.scale) + " z=" + std::to_string(O.zero_point);
  else if (O.type == TENSOR_QUANT8_SYMM_PER_CHANNEL)
    S += " per-channel(axis " + std::to_string(O.channel_dim) + ")";
  if (O.source == fb::NnapiValueSource::SEGMENT)
    S += " const";
  else if (O.source == fb::NnapiValueSource::OMITTED)
    S += " omitted";
  return S;
}

/// "CONV_2D(%0 ..., %1 ...) -> %9 ...".
inline std::string describeOperation(const fb::NnapiPayloadT &P,
                                     const fb::NnapiOperationT &Op) {
  const OperationInfo *Info = findOperation(Op.type);
  std::string S = Info ? Info->Name : "?" + std::to_string(Op.type);
  S += "(";
  for (size_t K = 0; K < Op.inputs.size(); ++K)
    S += (K ? ", " : "") + describeOperand(P, Op.inputs[K]);
  S += ") -> ";
  for (size_t K = 0; K < Op.outputs.size(); ++K)
    S += (K ? ", " : "") + describeOperand(P, Op.outputs[K]);
  return S;
}

} // namespace kiln::nnapi

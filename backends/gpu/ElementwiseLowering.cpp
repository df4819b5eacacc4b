// BINARY, UNARY and PRELU: one elementwise dispatch over the output with
// numpy broadcasting (a broadcast axis reads with stride 0), on any mix of
// C4 and PLAIN operands; constants are read from the weights as PLAIN.
#include "backends/gpu/VulkanLowering.h"

#include <cmath>

namespace kiln::vulkan {

namespace {

/// Where operand T is read from: an activation's place, or its constant
/// bytes (widened to f32) as a PLAIN tensor.
std::pair<BindingRef, Storage> operand(Lowering &L, int32_t T) {
  const fb::TensorT &Tensor = L.tensor(T);
  if (Tensor.buffer >= 0)
    return {L.bindFloats(L.floats(T), T), Storage{Tensor.shape, false}};
  return {L.bindTensor(T), L.storage(T)};
}

} // namespace

std::string lowerElementwise(Lowering &L, const fb::OperatorT &Op) {
  int32_t Y = Op.outputs[0];
  const Storage &YS = L.storage(Y);
  if (YS.Dims.size() > size_t(DomainRank))
    return "its rank is above 6";
  int OpCode = 0;
  float Alpha = 0, Beta = 0, Gamma = 0, Min = -INFINITY, Max = INFINITY;
  bool Unary = Op.kind == fb::OpKind::UNARY;
  if (Op.kind == fb::OpKind::BINARY) {
    const auto &O = *Op.options.AsBinaryOptions();
    if (O.op < fb::BinaryOp::ADD || O.op > fb::BinaryOp::POW)
      return std::string("the Vulkan target has no kernel for BINARY ") +
             fb::EnumNameBinaryOp(O.op);
    OpCode = int(O.op);
    Min = O.output_min;
    Max = O.output_max;
  } else if (Op.kind == fb::OpKind::PRELU) {
    OpCode = 8;
  } else {
    const auto &O = *Op.options.AsUnaryOptions();
    OpCode = 100 + int(O.op);
    Alpha = O.alpha;
    Beta = O.beta;
    Gamma = O.gamma;
    if (O.op == fb::UnaryOp::CLAMP) {
      Alpha = O.min;
      Beta = O.max;
    }
  }
  auto [AB, AS] = operand(L, Op.inputs[0]);
  auto [BB, BS] = Unary ? std::make_pair(AB, AS) : operand(L, Op.inputs[1]);
  if (AS.Dims.size() > size_t(DomainRank) || BS.Dims.size() > size_t(DomainRank))
    return "an input's rank is above 6";
  PendingDispatch &D = L.dispatch("elementwise");
  clampConstants(D, Min, Max);
  D.Spec[5] = uint32_t(OpCode);
  D.Spec[6] = floatBits(Alpha);
  D.Spec[7] = floatBits(Beta);
  D.Spec[8] = floatBits(Gamma);
  D.Spec[9] = Unary ? 1 : 0;
  outputDomain(D, YS);
  DomainDims Real = domainOf(YS.Dims);
  operandConstants(AS, alignedMap(AS, Real), 20, D.Spec);
  operandConstants(BS, alignedMap(BS, Real), 40, D.Spec);
  operandConstants(YS, alignedMap(YS, Real), 60, D.Spec);
  D.Bindings = {AB, BB, L.bindTensor(Y)};
  return "";
}

} // namespace kiln::vulkan

// Integer graph inputs on the GPU: token ids and the masks built from them.
// The Vulkan target keeps such an input in the caller's bytes (int64 or
// int32, read in place by kernels/int_index.glsl) and reads it three ways:
//  - GATHER of a constant table by it (an embedding lookup):
//    kernels/index_gather.comp;
//  - CAST of it to float: kernels/index_to_float.comp;
//  - EQUAL, GREATER or LESS against a constant, read only by CASTs to float
//    (BERT's padding mask): the comparison dispatches nothing, and each
//    CAST compares as it converts (index_to_float.comp's MODE).
// No integer or boolean tensor is stored in the arena.
#include "backends/gpu/VulkanLowering.h"

#include "schema/KilnDTypeSize.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstring>
#include <limits>

namespace kiln::vulkan {

namespace {

bool isIndexType(fb::DType T) {
  return T == fb::DType::I64 || T == fb::DType::I32;
}

bool isCastToFloat(const Lowering &L, const fb::OperatorT &Op) {
  return Op.kind == fb::OpKind::CAST &&
         L.tensor(Op.outputs[0]).dtype == fb::DType::F32;
}

/// The comparison's integer operand (an integer graph input) and its
/// constant one, in that order; {-1, -1} otherwise.
std::pair<int32_t, int32_t> comparisonOperands(const Lowering &L,
                                               const fb::OperatorT &Op) {
  int32_t A = Op.inputs[0], B = Op.inputs[1];
  bool AConst = L.tensor(A).buffer >= 0, BConst = L.tensor(B).buffer >= 0;
  if (!AConst && BConst)
    return {A, B};
  if (AConst && !BConst)
    return {B, A};
  return {-1, -1};
}

/// Integer constant T's one value (T is I64 or I32 with one element).
int64_t constantInteger(const Lowering &L, int32_t T) {
  std::vector<uint8_t> Bytes = L.rawBytes(T);
  if (Bytes.size() != fb::dtypeSize(L.tensor(T).dtype))
    return 0; // not reached: the callers check the type and count first
  if (L.tensor(T).dtype == fb::DType::I32) {
    int32_t V;
    std::memcpy(&V, Bytes.data(), 4);
    return V;
  }
  int64_t V;
  std::memcpy(&V, Bytes.data(), 8);
  return V;
}

uint64_t elementCount(const std::vector<int64_t> &Dims) {
  return Storage{Dims, false}.elements();
}

/// Why comparison Op is not an integer graph input against one integer
/// constant ("" when it is).
std::string comparisonProblem(const Lowering &L, const fb::OperatorT &Op) {
  auto [X, C] = comparisonOperands(L, Op);
  if (X < 0 || !isIndexType(L.tensor(X).dtype))
    return "a comparison other than of an integer graph input with a "
           "constant";
  if (!isIndexType(L.tensor(C).dtype) || elementCount(L.tensor(C).shape) != 1)
    return "a comparison with other than one integer constant";
  return "";
}

/// Whether Count elements fit the kernels' int32 indices.
bool fitsKernel(uint64_t Count) {
  return Count <= uint64_t(std::numeric_limits<int32_t>::max());
}

} // namespace

bool isComparison(const fb::OperatorT &Op) {
  if (Op.kind != fb::OpKind::BINARY)
    return false;
  fb::BinaryOp B = Op.options.AsBinaryOptions()->op;
  return B == fb::BinaryOp::EQUAL || B == fb::BinaryOp::GREATER ||
         B == fb::BinaryOp::LESS;
}

std::string integerInputProblem(const Lowering &L, int32_t T) {
  if (!isIndexType(L.tensor(T).dtype))
    return "its type";
  for (const fb::OperatorT *Op : L.readers(T)) {
    bool Ok = (Op->kind == fb::OpKind::GATHER && Op->inputs[0] != T) ||
              isCastToFloat(L, *Op) || isComparison(*Op);
    if (!Ok)
      return llvm::formatv("node '{0}' ({1}) reads it", Op->name,
                           fb::EnumNameOpKind(Op->kind));
  }
  return "";
}

std::string lowerComparison(Lowering &L, const fb::OperatorT &Op) {
  if (std::string Why = comparisonProblem(L, Op); !Why.empty())
    return Why;
  for (const fb::OperatorT *R : L.readers(Op.outputs[0]))
    if (!isCastToFloat(L, *R))
      return llvm::formatv("node '{0}' ({1}) reads its result (the Vulkan "
                             "target computes comparisons only into a cast "
                             "to float)",
                             R->name, fb::EnumNameOpKind(R->kind))
            .str();
  return ""; // each CAST reading it compares (lowerCast)
}

std::string lowerCast(Lowering &L, const fb::OperatorT &Op) {
  int32_t X = Op.inputs[0], Y = Op.outputs[0];
  const Storage &YS = L.storage(Y);
  if (YS.C4)
    return "a cast into an NHWC activation";
  int Mode = 0;
  int64_t Operand = 0;
  if (L.tensor(X).dtype == fb::DType::BOOL) {
    const fb::OperatorT *Cmp = L.producer(X);
    if (!Cmp || !isComparison(*Cmp))
      return "a cast of a boolean that no comparison computes";
    if (!comparisonProblem(L, *Cmp).empty())
      return "a cast of a comparison the Vulkan target cannot compute";
    auto [Ids, C] = comparisonOperands(L, *Cmp);
    fb::BinaryOp B = Cmp->options.AsBinaryOptions()->op;
    bool Flipped = Ids != Cmp->inputs[0]; // constant OP ids
    Mode = B == fb::BinaryOp::EQUAL     ? 1
           : (B == fb::BinaryOp::GREATER) != Flipped ? 2
                                                     : 3;
    Operand = constantInteger(L, C);
    X = Ids;
  }
  if (!isIndexType(L.tensor(X).dtype) || L.tensor(X).buffer >= 0)
    return "a cast of other than an integer graph input";
  uint64_t Count = elementCount(YS.Dims);
  if (!fitsKernel(Count))
    return "a cast of over 2^31 elements";
  PendingDispatch &D = L.dispatch("index_to_float");
  D.Spec[19] = L.tensor(X).dtype == fb::DType::I64 ? 2 : 1;
  D.Spec[20] = uint32_t(Count);
  D.Spec[21] = uint32_t(Mode);
  D.Spec[22] = uint32_t(uint64_t(Operand) & 0xffffffffu);
  D.Spec[23] = uint32_t(uint64_t(Operand) >> 32);
  D.Bindings = {L.bindTensor(X), L.bindTensor(Y)};
  flatGroups(D, Count);
  return "";
}

std::string lowerGather(Lowering &L, const fb::OperatorT &Op) {
  int32_t Data = Op.inputs[0], Ids = Op.inputs[1], Y = Op.outputs[0];
  const Storage &YS = L.storage(Y);
  if (YS.C4)
    return "a gather into an NHWC activation";
  const fb::TensorT &DT = L.tensor(Data);
  if (DT.buffer < 0 || (DT.dtype != fb::DType::F32 && DT.dtype != fb::DType::F16))
    return "a gather from a computed tensor (the Vulkan target looks up "
           "constant float tables)";
  if (L.tensor(Ids).buffer >= 0 || !isIndexType(L.tensor(Ids).dtype))
    return "a gather by other than an integer graph input";
  int64_t Axis = Op.options.AsGatherOptions()->axis;
  uint64_t Outer = 1, Inner = 1;
  for (size_t I = 0; I < DT.shape.size(); ++I)
    if (int64_t(I) < Axis)
      Outer *= uint64_t(DT.shape[I]);
    else if (int64_t(I) > Axis)
      Inner *= uint64_t(DT.shape[I]);
  uint64_t Count = elementCount(L.tensor(Ids).shape);
  if (!fitsKernel(Outer * Count * Inner) || !fitsKernel(elementCount(DT.shape)))
    return "a gather of over 2^31 elements";
  BindingRef Table = L.bindFloats(L.floats(Data), Data);
  PendingDispatch &D = L.dispatch("index_gather");
  D.Spec[19] = L.tensor(Ids).dtype == fb::DType::I64 ? 2 : 1;
  D.Spec[20] = uint32_t(Outer);
  D.Spec[21] = uint32_t(Count);
  D.Spec[22] = uint32_t(DT.shape[size_t(Axis)]);
  D.Spec[23] = uint32_t(Inner);
  D.Bindings = {L.bindTensor(Ids), Table, L.bindTensor(Y)};
  flatGroups(D, Outer * Count * Inner);
  return "";
}

} // namespace kiln::vulkan

// MATMUL of two computed tensors (attention's q k^T and p v) as NNAPI's
// BATCH_MATMUL, feature level 6 (Android 13). Below that level the NNAPI
// pipeline's expand-matmul has already turned each such matmul into a
// broadcast MUL and a REDUCE_SUM, so a MATMUL reaches this lowering only at
// --nnapi-feature-level 1000006.
//
// BATCH_MATMUL's rules (AOSP, common/operations/BatchMatmul.cpp): both
// operands of one type (TENSOR_FLOAT32, or TENSOR_QUANT8_ASYMM_SIGNED with
// the output in its own parameters), the same rank, 2 to 4; the output
// takes the left operand's batch dims, so only the right one may broadcast
// a batch dim of 1. Here a lower-rank operand gets leading 1s (RESHAPE), a
// left operand that broadcasts is handled as (b^T a^T)^T (adj_x and adj_y,
// then TRANSPOSE), and a fused clamp is an ADD of zero after the product
// (BATCH_MATMUL has no fused activation).
#include "backends/nnapi/NnapiLowering.h"
#include "schema/nnapi/NeuralNetworksApi.h"

#include <cmath>
#include <cstring>
#include <string>

namespace kiln::nnapi {

namespace {

std::string dimsText(const std::vector<uint32_t> &D) {
  std::string S = "[";
  for (size_t I = 0; I < D.size(); ++I)
    S += (I ? "," : "") + std::to_string(D[I]);
  return S + "]";
}

/// How BATCH_MATMUL computes a b for operands of one rank: as it is, or,
/// where only the left operand broadcasts a batch dim, as (b^T a^T)^T
/// (adj_x, adj_y, then a TRANSPOSE); Invalid where neither fits.
enum class Form { Direct, Swapped, Invalid };

Form formOf(const std::vector<uint32_t> &A, const std::vector<uint32_t> &B) {
  bool LeftOk = true, RightOk = true;
  for (size_t I = 0; I + 2 < A.size(); ++I) {
    LeftOk = LeftOk && (B[I] == A[I] || B[I] == 1);
    RightOk = RightOk && (A[I] == B[I] || A[I] == 1);
  }
  return LeftOk ? Form::Direct : RightOk ? Form::Swapped : Form::Invalid;
}

/// X with leading 1s up to Rank (a RESHAPE), or X itself.
uint32_t withRank(Lowering &L, uint32_t X, size_t Rank, int32_t Op) {
  std::vector<uint32_t> D = L.operand(X).dimensions;
  if (D.size() >= Rank)
    return X;
  D.insert(D.begin(), Rank - D.size(), 1u);
  uint32_t Y = L.activationLike(X, D);
  std::vector<int32_t> Shape(D.begin(), D.end());
  L.emit(RESHAPE, {X, L.tensorI32(Shape)}, {Y}, Op);
  return Y;
}

} // namespace

void lowerBatchMatmul(Lowering &L, int32_t Op) {
  const fb::OperatorT &O = L.op(Op);
  const fb::MatMulOptionsT &C = *O.options.AsMatMulOptions();
  if (!L.need(FeatureLevel6, "BATCH_MATMUL (a matmul of two computed "
                             "tensors; below feature level 6, expand-matmul "
                             "writes it as MUL and REDUCE_SUM)",
              Op))
    return;
  bool Quant = L.quantized(O.inputs[0]);
  if (Quant != L.quantized(O.inputs[1]) || Quant != L.quantized(O.outputs[0]))
    return L.fail(Op, "a matmul whose operands and result are not all int8 "
                      "or all float (BATCH_MATMUL takes one type)");
  // A float constant operand as TENSOR_FLOAT32 whatever kiln stores.
  auto operandFor = [&](int32_t T) {
    return !Quant && L.tensor(T).buffer >= 0 ? L.floatOperandOf(T)
                                             : L.operandOf(T);
  };
  uint32_t A = operandFor(O.inputs[0]), B = operandFor(O.inputs[1]);
  uint32_t Out = L.operandOf(O.outputs[0]);
  const std::vector<uint32_t> &YD = L.operand(Out).dimensions;
  size_t Rank = YD.size();
  if (Rank < 2 || Rank > 4 || L.operand(A).dimensions.size() > Rank ||
      L.operand(B).dimensions.size() > Rank)
    return L.fail(Op, "operands " + dimsText(L.operand(A).dimensions) +
                          " and " + dimsText(L.operand(B).dimensions) +
                          " into " + dimsText(YD) +
                          " (BATCH_MATMUL takes ranks 2 to 4)");
  A = withRank(L, A, Rank, Op);
  B = withRank(L, B, Rank, Op);
  Form F = formOf(L.operand(A).dimensions, L.operand(B).dimensions);
  if (F == Form::Invalid)
    return L.fail(Op, "operands " + dimsText(L.operand(A).dimensions) +
                          " and " + dimsText(L.operand(B).dimensions) +
                          " that each broadcast a batch dim of the other "
                          "(BATCH_MATMUL's output takes one operand's)");
  bool Open = std::isinf(C.output_min) && C.output_min < 0 &&
              std::isinf(C.output_max) && C.output_max > 0;
  bool Clamp = !Open &&
               !(Quant && L.saturatesWithin(Out, C.output_min, C.output_max));
  // The product lands in Out, or, before a clamp, in a temporary.
  uint32_t Product = Clamp ? L.activationLike(Out, YD) : Out;
  if (F == Form::Direct) {
    L.emit(BATCH_MATMUL, {A, B, L.scalarBool(false), L.scalarBool(false)},
           {Product}, Op);
  } else {
    std::vector<uint32_t> TD = YD;
    std::swap(TD[Rank - 1], TD[Rank - 2]);
    uint32_t Transposed = L.activationLike(Out, TD);
    L.emit(BATCH_MATMUL, {B, A, L.scalarBool(true), L.scalarBool(true)},
           {Transposed}, Op);
    std::vector<int32_t> Perm;
    for (size_t I = 0; I < Rank; ++I)
      Perm.push_back(int32_t(I));
    std::swap(Perm[Rank - 1], Perm[Rank - 2]);
    L.emit(TRANSPOSE, {Transposed, L.tensorI32(Perm)}, {Product}, Op);
  }
  if (!Clamp)
    return;
  // A fused clamp (relu after the matmul): an ADD of zero with it.
  uint32_t Zero;
  if (Quant) {
    Zero = L.zeroLike(Product);
  } else {
    std::vector<uint8_t> Bytes(4, 0);
    Zero = L.constant(TENSOR_FLOAT32, {1}, 0, 0, std::move(Bytes));
  }
  L.emitWithClamp(ADD, {Product, Zero}, {}, Out, C.output_min, C.output_max,
                  Op);
}

} // namespace kiln::nnapi

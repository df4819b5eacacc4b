// linear, gemm and matmul -> FULLY_CONNECTED (XNNPACK) when the weight is a
// constant, with the weight stored [out, in] (transposed and scaled by
// alpha at compile time), otherwise MATMUL (oneDNN's batched matmul where
// the runtime has oneDNN, else the reference kernel: the runtime picks). gemm's C becomes the
// bias when it broadcasts along the output features, else an ADD after the
// product, which then carries the fused activation.
#include "backends/kilnops/QuantLowering.h"
#include "backends/kilnops/KilnOpRules.h"
#include "backends/kilnops/WeightPacking.h"

namespace kiln {

namespace {

std::vector<int64_t> sizesOf(const Value *V) {
  return staticSizes(V->type().Dims);
}

std::string nameOf(const Value *V, const char *Fallback) {
  return V->name().empty() ? Fallback : V->name();
}

/// Emits FULLY_CONNECTED of In by the packed [out, in] weight, with an
/// optional bias tensor, into a tensor defining Result.
void emitFullyConnected(LoweringContext &Ctx, const Value *Result, int32_t In,
                        int32_t Weight, int32_t Bias,
                        const OutputActivation &Act) {
  fb::FullyConnectedOptionsT O;
  O.output_min = Act.Min, O.output_max = Act.Max;
  emitWithActivation(Ctx, Result, false, Act, [&](int32_t Out) {
    Ctx.addOp(fb::OpKind::FULLY_CONNECTED, {In, Weight, Bias}, {Out},
              optionsOf(O), fb::Engine::XNNPACK);
  });
}

KilnOpSupport checkLinear(const Node &N) {
  if (KilnOpSupport S = requireF32(N); !S.Supported)
    return S;
  if (KilnOpSupport S = requireConstant(N, 1, "weight"); !S.Supported)
    return S;
  if (N.numOperands() > 2 && N.operand(2))
    return requireConstant(N, 2, "bias");
  return supported();
}

llvm::Error lowerLinear(const Node &N, LoweringContext &Ctx) {
  const Value *W = N.operand(1);
  // Int8 (qc8) or a narrow (f16/int8) weight the runtime widens at load;
  // linear's [out, in] weight is already OI.
  if (auto Narrow = narrowWeightOf(W)) {
    int32_t Weight = Ctx.sharedWeight(W, fb::Layout::OI, [&] {
      return narrowConstant(Ctx, W, *Narrow, fb::Layout::OI);
    });
    bool Int8 = isInt8Pattern(N, Ctx.options());
    int32_t Bias = -1;
    if (N.numOperands() > 2 && N.operand(2)) {
      auto NB = narrowWeightOf(N.operand(2));
      Bias = !NB   ? Ctx.canonical(N.operand(2))
             : Int8 ? int8Bias(Ctx, N.operand(2), *NB)
                    : narrowConstant(Ctx, N.operand(2), *NB, fb::Layout::PLAIN);
    }
    if (Int8) {
      OutputActivation Act = outputActivation(N);
      fb::FullyConnectedOptionsT O;
      O.output_min = Act.Min, O.output_max = Act.Max;
      int32_t In = int8Operand(Ctx, N.operand(0), false);
      int32_t Out = int8Result(Ctx, N, false);
      Ctx.addOp(fb::OpKind::FULLY_CONNECTED, {In, Weight, Bias}, {Out},
                optionsOf(O), fb::Engine::XNNPACK);
      return llvm::Error::success();
    }
    emitFullyConnected(Ctx, N.result(), Ctx.canonical(N.operand(0)), Weight,
                       Bias, outputActivation(N));
    return llvm::Error::success();
  }
  int32_t Weight = Ctx.sharedWeight(W, fb::Layout::OI, [&] {
    return Ctx.addConstant(nameOf(W, "weight"), ElementType::F32, sizesOf(W),
                           fb::Layout::OI, Ctx.constantOf(W)->buffer());
  });
  int32_t Bias =
      N.numOperands() > 2 && N.operand(2) ? Ctx.canonical(N.operand(2)) : -1;
  emitFullyConnected(Ctx, N.result(), Ctx.canonical(N.operand(0)), Weight,
                     Bias, outputActivation(N));
  return llvm::Error::success();
}

KilnOpSupport checkGemm(const Node &N) {
  if (KilnOpSupport S = requireF32(N); !S.Supported)
    return S;
  bool ConstB = isConstantOrFolded(N.operand(1));
  if (!ConstB && N.getFloat("alpha") != 1.0)
    return notSupported("alpha != 1 with a non-constant B");
  if (N.numOperands() > 2 && N.operand(2) && !isConstantOrFolded(N.operand(2)) &&
      N.getFloat("beta") != 1.0)
    return notSupported("beta != 1 with a non-constant C");
  return supported();
}

/// beta * C as a bias of N features, if C broadcasts along the features
/// only ([N], [1, N], or a single value).
llvm::Optional<std::vector<float>> biasFromC(const Node &N, int64_t Features,
                                             const LoweringContext &Ctx) {
  const Value *C = N.numOperands() > 2 ? N.operand(2) : nullptr;
  if (!C || !Ctx.constantOf(C))
    return llvm::None;
  std::vector<int64_t> S = sizesOf(C);
  int64_t Count = Ctx.constantOf(C)->numElements();
  bool AlongFeatures = (Count == Features || Count == 1) &&
                       (S.size() < 2 || S[0] == 1);
  if (!AlongFeatures)
    return llvm::None;
  std::vector<float> V = floatsOf(*Ctx.constantOf(C));
  std::vector<float> Bias(static_cast<size_t>(Features));
  float Beta = float(N.getFloat("beta"));
  for (int64_t I = 0; I < Features; ++I)
    Bias[size_t(I)] = Beta * V[Count == 1 ? 0 : size_t(I)];
  return Bias;
}

llvm::Error lowerGemm(const Node &N, LoweringContext &Ctx) {
  const Value *A = N.operand(0), *B = N.operand(1);
  const Value *C = N.numOperands() > 2 ? N.operand(2) : nullptr;
  bool TransA = N.getInt("trans_a"), TransB = N.getInt("trans_b");
  float Alpha = float(N.getFloat("alpha")), Beta = float(N.getFloat("beta"));
  std::vector<int64_t> SB = sizesOf(B), Y = sizesOf(N.result());
  int64_t Features = Y[1];
  int32_t In = Ctx.canonical(A);
  if (TransA)
    In = Ctx.transpose(In, {1, 0}, nameOf(A, "a") + ".t", fb::Layout::PLAIN);
  OutputActivation Act = outputActivation(N);
  bool CNeeded = C && Beta != 0.0f;
  llvm::Optional<std::vector<float>> Bias;
  if (CNeeded && Ctx.constantOf(B))
    Bias = biasFromC(N, Features, Ctx);
  // C that is not a bias is added after the product, which then carries no
  // activation: the ADD does.
  bool AddAfter = CNeeded && !Bias;
  const float Inf = std::numeric_limits<float>::infinity();
  OutputActivation ProductAct =
      AddAfter ? OutputActivation{-Inf, Inf, llvm::None} : Act;

  auto EmitProduct = [&](int32_t Out) {
    if (Ctx.constantOf(B)) {
      std::vector<float> W = floatsOf(*Ctx.constantOf(B));
      if (!TransB) // B is [K, N]; the weight is [N, K]
        W = transposeMatrix(W.data(), SB[0], SB[1]);
      for (float &X : W)
        X *= Alpha;
      int32_t Weight = Ctx.addFloatConstant(nameOf(B, "b") + ".oi",
                                            {Features, TransB ? SB[1] : SB[0]},
                                            fb::Layout::OI, W);
      int32_t BiasT = Bias ? Ctx.addFloatConstant(nameOf(C, "c") + ".bias",
                                                  {Features}, fb::Layout::PLAIN,
                                                  *Bias)
                           : -1;
      fb::FullyConnectedOptionsT O;
      O.output_min = ProductAct.Min, O.output_max = ProductAct.Max;
      Ctx.addOp(fb::OpKind::FULLY_CONNECTED, {In, Weight, BiasT}, {Out},
                optionsOf(O), fb::Engine::XNNPACK);
      return;
    }
    int32_t Rhs = Ctx.canonical(B);
    if (TransB)
      Rhs = Ctx.transpose(Rhs, {1, 0}, nameOf(B, "b") + ".t", fb::Layout::PLAIN);
    fb::MatMulOptionsT O;
    O.output_min = ProductAct.Min, O.output_max = ProductAct.Max;
    Ctx.addOp(fb::OpKind::MATMUL, {In, Rhs}, {Out}, optionsOf(O),
              fb::Engine::ANY);
  };
  if (!AddAfter) {
    emitWithActivation(Ctx, N.result(), false, ProductAct, EmitProduct);
    return llvm::Error::success();
  }
  int32_t Product = Ctx.addTensor(nameOf(N.result(), "gemm") + ".product",
                                  ElementType::F32, Y, fb::Layout::PLAIN);
  EmitProduct(Product);
  // y = product + beta * C, with the fused activation.
  int32_t Addend;
  if (Ctx.constantOf(C)) {
    std::vector<float> V = floatsOf(*Ctx.constantOf(C));
    for (float &X : V)
      X *= Beta;
    Addend = Ctx.addFloatConstant(nameOf(C, "c") + ".scaled", sizesOf(C),
                                  fb::Layout::PLAIN, V);
  } else {
    Addend = Ctx.canonical(C);
  }
  fb::BinaryOptionsT O;
  O.op = fb::BinaryOp::ADD;
  O.output_min = Act.Min, O.output_max = Act.Max;
  emitWithActivation(Ctx, N.result(), false, Act, [&](int32_t Out) {
    Ctx.addOp(fb::OpKind::BINARY, {Product, Addend}, {Out}, optionsOf(O),
              fb::Engine::XNNPACK);
  });
  return llvm::Error::success();
}

KilnOpSupport checkMatMul(const Node &N) { return requireF32(N); }

llvm::Error lowerMatMul(const Node &N, LoweringContext &Ctx) {
  const Value *A = N.operand(0), *B = N.operand(1);
  std::vector<int64_t> SA = sizesOf(A), SB = sizesOf(B),
                       Y = sizesOf(N.result());
  OutputActivation Act = outputActivation(N);
  if (isInt8Pattern(N, Ctx.options())) {
    // Both operands and the result int8 per tensor (the quantizes around
    // it): one MATMUL on the i8 tensors, requantized as it stores.
    fb::MatMulOptionsT O;
    O.output_min = Act.Min, O.output_max = Act.Max;
    int32_t Lhs = int8Operand(Ctx, A, false), Rhs = int8Operand(Ctx, B, false);
    Ctx.addOp(fb::OpKind::MATMUL, {Lhs, Rhs}, {int8Result(Ctx, N, false)},
              optionsOf(O), fb::Engine::ANY);
    return llvm::Error::success();
  }
  int32_t In = Ctx.canonical(A);
  if (Ctx.constantOf(B) && SB.size() <= 2) {
    // y = a . b with b [K, N] (or [K]): a fully connected layer with the
    // weight b^T [N, K].
    int64_t K = SB[0], Features = SB.size() == 2 ? SB[1] : 1;
    std::vector<float> W = floatsOf(*Ctx.constantOf(B));
    if (SB.size() == 2)
      W = transposeMatrix(W.data(), K, Features);
    int32_t Weight = Ctx.addFloatConstant(nameOf(B, "b") + ".oi",
                                          {Features, K}, fb::Layout::OI, W);
    if (SB.size() == 2) {
      emitFullyConnected(Ctx, N.result(), In, Weight, -1, Act);
      return llvm::Error::success();
    }
    std::vector<int64_t> FcShape = SA;
    FcShape.back() = 1;
    int32_t Fc = Ctx.addTensor(nameOf(N.result(), "matmul") + ".fc",
                               ElementType::F32, FcShape, fb::Layout::PLAIN);
    fb::FullyConnectedOptionsT O;
    O.output_min = Act.Min, O.output_max = Act.Max;
    Ctx.addOp(fb::OpKind::FULLY_CONNECTED, {In, Weight, -1}, {Fc},
              optionsOf(O), fb::Engine::XNNPACK);
    const float Inf = std::numeric_limits<float>::infinity();
    OutputActivation Rest{-Inf, Inf, Act.Extra};
    emitWithActivation(Ctx, N.result(), false, Rest, [&](int32_t Out) {
      fb::ReshapeOptionsT R;
      Ctx.addOp(fb::OpKind::RESHAPE, {Fc}, {Out}, optionsOf(R),
                fb::Engine::REFERENCE);
    });
    return llvm::Error::success();
  }
  fb::MatMulOptionsT O;
  O.output_min = Act.Min, O.output_max = Act.Max;
  // General case: rank >= 2 operands for MATMUL, reshaped back after.
  int32_t Rhs = Ctx.canonical(B);
  std::vector<int64_t> Out2 = Y;
  if (SA.size() == 1) {
    In = Ctx.reshape(In, {1, SA[0]}, nameOf(A, "a") + ".2d", fb::Layout::PLAIN);
    Out2.insert(Out2.end() - (SB.size() == 1 ? 0 : 1), 1);
  }
  if (SB.size() == 1) {
    Rhs = Ctx.reshape(Rhs, {SB[0], 1}, nameOf(B, "b") + ".2d", fb::Layout::PLAIN);
    Out2.push_back(1);
  }
  if (Out2 == Y) {
    emitWithActivation(Ctx, N.result(), false, Act, [&](int32_t Out) {
      Ctx.addOp(fb::OpKind::MATMUL, {In, Rhs}, {Out}, optionsOf(O),
                fb::Engine::ANY);
    });
    return llvm::Error::success();
  }
  int32_t Wide = Ctx.addTensor(nameOf(N.result(), "matmul") + ".2d",
                               ElementType::F32, Out2, fb::Layout::PLAIN);
  Ctx.addOp(fb::OpKind::MATMUL, {In, Rhs}, {Wide}, optionsOf(O),
            fb::Engine::ANY);
  // The clamp ran in MATMUL; only an extra activation op remains.
  const float Inf = std::numeric_limits<float>::infinity();
  OutputActivation Rest{-Inf, Inf, Act.Extra};
  emitWithActivation(Ctx, N.result(), false, Rest, [&](int32_t Out) {
    Ctx.addOp(fb::OpKind::RESHAPE, {Wide}, {Out}, optionsOf(fb::ReshapeOptionsT()),
              fb::Engine::REFERENCE);
  });
  return llvm::Error::success();
}

const CpuOpRule Rules[] = {
    {"linear", checkLinear, lowerLinear},
    {"gemm", checkGemm, lowerGemm},
    {"matmul", checkMatMul, lowerMatMul},
};

} // namespace

llvm::ArrayRef<CpuOpRule> linearRules() { return Rules; }

} // namespace kiln

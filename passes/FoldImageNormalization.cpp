// fold-image-normalization: a pixels_to_tensor whose only user is a conv
// with a constant float weight hands its per-channel scale (1 / std) to the
// conv's weight:
//   conv(w, (p - mean) * s) = conv(w * s[c_in], p - mean)
// exactly, padded borders included: a zero-padded border of (p - mean) * s
// is a zero-padded border of p - mean. The mean stays in pixels_to_tensor,
// where subtracting it is free (the conversion touches every value anyway)
// and where a padded border stays right; folding it into the bias would be
// wrong wherever the conv pads. A conv whose weight is not a plain f32
// constant (fp16, int8) keeps the scale in the conversion.
#include "passes/FusionSupport.h"
#include "passes/Pass.h"

namespace kiln {

namespace {

bool allOnes(const std::vector<double> &V) {
  for (double X : V)
    if (X != 1.0)
      return false;
  return true;
}

class FoldImageNormalization : public Pass {
public:
  llvm::Expected<bool> run(Graph &G, PassStats &Stats) override {
    bool Changed = false;
    for (Node &P : G.nodes()) {
      if (!P.isOp("pixels_to_tensor") || allOnes(P.getFloats("scale")) ||
          !hasSingleUse(G, P.result()))
        continue;
      Use U = P.result()->uses()[0];
      Node &Conv = *U.User;
      Value *W = Conv.numOperands() > 1 ? Conv.operand(1) : nullptr;
      if (!Conv.isOp("conv") || U.Index != 0 || !W ||
          W->type().Elem != ElementType::F32)
        continue;
      auto Weight = floatConstant(W);
      if (!Weight || W->type().rank() != 4)
        continue;
      std::vector<int64_t> Sizes = staticSizes(W->type().Dims);
      int64_t Out = Sizes[0], InPerGroup = Sizes[1];
      int64_t Taps = Sizes[2] * Sizes[3], Groups = Conv.getInt("group");
      int64_t OutPerGroup = Out / Groups;
      const std::vector<double> &Scale = P.getFloats("scale");
      for (size_t I = 0; I < Weight->size(); ++I) {
        int64_t O = int64_t(I) / (InPerGroup * Taps);
        int64_t In = (O / OutPerGroup) * InPerGroup +
                     (int64_t(I) / Taps) % InPerGroup;
        (*Weight)[I] *= Scale.size() == 1 ? Scale[0] : Scale[size_t(In)];
      }
      Value *Scaled = G.createConstant(
          makeFloatTensor(ElementType::F32, Sizes, *Weight),
          W->name() + "_image_scaled", &Conv);
      Conv.setOperand(1, Scaled);
      eraseUnusedConstants(G, {W});
      P.setAttr("scale", std::vector<double>{1.0});
      Stats.add("folded");
      Changed = true;
    }
    return Changed;
  }
};

} // namespace

std::unique_ptr<Pass> createFoldImageNormalization() {
  return std::make_unique<FoldImageNormalization>();
}

} // namespace kiln

#include "Driver/ImageInputFlags.h"

#include "Support/Error.h"
#include "Support/ImagePreprocess.h"
#include "passes/ImageInput.h"
#include "passes/PassManager.h"

namespace kiln {

void addImageInputFlags(CLI::App &Sub, ImageInputFlags &F) {
  Sub.add_option("--image-input", F.Inputs,
                 "input NAME takes 8-bit frames: NAME=FORMAT, FORMAT rgb8, "
                 "bgr8, rgba8, bgra8, gray8 or nv21 (the input becomes "
                 "u8[N,H,W,C]; repeatable)");
  Sub.add_option("--mean", F.Mean,
                 "image inputs: per-channel mean in 0-255 pixel units, in the "
                 "model's channel order (a or a,b,c; torchvision's "
                 "0.485,0.456,0.406 is 123.675,116.28,103.53)");
  Sub.add_option("--std", F.Std,
                 "image inputs: per-channel std in 0-255 pixel units "
                 "(torchvision's 0.229,0.224,0.225 is 58.395,57.12,57.375)");
  Sub.add_option("--image-channels", F.ChannelOrder,
                 "image inputs: the channel order the model was trained on, "
                 "rgb (default) or bgr")
      ->check(CLI::IsMember({"rgb", "bgr"}));
  Sub.add_option("--argmax-output", F.ArgmaxOutputs,
                 "output NAME (scores [N,C,H,W]) becomes the u8[N,H,W] index "
                 "of the largest score along C (repeatable)");
}

namespace {

llvm::Expected<std::vector<ImageInputSpec>>
makeSpecs(const ImageInputFlags &F) {
  if (F.Inputs.empty() && (!F.Mean.empty() || !F.Std.empty()))
    return usageError("--mean and --std apply to image inputs; add "
                      "--image-input NAME=FORMAT");
  std::vector<double> Mean = {0.0}, Std = {1.0};
  if (!F.Mean.empty())
    if (auto E = parseChannelValues(F.Mean, "--mean", Mean))
      return E;
  if (!F.Std.empty())
    if (auto E = parseChannelValues(F.Std, "--std", Std))
      return E;
  std::vector<ImageInputSpec> Specs;
  for (const std::string &Text : F.Inputs) {
    auto S = parseImageInputFlag(Text);
    if (!S)
      return S.takeError();
    S->Mean = Mean;
    S->Std = Std;
    S->ChannelOrder = F.ChannelOrder;
    Specs.push_back(std::move(*S));
  }
  return Specs;
}

} // namespace

llvm::Error checkImageInputFlags(const ImageInputFlags &F) {
  return makeSpecs(F).takeError();
}

llvm::Error applyImageInputFlags(const ImageInputFlags &F, Graph &G,
                                 PassManager &PM) {
  if (!F.any())
    return llvm::Error::success();
  auto Specs = makeSpecs(F);
  if (!Specs)
    return Specs.takeError();
  for (const ImageInputSpec &S : *Specs)
    if (auto E = attachImageInput(G, S))
      return E;
  for (const std::string &Out : F.ArgmaxOutputs)
    if (auto E = attachArgmaxOutput(G, Out))
      return E;
  if (Specs->empty())
    return llvm::Error::success();
  return PM.runPass("fold-image-normalization", G);
}

} // namespace kiln

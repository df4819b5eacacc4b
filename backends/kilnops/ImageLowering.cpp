// pixels_to_tensor on the CPU target: one PIXELS_TO_TENSOR operator that
// reads the u8 frame and writes the normalized image straight in NHWC, the
// layout the first convolution reads, so the frame is read once and no
// transpose follows. The graph input it reads is laid out as the frame is
// (NHWC), and the file's metadata marks it as an image input. In an int8
// file the quantize that follows is folded in (PIXELS_TO_TENSOR writes i8).
#include "backends/kilnops/KilnOpRules.h"

#include "numerics/PixelFormats.h"

namespace kiln {

namespace {

KilnOpSupport checkPixels(const Node &N) {
  if (!N.operand(0)->type().isStatic())
    return notSupported("the frame's size must be static");
  return supported();
}

std::vector<float> toFloats(const std::vector<double> &V) {
  return std::vector<float>(V.begin(), V.end());
}

} // namespace

const Node *fusedInputQuantize(const Node &P) {
  if (!P.isOp("pixels_to_tensor") || P.result()->numUses() != 1 ||
      P.graph()->isOutput(P.result()))
    return nullptr;
  const Node *Q = P.result()->uses()[0].User;
  const TensorType &T = Q->result()->type();
  bool PerTensorInt8 = T.Elem == ElementType::I8 && T.Quant &&
                       !T.Quant->isPerAxis() && T.Quant->Scales.size() == 1;
  return Q->isOp("quantize") && PerTensorInt8 ? Q : nullptr;
}

namespace {

llvm::Error lowerPixels(const Node &N, LoweringContext &Ctx) {
  fb::PixelsToTensorOptionsT O;
  O.format = fb::PixelFormat(numerics::parsePixelFormat(N.getString("format")));
  O.channel_bgr = N.getString("channel_order") == "bgr";
  O.mean = toFloats(N.getFloats("mean"));
  O.scale = toFloats(N.getFloats("scale"));
  int32_t In = Ctx.canonical(N.operand(0));
  // An int8 model's input quantization is folded in: the operator writes
  // the quantize's int8 result, and the image never exists as f32.
  const Node *Q = fusedInputQuantize(N);
  const Value *Result = Q ? Q->result() : N.result();
  int32_t Out = Ctx.resultTensor(Result, true);
  Ctx.addOp(fb::OpKind::PIXELS_TO_TENSOR, {In}, {Out}, optionsOf(std::move(O)),
            fb::Engine::REFERENCE);
  Ctx.define(Result, Out, true);
  return llvm::Error::success();
}

const CpuOpRule Rules[] = {{"pixels_to_tensor", checkPixels, lowerPixels}};

} // namespace

llvm::ArrayRef<CpuOpRule> imageRules() { return Rules; }

const Node *imageInputReader(const Value *In) {
  if (!In->isGraphInput())
    return nullptr;
  for (const Use &U : In->uses())
    if (U.User->isOp("pixels_to_tensor"))
      return U.User;
  return nullptr;
}

std::unique_ptr<fb::ImageInputInfoT> imageInputInfo(const Value *In) {
  const Node *P = imageInputReader(In);
  if (!P)
    return nullptr;
  auto I = std::make_unique<fb::ImageInputInfoT>();
  I->format = fb::PixelFormat(numerics::parsePixelFormat(P->getString("format")));
  I->channels = int32_t(P->getInt("channels"));
  I->channel_bgr = P->getString("channel_order") == "bgr";
  I->mean = toFloats(P->getFloats("mean"));
  // The scale the conversion applies may have moved into the first conv
  // (fold-image-normalization); the std the user gave is on the input.
  I->std = toFloats(P->getFloats("input_std"));
  return I;
}

} // namespace kiln

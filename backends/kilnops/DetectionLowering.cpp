// box_nms on the CPU target: one BOX_NMS operator (runtime reference
// kernel, numerics/BoxNms.h), all of its tensors f32 or i32 and plain.
#include "backends/kilnops/KilnOpRules.h"

namespace kiln {

namespace {

KilnOpSupport checkBoxNms(const Node &N) {
  if (!N.operand(0)->type().isStatic() || !N.operand(1)->type().isStatic())
    return notSupported("box_nms needs static boxes and scores");
  return supported();
}

llvm::Error lowerBoxNms(const Node &N, LoweringContext &Ctx) {
  fb::BoxNmsOptionsT O;
  O.center_boxes = N.getString("box_format") == "cxcywh";
  O.iou_threshold = float(N.getFloat("iou_threshold"));
  O.score_threshold = float(N.getFloat("score_threshold"));
  O.max_detections = int32_t(N.getInt("max_detections"));
  std::vector<int32_t> In = {Ctx.canonical(N.operand(0)),
                             Ctx.canonical(N.operand(1))};
  std::vector<int32_t> Out;
  for (const Value *R : N.results())
    Out.push_back(Ctx.resultTensor(R, false));
  Ctx.addOp(fb::OpKind::BOX_NMS, In, Out, optionsOf(std::move(O)),
            fb::Engine::REFERENCE);
  for (size_t I = 0; I < Out.size(); ++I)
    Ctx.define(N.result(unsigned(I)), Out[I], false);
  return llvm::Error::success();
}

const CpuOpRule Rules[] = {{"box_nms", checkBoxNms, lowerBoxNms}};

} // namespace

llvm::ArrayRef<CpuOpRule> detectionRules() { return Rules; }

} // namespace kiln

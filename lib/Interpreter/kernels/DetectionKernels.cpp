// Reference box_nms (lib/IR/ops/DetectionOps.cpp), image by image, through
// numerics/BoxNms.h as the runtime's kernel runs it.
#include "Interpreter/Kernel.h"
#include "Interpreter/kernels/NNKernels.h"

#include "numerics/BoxNms.h"

namespace kiln {

namespace {

llvm::Error boxNmsKernel(KernelContext &Ctx) {
  const Node &N = Ctx.N;
  numerics::BoxNmsParams P;
  P.CenterBoxes = N.getString("box_format") == "cxcywh";
  P.IouThreshold = float(N.getFloat("iou_threshold"));
  P.ScoreThreshold = float(N.getFloat("score_threshold"));
  P.MaxDetections = N.getInt("max_detections");
  std::vector<int64_t> Shape = sizesOf(*Ctx.input(1));
  int64_t Batch = Shape[0], Count = Shape[1], Classes = Shape[2];
  int64_t K = P.MaxDetections;
  Tensor Boxes = makeTensor(ElementType::F32, {Batch, K, 4});
  Tensor Scores = makeTensor(ElementType::F32, {Batch, K});
  Tensor Labels = makeTensor(ElementType::I32, {Batch, K});
  Tensor Counts = makeTensor(ElementType::I32, {Batch});
  const float *InBoxes = dataAs<float>(*Ctx.input(0));
  const float *InScores = dataAs<float>(*Ctx.input(1));
  std::vector<numerics::BoxCandidate> Candidates, Kept;
  for (int64_t B = 0; B < Batch; ++B)
    mutableData<int32_t>(Counts)[B] = numerics::boxNms(
        InBoxes + B * Count * 4, InScores + B * Count * Classes, Count, Classes,
        P, mutableData<float>(Boxes) + B * K * 4,
        mutableData<float>(Scores) + B * K, mutableData<int32_t>(Labels) + B * K,
        Candidates, Kept);
  Ctx.Outputs.push_back(std::move(Boxes));
  Ctx.Outputs.push_back(std::move(Scores));
  Ctx.Outputs.push_back(std::move(Labels));
  Ctx.Outputs.push_back(std::move(Counts));
  return llvm::Error::success();
}

} // namespace

void registerDetectionKernels() { registerKernel("box_nms", boxNmsKernel); }

} // namespace kiln

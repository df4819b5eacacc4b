// BOX_NMS on the CPU: numerics/BoxNms.h image by image, as the IR
// interpreter runs it; the candidate lists are the kernel's, kept between
// runs.
#include "cpu/reference/ReferenceKernels.h"

#include "numerics/BoxNms.h"

#include <memory>

namespace kiln::rt::ref {

RunFn boxNms(const KernelArgs &A) {
  const auto &O = *A.Op.options_as_BoxNmsOptions();
  numerics::BoxNmsParams P;
  P.CenterBoxes = O.center_boxes();
  P.IouThreshold = O.iou_threshold();
  P.ScoreThreshold = O.score_threshold();
  P.MaxDetections = O.max_detections();
  int64_t Batch = A.In[1].dim(0), Count = A.In[1].dim(1),
          Classes = A.In[1].dim(2);
  const float *Boxes = A.In[0].as<const float>();
  const float *Scores = A.In[1].as<const float>();
  float *OutBoxes = A.Out[0].as<float>();
  float *OutScores = A.Out[1].as<float>();
  int32_t *Labels = A.Out[2].as<int32_t>();
  int32_t *Counts = A.Out[3].as<int32_t>();
  struct Scratch {
    std::vector<numerics::BoxCandidate> Candidates, Kept;
  };
  auto S = std::make_shared<Scratch>();
  S->Candidates.reserve(size_t(Count));
  S->Kept.reserve(size_t(P.MaxDetections));
  return [=]() {
    const int64_t K = P.MaxDetections;
    for (int64_t B = 0; B < Batch; ++B)
      Counts[B] = numerics::boxNms(Boxes + B * Count * 4,
                                   Scores + B * Count * Classes, Count,
                                   Classes, P, OutBoxes + B * K * 4,
                                   OutScores + B * K, Labels + B * K,
                                   S->Candidates, S->Kept);
    return Status::ok();
  };
}

} // namespace kiln::rt::ref

// The loader's checks of BOX_NMS (schema/kiln.fbs): F32 boxes [B, N, 4] and
// scores [B, N, C] with C >= 1, outputs F32 [B, K, 4], F32 [B, K], I32
// [B, K] and I32 [B] for K = max_detections, an IoU threshold in [0, 1] and
// a finite score threshold, so the kernel reads and writes inside them.
#include "loader/OpValidation.h"

#include <cmath>

namespace kiln::rt {

using fb::DType;

Status validateBoxNms(const OpView &V) {
  if (Status S = checkArity(V, 2, 2, 4))
    return S;
  const TensorDesc &Boxes = *V.In[0], &Scores = *V.In[1];
  if (Status S = checkDType(Boxes, DType::F32, "boxes"))
    return S;
  if (Status S = checkDType(Scores, DType::F32, "scores"))
    return S;
  if (Status S = checkRank(Scores, 3, "scores"))
    return S;
  int64_t B = Scores.dim(0), N = Scores.dim(1);
  if (Scores.dim(2) < 1)
    return invalidModel("scores need at least one class, got ", Scores.dim(2));
  if (Status S = checkShape(Boxes, {B, N, 4}, "boxes"))
    return S;
  const auto &O = *V.Op.options_as_BoxNmsOptions();
  if (!(O.iou_threshold() >= 0 && O.iou_threshold() <= 1))
    return invalidModel("iou_threshold ", O.iou_threshold(),
                        " is not in [0, 1]");
  if (!std::isfinite(O.score_threshold()))
    return invalidModel("score_threshold is not finite");
  int64_t K = O.max_detections();
  if (K < 1 || K > 100000)
    return invalidModel("max_detections ", K, " is not in [1, 100000]");
  const char *Names[] = {"boxes output", "scores output", "labels output",
                         "count output"};
  const DType Types[] = {DType::F32, DType::F32, DType::I32, DType::I32};
  const std::vector<int64_t> Shapes[] = {{B, K, 4}, {B, K}, {B, K}, {B}};
  for (size_t I = 0; I < 4; ++I) {
    if (Status S = checkDType(*V.Out[I], Types[I], Names[I]))
      return S;
    if (Status S = checkShape(*V.Out[I], Shapes[I], Names[I]))
      return S;
  }
  return Status::ok();
}

} // namespace kiln::rt

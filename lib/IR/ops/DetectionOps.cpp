// box_nms: a detector's final boxes, as an app wants them. boxes is
// f32[B, N, 4] (box_format "xyxy": x1, y1, x2, y2; "cxcywh": centre x, y,
// width, height), scores f32[B, N, C]. Per image, each box takes its best
// class (the first of equal scores) and that score; boxes scoring above
// score_threshold, highest first (the lower index first among equal
// scores), are kept greedily unless one already kept of the same class
// overlaps them with IoU above iou_threshold (torchvision's batched_nms),
// until max_detections are kept. The results, per image, rows beyond count
// zero (labels -1):
//   boxes f32[B, K, 4] as x1, y1, x2, y2   scores f32[B, K]
//   labels i32[B, K]                       count i32[B]       (K = max_detections)
#include "IR/Graph.h"
#include "IR/ops/OpBuilder.h"
#include "Support/Error.h"

#include <cmath>

namespace kiln {

namespace {

llvm::Expected<std::vector<TensorType>> inferBoxNms(const Node &N) {
  const std::string &Format = N.getString("box_format");
  if (Format != "xyxy" && Format != "cxcywh")
    return inputError("box_format must be xyxy or cxcywh, got '{0}'", Format);
  int64_t K = N.getInt("max_detections");
  if (K < 1 || K > 100000)
    return inputError("max_detections must be in [1, 100000], got {0}", K);
  double Iou = N.getFloat("iou_threshold"), Score = N.getFloat("score_threshold");
  if (!(Iou >= 0 && Iou <= 1))
    return inputError("iou_threshold must be in [0, 1], got {0}", Iou);
  if (!std::isfinite(Score))
    return inputError("score_threshold must be finite, got {0}", Score);
  const TensorType &Boxes = N.operand(0)->type(), &Scores = N.operand(1)->type();
  if (Boxes.Elem != ElementType::F32 || Boxes.rank() != 3 ||
      !(Boxes.Dims[2].isStatic() && Boxes.Dims[2].size() == 4))
    return inputError("boxes must be f32[B, N, 4], got {0}", toString(Boxes));
  if (Scores.Elem != ElementType::F32 || Scores.rank() != 3)
    return inputError("scores must be f32[B, N, C], got {0}", toString(Scores));
  for (size_t D = 0; D < 2; ++D)
    if (Boxes.Dims[D].isStatic() && Scores.Dims[D].isStatic() &&
        Boxes.Dims[D].size() != Scores.Dims[D].size())
      return inputError("boxes {0} and scores {1} differ in axis {2}",
                        toString(Boxes), toString(Scores), D);
  Dim B = Boxes.Dims[0];
  return std::vector<TensorType>{
      TensorType(ElementType::F32, {B, Dim(K), Dim(4)}),
      TensorType(ElementType::F32, {B, Dim(K)}),
      TensorType(ElementType::I32, {B, Dim(K)}),
      TensorType(ElementType::I32, {B})};
}

} // namespace

void registerDetectionOps(OpRegistry &R) {
  OpBuilder("box_nms", "detection",
            "a detector's final boxes: best class per box, score threshold, "
            "per-class greedy NMS (torchvision's batched_nms), at most "
            "max_detections per image, highest score first, and their count")
      .operand("boxes")
      .operand("scores")
      .results(4, 4)
      .attr("box_format", AttrKind::String, std::string("xyxy"),
            "xyxy | cxcywh")
      .attr("iou_threshold", AttrKind::Float, 0.45,
            "a box overlapping a kept one of its class by more is dropped")
      .attr("score_threshold", AttrKind::Float, 0.25,
            "a box scoring this or less is dropped")
      .attr("max_detections", AttrKind::Int, int64_t(100), "K: boxes kept per image")
      .infer(inferBoxNms)
      .into(R);
}

} // namespace kiln

#include "Driver/DetectionFlags.h"

#include "passes/DetectionNms.h"

namespace kiln {

void addDetectionFlags(CLI::App &Sub, std::string &Nms) {
  Sub.add_option("--nms", Nms,
                 "append NMS to a YOLO-style output [N, boxes, 5 + classes]: "
                 "iou=0.45,score=0.25,max=100[,output=NAME]; the output "
                 "becomes boxes [N, max, 4] (x1, y1, x2, y2), scores, labels "
                 "and count");
}

llvm::Error checkDetectionFlags(const std::string &Nms) {
  if (Nms.empty())
    return llvm::Error::success();
  return parseNmsFlag(Nms).takeError();
}

llvm::Error applyDetectionFlags(const std::string &Nms, Graph &G) {
  if (Nms.empty())
    return llvm::Error::success();
  auto Spec = parseNmsFlag(Nms);
  if (!Spec)
    return Spec.takeError();
  return attachNms(G, *Spec);
}

} // namespace kiln

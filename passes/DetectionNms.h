// `kiln convert --nms iou=0.45,score=0.25,max=100[,output=NAME]`: a
// YOLO-style model's output [N, boxes, 5 + classes] (cx, cy, w, h, the
// objectness, the class scores) becomes the final boxes an app draws:
// scores = objectness x class scores, then one box_nms node
// (lib/IR/ops/DetectionOps.cpp, YOLOv5's non_max_suppression with one
// label a box). The output is replaced by four: boxes f32[N, max, 4]
// (x1, y1, x2, y2), scores f32[N, max], labels i32[N, max] and count
// i32[N] (rows past the count are zero, labels -1).
#pragma once

#include "IR/Graph.h"

#include "llvm/Support/Error.h"

#include <string>

namespace kiln {

struct NmsSpec {
  double Iou = 0.45, Score = 0.25;
  int64_t Max = 100;
  std::string Output; // empty: the model's only output
};

/// Parses the flag's text ("iou=0.45,score=0.25,max=100,output=NAME", each
/// key optional); usage errors name the flag and the key.
llvm::Expected<NmsSpec> parseNmsFlag(llvm::StringRef Text);

/// Appends the post-processing. Errors (no such output, several outputs and
/// no output=, a shape that is not [N, boxes, 5 + classes], an output name
/// taken) name the output.
llvm::Error attachNms(Graph &G, const NmsSpec &S);

} // namespace kiln

// box_nms's arithmetic, shared by the IR interpreter and the runtime's CPU
// kernel so that both give the same boxes (lib/IR/ops/DetectionOps.cpp
// states the semantics). Box arithmetic is in float, as PyTorch and
// torchvision compute it: corners from a centre box as cx - w / 2, areas as
// (x2 - x1) * (y2 - y1), IoU = inter / (area1 + area2 - inter). Sorting is
// stable (O(n log n)), and each candidate is compared only with the boxes
// already kept (at most max_detections).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace kiln::numerics {

struct BoxNmsParams {
  bool CenterBoxes = false; // cx, cy, w, h rather than x1, y1, x2, y2
  float IouThreshold = 0.45f;
  float ScoreThreshold = 0.25f;
  int64_t MaxDetections = 100;
};

struct BoxCandidate {
  float Score;
  int32_t Label;
  float X1, Y1, X2, Y2;
};

inline float boxArea(const BoxCandidate &B) {
  return (B.X2 - B.X1) * (B.Y2 - B.Y1);
}

/// torchvision's IoU of two corner boxes.
inline float boxIou(const BoxCandidate &A, const BoxCandidate &B) {
  float W = std::max(0.f, std::min(A.X2, B.X2) - std::max(A.X1, B.X1));
  float H = std::max(0.f, std::min(A.Y2, B.Y2) - std::max(A.Y1, B.Y1));
  float Inter = W * H;
  return Inter / (boxArea(A) + boxArea(B) - Inter);
}

/// One image: Boxes [N, 4] and Scores [N, C] in; OutBoxes [K, 4] (corners),
/// OutScores [K] and OutLabels [K] written whole (rows past the count zero,
/// labels -1); returns the count. Candidates and Kept are scratch, reused
/// between calls.
inline int32_t boxNms(const float *Boxes, const float *Scores, int64_t N,
                      int64_t C, const BoxNmsParams &P, float *OutBoxes,
                      float *OutScores, int32_t *OutLabels,
                      std::vector<BoxCandidate> &Candidates,
                      std::vector<BoxCandidate> &Kept) {
  Candidates.clear();
  for (int64_t I = 0; I < N; ++I) {
    const float *S = Scores + I * C;
    int64_t Best = 0;
    for (int64_t J = 1; J < C; ++J)
      if (S[J] > S[Best])
        Best = J;
    if (!(S[Best] > P.ScoreThreshold)) // NaN scores are dropped too
      continue;
    const float *B = Boxes + I * 4;
    BoxCandidate Cand{S[Best], int32_t(Best), B[0], B[1], B[2], B[3]};
    if (P.CenterBoxes) {
      float HalfW = B[2] / 2, HalfH = B[3] / 2;
      Cand.X1 = B[0] - HalfW;
      Cand.Y1 = B[1] - HalfH;
      Cand.X2 = B[0] + HalfW;
      Cand.Y2 = B[1] + HalfH;
    }
    Candidates.push_back(Cand);
  }
  std::stable_sort(Candidates.begin(), Candidates.end(),
                   [](const BoxCandidate &L, const BoxCandidate &R) {
                     return L.Score > R.Score;
                   });
  Kept.clear();
  for (const BoxCandidate &Cand : Candidates) {
    if (int64_t(Kept.size()) == P.MaxDetections)
      break;
    bool Suppressed = false;
    for (const BoxCandidate &K : Kept)
      if (K.Label == Cand.Label && boxIou(K, Cand) > P.IouThreshold) {
        Suppressed = true;
        break;
      }
    if (!Suppressed)
      Kept.push_back(Cand);
  }
  for (int64_t I = 0; I < P.MaxDetections; ++I) {
    bool Valid = I < int64_t(Kept.size());
    const BoxCandidate Zero{0, -1, 0, 0, 0, 0};
    const BoxCandidate &K = Valid ? Kept[size_t(I)] : Zero;
    OutBoxes[I * 4 + 0] = K.X1;
    OutBoxes[I * 4 + 1] = K.Y1;
    OutBoxes[I * 4 + 2] = K.X2;
    OutBoxes[I * 4 + 3] = K.Y2;
    OutScores[I] = K.Score;
    OutLabels[I] = K.Label;
  }
  return int32_t(Kept.size());
}

} // namespace kiln::numerics

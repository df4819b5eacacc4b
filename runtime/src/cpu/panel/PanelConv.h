// Convolutions whose weights stream from memory on every run: the f32
// convolutions of small maps with large weights, such as ResNet-50's layer4
// (7x7 maps, 4-9 MB of weights per layer, 60 MB in all). oneDNN's brgemm
// kernel reads each block of output channels' weights from memory on its
// first row of pixels, and only then computes the other rows: the memory
// time and the arithmetic add up (on 2048 -> 512 at 7x7 with the weights
// rotated out of cache, measured to take about the time with the weights in
// L2 plus the time to read them). This kernel reads blocked weights
// (oneDNN's Acdb<B>a layouts, converted by the session or stored so by the
// file) in chunks, computes every pixel against a chunk, and asks for the
// chunk two ahead while it does (software prefetch into L2), so that the
// stream overlaps the arithmetic: measured faster than oneDNN's on the layer
// above and on 512 -> 512 3x3 at 7x7. docs/benchmarks.md has the figures.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace kiln::rt {

/// One f32 convolution, batch 1, activations NHWC. The weights are blocked
/// by output channel: [ceil(OC / Block)][KH][KW][IC][Block], the last block
/// padded with zeros.
struct PanelConvProblem {
  const float *X = nullptr;
  int64_t IH = 0, IW = 0, IC = 0;
  float *Y = nullptr;
  int64_t OH = 0, OW = 0, OC = 0;
  int64_t KH = 1, KW = 1, StrideH = 1, StrideW = 1, PadTop = 0, PadLeft = 0;
  const float *Weights = nullptr;
  int64_t Block = 0; // 16, 32, 48 or 64
  const float *Bias = nullptr; // OC values, or null
  float Min = -INFINITY, Max = INFINITY; // the fused activation
  /// A fused residual add: Y holds the other operand when the kernel runs,
  /// and receives clamp(clamp(conv, Min, Max) + Y, AddMin, AddMax).
  bool Add = false;
  float AddMin = -INFINITY, AddMax = INFINITY;
};

/// Whether this CPU runs the kernel (x86-64 with AVX-512F).
bool panelConvAvailable();

/// Whether the kernel is the faster one for P: few output pixels (at most
/// 64) against weights larger than L2 keeps between runs (over 1 MiB).
bool panelConvPrefers(const PanelConvProblem &P);

/// Bytes of working memory runPanelConv needs (64-byte aligned).
size_t panelConvScratchBytes(const PanelConvProblem &P);

/// Computes P, on the calling thread.
void runPanelConv(const PanelConvProblem &P, void *Scratch);

} // namespace kiln::rt

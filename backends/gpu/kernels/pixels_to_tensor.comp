#version 450
// PIXELS_TO_TENSOR: a u8 camera frame (a graph input buffer, read as 32-bit
// words, little-endian) to the normalized image, one invocation per output
// pixel, writing its one vec4 block of the C4 image [N][1][H][W][4] (three
// channels, or one, the other lanes zero). Each pixel is read as
// numerics/PixelFormats.h reads it (the same nv21 matrix, in fp32), then
// y[c] = (rgb[BGR ? 2 - c : c] - MEAN[c]) * SCALE[c].
#include "common.glsl"

layout(constant_id = 20) const int N = 1;
layout(constant_id = 21) const int H = 1;
layout(constant_id = 22) const int W = 1;
// Bytes from one frame row to the next, and rows a frame (nv21: H + H/2).
layout(constant_id = 23) const int STRIDE = 1;
layout(constant_id = 24) const int FRAME_ROWS = 1;
// numerics::PixelFormat: 1 rgb8, 2 bgr8, 3 rgba8, 4 bgra8, 5 gray8, 6 nv21.
layout(constant_id = 25) const int FORMAT = 1;
layout(constant_id = 26) const int CHANNELS = 3;
layout(constant_id = 27) const int BGR = 0;
layout(constant_id = 28) const float MEAN0 = 0.0;
layout(constant_id = 29) const float MEAN1 = 0.0;
layout(constant_id = 30) const float MEAN2 = 0.0;
layout(constant_id = 31) const float SCALE0 = 1.0;
layout(constant_id = 32) const float SCALE1 = 1.0;
layout(constant_id = 33) const float SCALE2 = 1.0;

layout(std430, set = 0, binding = 0) readonly buffer Frame { uint frame[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Y { VEC4 y[]; };

float byteAt(int i) {
  return float((LOAD(frame, i >> 2) >> ((i & 3) * 8)) & 0xFFu);
}

float clampPixel(float v) { return clamp(v, 0.0, 255.0); }

void main() {
  int w = int(gl_GlobalInvocationID.x), h = int(gl_GlobalInvocationID.y);
  int n = int(gl_GlobalInvocationID.z);
  if (w >= W || h >= H || n >= N)
    return;
  int base = n * FRAME_ROWS * STRIDE;
  vec3 rgb;
  if (FORMAT == 6) {
    float luma = byteAt(base + h * STRIDE + w);
    int vu = base + (H + h / 2) * STRIDE + (w / 2) * 2;
    float cr = byteAt(vu) - 128.0, cb = byteAt(vu + 1) - 128.0;
    rgb = vec3(clampPixel(luma + 1.402 * cr),
               clampPixel(luma - 0.344136 * cb - 0.714136 * cr),
               clampPixel(luma + 1.772 * cb));
    if (CHANNELS == 1)
      rgb = vec3(luma);
  } else if (FORMAT == 5) {
    rgb = vec3(byteAt(base + h * STRIDE + w));
  } else {
    int bytes = FORMAT >= 3 ? 4 : 3;
    int p = base + h * STRIDE + w * bytes;
    vec3 v = vec3(byteAt(p), byteAt(p + 1), byteAt(p + 2));
    rgb = (FORMAT == 2 || FORMAT == 4) ? v.zyx : v;
  }
  if (BGR != 0)
    rgb = rgb.zyx;
  vec4 o = vec4(0.0);
  o.x = (rgb.x - MEAN0) * SCALE0;
  if (CHANNELS == 3) {
    o.y = (rgb.y - MEAN1) * SCALE1;
    o.z = (rgb.z - MEAN2) * SCALE2;
  }
  STORE(y, (n * H + h) * W + w, VEC4(o));
}

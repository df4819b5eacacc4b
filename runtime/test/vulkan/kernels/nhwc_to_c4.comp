#version 450
// An NHWC activation [1, H, W, C] (hw = H*W pixels) to C4
// [1][ceil(C/4)][H][W][4], the padding lanes zero: what the Vulkan target's
// graph entry does, small enough for the executor's readback tests.
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Y { float y[]; };
layout(push_constant) uniform Params { uint hw; uint c; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  uint blocks = (c + 3) / 4;
  if (i >= blocks * hw * 4)
    return;
  uint lane = i % 4, pixel = (i / 4) % hw, block = i / (4 * hw);
  uint ch = block * 4 + lane;
  y[i] = ch < c ? x[pixel * c + ch] : 0.0;
}

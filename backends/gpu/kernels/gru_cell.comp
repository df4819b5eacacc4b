#version 450
// One GRU step's cell (PyTorch's and ONNX's linear_before_reset form) in
// one dispatch: from the update and reset gates' pre-activations zr
// ([ROWS][ZR_WIDTH]), the candidate's input part xh and recurrent part
// hr (h R_h + Rb_h), and the previous state h_prev,
//   z = sigmoid(zr[Z_OFF + j]), r = sigmoid(zr[R_OFF + j]),
//   n = tanh(xh[j] + r * hr[j]),   y = n + z * (h_prev[j] - n),
// one invocation per (row, j), in fp32 whatever the storage. xh, hr and
// h_prev are read with their own row strides (0: one row for every row,
// a constant).
#include "common.glsl"

layout(constant_id = 20) const int ROWS = 1;
layout(constant_id = 21) const int HIDDEN = 1;
layout(constant_id = 22) const int ZR_WIDTH = 2;
layout(constant_id = 23) const int Z_OFF = 0;
layout(constant_id = 24) const int R_OFF = 0;
layout(constant_id = 25) const int XH_ROW = 0;
layout(constant_id = 26) const int HR_ROW = 0;
layout(constant_id = 27) const int H_ROW = 0;

layout(std430, set = 0, binding = 0) readonly buffer ZR { SCALAR zr[]; };
layout(std430, set = 0, binding = 1) readonly buffer XH { SCALAR xh[]; };
layout(std430, set = 0, binding = 2) readonly buffer HR { SCALAR hr[]; };
layout(std430, set = 0, binding = 3) readonly buffer HPrev { SCALAR hprev[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Y { SCALAR y[]; };

float sigmoid(float x) { return 1.0 / (1.0 + exp(-x)); }

void main() {
  int k = int(flatInvocation());
  if (k >= ROWS * HIDDEN)
    return;
  int r = k / HIDDEN, j = k % HIDDEN;
  float z = sigmoid(float(LOAD(zr, r * ZR_WIDTH + Z_OFF + j)));
  float reset = sigmoid(float(LOAD(zr, r * ZR_WIDTH + R_OFF + j)));
  float n = tanh(float(LOAD(xh, r * XH_ROW + j)) +
                 reset * float(LOAD(hr, r * HR_ROW + j)));
  float h = float(LOAD(hprev, r * H_ROW + j));
  STORE(y, k, SCALAR(n + z * (h - n)));
}

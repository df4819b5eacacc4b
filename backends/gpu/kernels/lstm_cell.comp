#version 450
// One LSTM step's cell in one dispatch: from the gates' pre-activations g
// ([ROWS][G_WIDTH]: the input projection plus the recurrent one, as the
// unrolled step computes them) and the previous cell state c_prev,
//   i = sigmoid(g[I_OFF + h]), f = sigmoid(g[F_OFF + h]),
//   o = sigmoid(g[O_OFF + h]), u = tanh(g[U_OFF + h]),
//   c = f * c_prev + i * u,    y = o * tanh(c),
// one invocation per (row, h), in fp32 whatever the storage. c_prev is
// read with row stride C_ROW (0: one row for every row, a constant initial
// state).
#include "common.glsl"

layout(constant_id = 20) const int ROWS = 1;
layout(constant_id = 21) const int HIDDEN = 1;
layout(constant_id = 22) const int G_WIDTH = 4;
layout(constant_id = 23) const int I_OFF = 0;
layout(constant_id = 24) const int F_OFF = 0;
layout(constant_id = 25) const int O_OFF = 0;
layout(constant_id = 26) const int U_OFF = 0;
layout(constant_id = 27) const int C_ROW = 0;

layout(std430, set = 0, binding = 0) readonly buffer G { SCALAR g[]; };
layout(std430, set = 0, binding = 1) readonly buffer CPrev { SCALAR cprev[]; };
layout(std430, set = 0, binding = 2) writeonly buffer C { SCALAR c[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Y { SCALAR y[]; };

float sigmoid(float x) { return 1.0 / (1.0 + exp(-x)); }

void main() {
  int k = int(flatInvocation());
  if (k >= ROWS * HIDDEN)
    return;
  int r = k / HIDDEN, h = k % HIDDEN, base = r * G_WIDTH + h;
  float i = sigmoid(float(LOAD(g, base + I_OFF)));
  float f = sigmoid(float(LOAD(g, base + F_OFF)));
  float o = sigmoid(float(LOAD(g, base + O_OFF)));
  float u = tanh(float(LOAD(g, base + U_OFF)));
  float cell = f * float(LOAD(cprev, r * C_ROW + h)) + i * u;
  STORE(c, k, SCALAR(cell));
  STORE(y, k, SCALAR(o * tanh(cell)));
}

#version 450
// y = act(op(a, b)) elementwise with numpy broadcasting (an operand's
// broadcast axes have stride 0), or y = act(op(a)) for a unary op. Padding
// lanes of a C4 output get zero. Binary ops compute in MSCALAR (fp16 in
// the _f16math variant: one rounding, as storing the fp32 result would);
// unary ops and pow stay fp32, whose exp, log and polynomials overflow or
// lose too much in fp16 (exp overflows it past 11).
#include "common.glsl"
#include "tensor_access.glsl"

OPERAND(A, 20)
OPERAND(B, 40)
OPERAND(OUT, 60)

// Binary ops 1..7 and PRELU 8; unary ops 100 + the schema's UnaryOp.
layout(constant_id = 5) const int OP = 0;
layout(constant_id = 6) const float ALPHA = 0.0;
layout(constant_id = 7) const float BETA = 0.0;
layout(constant_id = 8) const float GAMMA = 0.0;
layout(constant_id = 9) const int UNARY = 0;

layout(std430, set = 0, binding = 0) readonly buffer InA { SCALAR a[]; };
layout(std430, set = 0, binding = 1) readonly buffer InB { SCALAR b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Out { SCALAR y[]; };

float erfApprox(float x) {
  // Abramowitz-Stegun 7.1.26 (|error| < 1.5e-7).
  float t = 1.0 / (1.0 + 0.3275911 * abs(x));
  float poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 +
               t * (-1.453152027 + t * 1.061405429))));
  return sign(x) * (1.0 - poly * exp(-x * x));
}

float unary(float x) {
  // The selector is the constant itself, not OP - 100: SPIRV-Cross
  // 2021.01 (Debian 12) cannot translate a switch on a constant expression
  // to MSL ("use of undeclared variable on a switch statement").
  switch (OP) {
  case 101: return min(max(x, ALPHA), BETA); // CLAMP: bounds in alpha, beta
  case 102: return abs(x);
  case 103: return -x;
  case 104: return floor(x);
  case 105: return ceil(x);
  case 106: return sqrt(x);
  case 107: return exp(x);
  case 108: return log(x);
  case 109: return tanh(x);
  case 110: return 1.0 / (1.0 + exp(-x));
  case 111: return erfApprox(x);
  case 112: return 1.0 / x;
  case 113: return sign(x);
  case 114: return x >= 0.0 ? x : ALPHA * x;
  case 115: return x > 0.0 ? x : ALPHA * (exp(x) - 1.0);
  case 116: return GAMMA * (x > 0.0 ? x : ALPHA * (exp(x) - 1.0));
  case 117: return max(0.0, x) + min(0.0, ALPHA * (exp(x / ALPHA) - 1.0));
  case 118: return max(0.0, min(1.0, ALPHA * x + BETA));
  case 119: return x * min(max(x + 3.0, 0.0), 6.0) / 6.0;
  case 120: return 0.5 * x * (1.0 + erfApprox(x * 0.70710678118654752));
  case 121: return 0.5 * x * (1.0 + tanh(0.7978845608028654 *
                                         (x + 0.044715 * x * x * x)));
  case 122: return x > 20.0 ? x : log(1.0 + exp(x));
  case 123: return x * tanh(x > 20.0 ? x : log(1.0 + exp(x)));
  case 124: return x * x;
  case 125: return roundEven(x);
  }
  return x;
}

MSCALAR binary(MSCALAR l, MSCALAR r) {
  switch (OP) {
  case 1: return l + r;
  case 2: return l - r;
  case 3: return l * r;
  case 4: return l / r;
  case 5: return max(l, r);
  case 6: return min(l, r);
  case 7: return MSCALAR(pow(float(l), float(r)));
  case 8: return l >= MSCALAR(0.0) ? l : l * r; // PRELU: r is the slope
  }
  return l;
}

void main() {
  uint i = flatInvocation();
  if (i >= DOMAIN_SIZE)
    return;
  int p[6];
  domainIndex(i, p);
  if (isPadding(p)) {
    STORE(y, OUT_offset(p), SCALAR(storeZero()));
    return;
  }
  MSCALAR l = MSCALAR(LOAD(a, A_offset(p)));
  MSCALAR v = UNARY != 0 ? MSCALAR(unary(float(l)))
                         : binary(l, MSCALAR(LOAD(b, B_offset(p))));
  STORE(y, OUT_offset(p), SCALAR(activate(v)));
}

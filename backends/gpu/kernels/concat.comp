#version 450
// y = concat(x0, ..., x6) along one domain axis in a single dispatch: each
// invocation writes one element of y and reads it from the input whose
// range of the concatenation axis holds it. The compiler splits a concat
// of more inputs into several dispatches of up to seven, each writing its
// own range of y (binding the unused inputs to x0). Padding lanes of a C4
// destination get zero.
#include "common.glsl"
#include "tensor_access.glsl"

// Input k's map takes the domain's index along the axis to its own (the
// map's start along it is minus the input's first index).
OPERAND(IN0, 20)
OPERAND(IN1, 30)
OPERAND(IN2, 40)
OPERAND(IN3, 50)
OPERAND(IN4, 60)
OPERAND(IN5, 70)
OPERAND(IN6, 80)
OPERAND(DST, 90)

// The domain axis of the concatenation and, along it, the end of each
// input's range (inputs this dispatch does not read: past the domain).
layout(constant_id = 100) const int CAT_AXIS = 5;
layout(constant_id = 101) const int END0 = 0x7fffffff;
layout(constant_id = 102) const int END1 = 0x7fffffff;
layout(constant_id = 103) const int END2 = 0x7fffffff;
layout(constant_id = 104) const int END3 = 0x7fffffff;
layout(constant_id = 105) const int END4 = 0x7fffffff;
layout(constant_id = 106) const int END5 = 0x7fffffff;

layout(std430, set = 0, binding = 0) readonly buffer X0 { SCALAR x0[]; };
layout(std430, set = 0, binding = 1) readonly buffer X1 { SCALAR x1[]; };
layout(std430, set = 0, binding = 2) readonly buffer X2 { SCALAR x2[]; };
layout(std430, set = 0, binding = 3) readonly buffer X3 { SCALAR x3[]; };
layout(std430, set = 0, binding = 4) readonly buffer X4 { SCALAR x4[]; };
layout(std430, set = 0, binding = 5) readonly buffer X5 { SCALAR x5[]; };
layout(std430, set = 0, binding = 6) readonly buffer X6 { SCALAR x6[]; };
layout(std430, set = 0, binding = 7) writeonly buffer Y { SCALAR y[]; };

void main() {
  uint i = flatInvocation();
  if (i >= DOMAIN_SIZE)
    return;
  int p[6];
  domainIndex(i, p);
  // Branches, not a select: selecting between fp16 values is fp16
  // arithmetic (the Float16 capability).
  int c = p[CAT_AXIS], o = DST_offset(p);
  if (isPadding(p))
    STORE(y, o, SCALAR(storeZero()));
  else if (c < END0)
    STORE(y, o, LOAD(x0, IN0_offset(p)));
  else if (c < END1)
    STORE(y, o, LOAD(x1, IN1_offset(p)));
  else if (c < END2)
    STORE(y, o, LOAD(x2, IN2_offset(p)));
  else if (c < END3)
    STORE(y, o, LOAD(x3, IN3_offset(p)));
  else if (c < END4)
    STORE(y, o, LOAD(x4, IN4_offset(p)));
  else if (c < END5)
    STORE(y, o, LOAD(x5, IN5_offset(p)));
  else
    STORE(y, o, LOAD(x6, IN6_offset(p)));
}

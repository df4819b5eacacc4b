// Addressing of one operand of a generic kernel (gather, elementwise) over a
// rank-6 loop domain p[0..5]. Per operand, the compiler sets (spec constants
// from id BASE on):
//   BASE+0..5  the element stride of each domain axis (0: broadcast);
//   BASE+6     the domain axis that walks the operand's C4 channel dim
//              (6: none, the operand is PLAIN or its channels broadcast);
//   BASE+7,8   along that axis, channel = p * step + start;
//   BASE+9     the base element offset (starts of the other axes folded in).
// offset(p) = base + sum_{k != b} p[k] * s[k]
//           + (channel / 4) * s[b] + channel % 4.
#define OPERAND(P, BASE)                                                     \
  layout(constant_id = BASE + 0) const int P##_S0 = 0;                       \
  layout(constant_id = BASE + 1) const int P##_S1 = 0;                       \
  layout(constant_id = BASE + 2) const int P##_S2 = 0;                       \
  layout(constant_id = BASE + 3) const int P##_S3 = 0;                       \
  layout(constant_id = BASE + 4) const int P##_S4 = 0;                       \
  layout(constant_id = BASE + 5) const int P##_S5 = 0;                       \
  layout(constant_id = BASE + 6) const int P##_BLOCKED = 6;                  \
  layout(constant_id = BASE + 7) const int P##_STEP = 1;                     \
  layout(constant_id = BASE + 8) const int P##_START = 0;                    \
  layout(constant_id = BASE + 9) const int P##_BASE = 0;                     \
  int P##_offset(int p[6]) {                                                 \
    int s[6] = int[6](P##_S0, P##_S1, P##_S2, P##_S3, P##_S4, P##_S5);       \
    int o = P##_BASE;                                                        \
    for (int k = 0; k < 6; ++k)                                              \
      if (k != P##_BLOCKED)                                                  \
        o += p[k] * s[k];                                                    \
    if (P##_BLOCKED < 6) {                                                   \
      int c = p[P##_BLOCKED] * P##_STEP + P##_START;                         \
      o += (c >> 2) * s[P##_BLOCKED] + (c & 3);                              \
    }                                                                        \
    return o;                                                                \
  }

// The loop domain (ids 10..15) and, when the output is C4, the domain axis
// and extent past which lanes are padding and get zero (ids 16, 17).
layout(constant_id = 10) const int D0 = 1;
layout(constant_id = 11) const int D1 = 1;
layout(constant_id = 12) const int D2 = 1;
layout(constant_id = 13) const int D3 = 1;
layout(constant_id = 14) const int D4 = 1;
layout(constant_id = 15) const int D5 = 1;
layout(constant_id = 16) const int PAD_AXIS = 6;
layout(constant_id = 17) const int PAD_FROM = 0;

const uint DOMAIN_SIZE = uint(D0 * D1 * D2 * D3 * D4 * D5);

/// Domain coordinates of flat index i (row-major, axis 5 fastest).
void domainIndex(uint i, out int p[6]) {
  int r = int(i);
  p[5] = r % D5; r /= D5;
  p[4] = r % D4; r /= D4;
  p[3] = r % D3; r /= D3;
  p[2] = r % D2; r /= D2;
  p[1] = r % D1; r /= D1;
  p[0] = r;
}

bool isPadding(int p[6]) { return PAD_AXIS < 6 && p[PAD_AXIS] >= PAD_FROM; }

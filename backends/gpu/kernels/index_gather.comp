#version 450
// GATHER of a constant tensor by an integer graph input (an embedding
// lookup): the data seen as [OUTER, ROWS, INNER], the indices as COUNT
// elements, y[o][j][k] = data[o][ids[j]][k] (a negative index counts from
// the end, as ONNX's). An index outside [-ROWS, ROWS) reads nothing and
// gives zeros: the CPU target fails the run there instead, but a kernel
// cannot, and it must not read outside the table (docs/security.md).
#include "common.glsl"

layout(constant_id = 20) const int OUTER = 1;
layout(constant_id = 21) const int COUNT = 1;
layout(constant_id = 22) const int ROWS = 1;
layout(constant_id = 23) const int INNER = 1;

layout(std430, set = 0, binding = 0) readonly buffer Ids { int ids[]; };
layout(std430, set = 0, binding = 1) readonly buffer Table { SCALAR table[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Y { SCALAR y[]; };

#include "int_index.glsl"

void main() {
  int i = int(flatInvocation());
  if (i >= OUTER * COUNT * INNER)
    return;
  int k = i % INNER, j = (i / INNER) % COUNT, o = i / (INNER * COUNT);
  int row;
  bool fits = indexValue(j, row);
  if (row < 0)
    row += ROWS;
  if (fits && row >= 0 && row < ROWS)
    STORE(y, i, LOAD(table, (o * ROWS + row) * INNER + k));
  else
    STORE(y, i, SCALAR(storeZero()));
}

#version 450
// c = a + b over n floats: the smallest kernel that exercises a pipeline,
// three storage buffers, a push constant and a partial last workgroup.
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer A { float a[]; };
layout(std430, set = 0, binding = 1) readonly buffer B { float b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer C { float c[]; };
layout(push_constant) uniform Params { uint n; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

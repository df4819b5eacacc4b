#version 450
// y = x * scale + bias over n floats: the workgroup size and the scale are
// specialization constants (0 and 3), n and bias push constants, so a test
// can check both ways a dispatch parameterizes a kernel.
layout(local_size_x_id = 0) in;
layout(constant_id = 3) const float scale = 1.0;
layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Y { float y[]; };
layout(push_constant) uniform Params { uint n; float bias; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < n)
    y[i] = x[i] * scale + bias;
}

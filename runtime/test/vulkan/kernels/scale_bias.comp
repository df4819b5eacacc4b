#version 450
// y = x * scale + bias over n floats: the workgroup size and the scale are
// specialization constants (0 and 3), n and bias push constants, so a test
// can check both ways a dispatch parameterizes a kernel.
#ifdef KILN_FP16_MATH
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#endif
layout(local_size_x_id = 0) in;
layout(constant_id = 3) const float scale = 1.0;
layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Y { float y[]; };
layout(push_constant) uniform Params { uint n; float bias; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < n)
#ifdef KILN_FP16_MATH
    // The fp16-arithmetic twin (scale_bias_f16math): every step rounds to
    // fp16, so a test sees which of the two ran.
    y[i] = float(float16_t(x[i]) * float16_t(scale) + float16_t(bias));
#else
    y[i] = x[i] * scale + bias;
#endif
}

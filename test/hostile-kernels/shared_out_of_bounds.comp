#version 450
// Hostile: indexes workgroup (shared) memory far out of bounds with a
// stride the push constants give. Valid SPIR-V that passes every validator;
// robustBufferAccess does not cover shared memory, and on lavapipe it ends
// in SIGSEGV even with the validation layer fatal (issue 51). The loader
// must refuse it unrun.
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Dst { float dst[]; };
layout(push_constant) uniform Params { uint stride; } params;
shared float tile[64];
void main() {
  tile[gl_LocalInvocationID.x * params.stride] = 1.0;
  barrier();
  dst[gl_GlobalInvocationID.x] = tile[gl_LocalInvocationID.x];
}

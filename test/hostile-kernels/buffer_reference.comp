#version 450
// Hostile: stores through a pointer made from two words the file gives
// (GL_EXT_buffer_reference: physical storage buffers). Valid SPIR-V that
// robustBufferAccess cannot bound; on lavapipe it ends in SIGSEGV inside
// the driver's JIT code (issue 51). The loader must refuse it unrun.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
layout(local_size_x = 64) in;
layout(buffer_reference, std430) buffer Target { float v[]; };
layout(std430, binding = 0) buffer Dst { float dst[]; };
layout(std430, binding = 1) readonly buffer Src { uvec2 address; };
void main() {
  Target t = Target(address);
  t.v[gl_GlobalInvocationID.x] = 1.0;
  dst[gl_GlobalInvocationID.x] = 0.0;
}

// Shared by every kiln Vulkan kernel: the element type of activations and
// weights in memory (fp32, or fp16 when compiled with KILN_FP16), the type
// the kernels compute in (MSCALAR, MVEC4: fp32, or fp16 when also compiled
// with KILN_FP16_MATH, which needs shaderFloat16), the
// workgroup size (spec constants 0, 1, 2, set by the compiler per dispatch)
// and the fused-activation clamp (spec constants 3 and 4, float bits).
//
// Layouts: a C4 tensor of logical dims [N, H, W, C] is [N][ceil(C/4)][H][W]
// of vec4, the lanes past C zero (every kernel writing C4 keeps them zero);
// a PLAIN tensor is row-major.
#ifdef KILN_FP16
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define SCALAR float16_t
#define VEC4 f16vec4
#else
#define SCALAR float
#define VEC4 vec4
#endif

// The arithmetic type of the "_f16math" variants. Sums that can overflow
// or lose too much in fp16 (average pools, reductions, softmax, long dot
// products) keep float / vec4 whatever the variant.
#ifdef KILN_FP16_MATH
#define MSCALAR float16_t
#define MVEC4 f16vec4
/// The longest sum of products kept in fp16 before it joins an fp32 sum:
/// an fp16 sum of n terms loses about sqrt(n) * 2^-11 of its magnitude,
/// and dot products thousands long would fall under 40 dB.
const int FP16_RUN = 16;
#else
#define MSCALAR float
#define MVEC4 vec4
#endif

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(constant_id = 3) const float ACT_MIN = -1.0 / 0.0;
layout(constant_id = 4) const float ACT_MAX = 1.0 / 0.0;

/// A zero to store (padding lanes): not foldable into an fp16 constant,
/// which would need the Float16 capability (shaderFloat16) where the fp16
/// kernels otherwise need only 16-bit storage (they compute in fp32).
float storeZero() {
  precise float z = float(gl_NumWorkGroups.x) * 0.0;
  return z;
}

float activate(float x) { return min(max(x, ACT_MIN), ACT_MAX); }
vec4 activate(vec4 x) { return min(max(x, vec4(ACT_MIN)), vec4(ACT_MAX)); }
#ifdef KILN_FP16_MATH
// The clamp bounds are fp32 bits; fp16 rounds them (infinities stay).
float16_t activate(float16_t x) {
  return min(max(x, float16_t(ACT_MIN)), float16_t(ACT_MAX));
}
f16vec4 activate(f16vec4 x) {
  return min(max(x, f16vec4(ACT_MIN)), f16vec4(ACT_MAX));
}
#endif

/// The invocation's index over a 1-D range dispatched as a 2-D grid (group
/// counts are at most 65535 per dimension).
uint flatInvocation() {
  return gl_GlobalInvocationID.x +
         gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
}

// Bounds-safe buffer access (docs/security.md). Every kernel reads and
// writes its storage buffers only through LOAD and STORE, which check the
// index against the binding's real length (OpArrayLength: the descriptor's
// range on Vulkan, the buffer-size buffer SPIRV-Cross adds on Metal), not
// against the shape constants. A file whose constants lie about a tensor
// therefore cannot make a kernel reach past a binding, with or without
// robustBufferAccess: a read past the end takes the binding's last element
// (of a binding shorter than one element, its first, inside the slack the
// executors allocate past every buffer), and a store past the end is
// dropped. The index is taken as unsigned, so a negative one is past the
// end too. kernel-bounds.test checks that no kernel indexes a buffer
// otherwise.
#define LOAD(buf, i) buf[min(uint(i), max(uint(buf.length()), 1u) - 1u)]
#define STORE(buf, i, v)                                                     \
  do {                                                                       \
    uint at_ = uint(i);                                                      \
    if (at_ < uint(buf.length()))                                            \
      buf[at_] = (v);                                                        \
  } while (false)

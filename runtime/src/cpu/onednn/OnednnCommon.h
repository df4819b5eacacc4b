// What the oneDNN kernels (OnednnKernels.cpp, OnednnWinograd.cpp) share:
// the CPU engine, the OpenMP team of one they run in, the f32 post-ops of a
// fused activation (and add), and oneDNN's reference-kernel test.
#pragma once

#include "cpu/Kernel.h"
#include "cpu/panel/PanelConv.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <initializer_list>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace kiln::rt::onednn {

inline const dnnl::engine &cpuEngine() {
  static const dnnl::engine Engine(dnnl::engine::kind::cpu, 0);
  return Engine;
}

/// Sets the calling thread's OpenMP thread count to one while it lives:
/// oneDNN sizes its team from it, when a primitive is created and run.
class OneOpenMpThread {
public:
  OneOpenMpThread();
  ~OneOpenMpThread();
  OneOpenMpThread(const OneOpenMpThread &) = delete;
  OneOpenMpThread &operator=(const OneOpenMpThread &) = delete;

private:
  int Before;
};

/// A primitive with its arguments bound.
struct BoundPrimitive {
  dnnl::primitive Prim;
  std::unordered_map<int, dnnl::memory> Args;
};

/// A memory object of a kernel's steps that lives in the session's shared
/// scratch buffer (Kernel::scratchBytes), at Offset; created without data.
struct ScratchMemory {
  dnnl::memory Memory;
  size_t Offset;
};

/// The weight of a kernel's first primitive, converted from the layout the
/// file stores it in (Stored) into one the file may store instead
/// (packedWeights). Order: the weight's axes as oneDNN's dims.
struct ConvertedWeight {
  const std::vector<int32_t> *Order;
  dnnl::memory::desc Stored;
};

/// oneDNN's dims {O, I, KH, KW} of a convolution as axes of its OHWI weight.
extern const std::vector<int32_t> OhwiAxesOfOihw;

/// The oneDNN descriptor of an f32 weight the file stores BLOCKED, whose
/// oneDNN dims are the weight's axes Order; nullopt when the layout orders
/// them otherwise.
std::optional<dnnl::memory::desc>
blockedWeightsDesc(const TensorDesc &W, const std::vector<int32_t> &Order);

/// Weights (a plain blocked f32 layout) as the file may store them, with
/// the conversion from W.Stored; nullopt for other layouts.
std::optional<PackedWeights> packedWeightsOf(const dnnl::memory &Weights,
                                             const ConvertedWeight &W);

/// The weights in the layout Want: the file's bytes (Data, in layout Have)
/// in place when Want is Have, else reordered into Arena. Empty when Arena
/// has no memory left.
dnnl::memory bindWeights(const dnnl::memory::desc &Want,
                         const dnnl::memory::desc &Have, const uint8_t *Data,
                         WeightArena &Arena);

/// Runs its primitives in order on the calling thread: a convolution or an
/// inner product, or a reorder, a convolution and a reorder (Winograd).
class OnednnKernel : public Kernel {
public:
  /// Converted: set when the first primitive's weight is one a file may
  /// store converted (packedWeights). Scratch: the steps' memory objects
  /// that take their bytes from the session's scratch buffer.
  explicit OnednnKernel(std::vector<BoundPrimitive> Steps,
                        std::optional<ConvertedWeight> Converted = std::nullopt,
                        std::vector<ScratchMemory> Scratch = {})
      : Steps(std::move(Steps)), Stream(cpuEngine()),
        Converted(std::move(Converted)), Scratch(std::move(Scratch)) {}

  Status run(pthreadpool_t) override;
  const char *engine() const override { return "onednn"; }
  std::optional<PackedWeights> packedWeights() const override;
  size_t scratchBytes() const override;
  void bindScratch(uint8_t *Base) override;

private:
  std::vector<BoundPrimitive> Steps;
  dnnl::stream Stream;
  std::optional<ConvertedWeight> Converted;
  std::vector<ScratchMemory> Scratch;
};

/// The f32 post-ops of a convolution or fully connected layer: its clamp to
/// [Min, Max], then for a fused add (convolutions only) the sum with what
/// the destination holds and the add's clamp, or a fused GELU (fully
/// connected layers only). The scratchpad is the
/// caller's (withSessionScratchpad).
dnnl::primitive_attr f32Attr(float Min, float Max,
                             const FusedAdd *Add = nullptr,
                             const FusedGelu *Gelu = nullptr);

/// Attr with the primitive's scratchpad left to the caller
/// (scratchpad_mode::user), for bindScratchpad. Left to oneDNN, every
/// primitive that needs one owns it, paged in on the first run, which was
/// measured to make a session hold more memory and its first run slower;
/// docs/benchmarks.md has the figures.
dnnl::primitive_attr withSessionScratchpad(dnnl::primitive_attr Attr);

/// Places the scratchpad Desc of a primitive created with
/// withSessionScratchpad at Offset in the session's scratch buffer: adds it
/// to the primitive's Args and to the kernel's Scratch. Nothing when the
/// primitive needs none.
void bindScratchpad(const dnnl::memory::desc &Desc, size_t Offset,
                    std::unordered_map<int, dnnl::memory> &Args,
                    std::vector<ScratchMemory> &Scratch);

/// A weight a kernel converts when the session is created: memory for Desc
/// in Arena, written by Convert(memory). When Arena is layout-only, memory
/// with no data, and Convert is not called; empty when Arena has no memory
/// left.
template <typename Converter>
dnnl::memory convertedWeights(const dnnl::memory::desc &Desc,
                              WeightArena &Arena, Converter Convert) {
  if (Arena.layoutOnly())
    return dnnl::memory(Desc, cpuEngine(), DNNL_MEMORY_NONE);
  void *Bytes = Arena.allocate(Desc.get_size());
  if (!Bytes)
    return dnnl::memory();
  dnnl::memory Weights(Desc, cpuEngine(), Bytes);
  Convert(Weights);
  return Weights;
}

/// An f32 LSTM (OnednnLstm.cpp) as oneDNN's LSTM primitive, its weights in
/// the primitive's layout in Arena; null where oneDNN declines.
std::unique_ptr<Kernel> lstm(const KernelArgs &A, WeightArena &Arena);
/// An f32 GRU (OnednnGru.cpp) as oneDNN's GRU or LBR-GRU primitive, likewise.
std::unique_ptr<Kernel> gru(const KernelArgs &A, WeightArena &Arena);

/// Whether oneDNN chose its reference implementation (far slower than
/// XNNPACK's kernels), from the primitive descriptor's impl_info_str().
inline bool isReference(const char *ImplInfo) {
  return std::string(ImplInfo).rfind("ref", 0) == 0;
}

/// Moves PD along oneDNN's list of implementations of its descriptor, from
/// where it is, to the first whose impl_info_str() Wanted accepts; false
/// when none does.
template <typename PrimitiveDesc, typename Predicate>
bool seekImplementation(PrimitiveDesc &PD, Predicate Wanted) {
  while (!Wanted(std::string(PD.impl_info_str())))
    if (!PD.next_impl())
      return false;
  return true;
}

/// A seekImplementation predicate: the implementation's name contains Part.
inline auto named(const char *Part) {
  return [Part](const std::string &Impl) {
    return Impl.find(Part) != std::string::npos;
  };
}

/// Whether oneDNN's effective ISA (this CPU's, or what ONEDNN_MAX_CPU_ISA
/// caps it to) includes every feature of Isa (cpu_isa values are sets of
/// feature bits).
inline bool isaIncludes(dnnl::cpu_isa Isa) {
  const unsigned Have = unsigned(dnnl::get_effective_cpu_isa()),
                 Want = unsigned(Isa);
  return (Have & Want) == Want;
}

/// Whether sessions run kiln's panel kernel (PanelConv.h): this CPU runs it
/// and oneDNN's ISA includes AVX-512, so that ONEDNN_MAX_CPU_ISA=AVX2 turns
/// it off with oneDNN's own AVX-512 kernels, and one setting runs (and CI
/// checks) an AVX2-only CPU's path.
inline bool panelConvRuns() {
  return panelConvAvailable() && isaIncludes(dnnl::cpu_isa::avx512_core);
}

inline dnnl::memory::dims dims(std::initializer_list<int64_t> L) {
  return dnnl::memory::dims(L.begin(), L.end());
}

/// oneDNN's own reorder of the OHWI 3x3 weight Ohwi (O x 3 x 3 x I, f32)
/// into the Winograd layout Want, written at Out (Want.get_size() bytes),
/// through HWIO, which it reads (OHWI it does not). Slow (docs/benchmarks.md
/// has the figures): the fallback for layouts transformWinogradWeights does
/// not write.
void reorderToWinograd(const dnnl::memory::desc &Want, const float *Ohwi,
                       int64_t O, int64_t I, void *Out);

/// The Winograd kernel of a 3x3 convolution whose operands are all f32
/// (OnednnWinograd.cpp), or null when the convolution is not one it runs
/// faster than the direct one (or Arena has no memory left for its
/// transformed weights).
std::unique_ptr<Kernel> createWinogradKernel(const KernelArgs &A,
                                             WeightArena &Arena);

/// The kernel of an f32 dense convolution (with Add folded in, when given)
/// on PanelConv.h's kernel, whose weights UserW (the file's layout) it
/// converts with oneDNN's reorder; null when that kernel is not the faster
/// one for it or this CPU lacks AVX-512.
std::unique_ptr<Kernel> createPanelConvKernel(const KernelArgs &A,
                                              const dnnl::memory::desc &UserW,
                                              WeightArena &Arena,
                                              const FusedAdd *Add);

} // namespace kiln::rt::onednn

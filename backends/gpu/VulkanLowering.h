// Lowers the kiln operator graph (the CPU target's lowering of the IR: kiln
// operators with resolved padding, fused clamps and NHWC activations) to
// Vulkan dispatches. Every NHWC activation inside the graph becomes a C4
// tensor; graph inputs and outputs keep their layout in host-visible
// buffers, converted by gather dispatches. Reshapes between tensors with the
// same bytes alias instead of copying.
//
// With Fp16 (--quantize fp16) activations and weights are fp16 in memory
// and the kernels are their "_f16" variants (fp16 storage, fp32
// arithmetic), each stored with its "_f16math" twin (fp16 arithmetic) where
// it has one, which the runtime picks on devices with shaderFloat16
// (VulkanProgram::finish). Graph inputs and outputs stay f32 in their
// host-visible buffers. The gathers that move them (the NCHW <-> C4
// transposes) convert as they go (gather_f32_f16, gather_f16_f32); an input
// or output that other kernels use directly gets an fp16 copy in the arena,
// converted by the first or last dispatches. Resize tap weights and indices
// stay f32 and i32.
#pragma once

#include "backends/common/KilnModule.h"
#include "backends/gpu/TensorAccess.h"
#include "backends/gpu/VulkanProgram.h"

#include "llvm/Support/Error.h"

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kiln::vulkan {

class Lowering {
public:
  explicit Lowering(const KilnModule &Cpu, bool Fp16 = false);

  /// Lowers every operator; all that cannot run are listed in one error.
  /// On success the returned module is the Vulkan file's.
  llvm::Expected<KilnModule> run();

  // For the per-family lowering functions (*Lowering.cpp).
  const fb::TensorT &tensor(int32_t T) const { return *Cpu.Model.tensors[size_t(T)]; }
  const fb::ModelT &model() const { return Cpu.Model; }
  const Storage &storage(int32_t T) const { return Storages[size_t(T)]; }
  /// The place holding activation T.
  int32_t place(int32_t T) const { return PlaceOf[size_t(T)]; }
  BindingRef bindTensor(int32_t T) const { return {false, place(T), 0, 0}; }
  /// Activation T's place, made now if its operator was absorbed into a
  /// later operator's dispatch that writes it (an LSTM cell's state).
  BindingRef bindNewOutput(int32_t T);
  BindingRef bindPlace(int32_t P) const { return {false, P, 0, 0}; }
  /// Constant T's values as floats (widened from f16).
  std::vector<float> floats(int32_t T) const;
  /// Writes constant T's segment bytes to Out (its size()).
  void readBytes(int32_t T, void *Out) const;
  /// Constant T's raw bytes.
  std::vector<uint8_t> rawBytes(int32_t T) const;
  /// A weight blob packed from constant T (or a synthesized one, T = -1).
  BindingRef bindWeight(std::vector<uint8_t> Bytes, int32_t T);
  /// Values in the activations' element type (fp16 with Fp16).
  BindingRef bindFloats(const std::vector<float> &Values, int32_t T);
  /// Values as f32 whatever the mode (resize tap weights).
  BindingRef bindF32(const std::vector<float> &Values, int32_t T);
  /// A new dispatch for the operator being lowered, of Kernel's variant
  /// for the mode ("<Kernel>_f16" with Fp16).
  PendingDispatch &dispatch(llvm::StringRef Kernel);
  /// Bytes of one stored activation element (2 with Fp16, else 4).
  uint64_t elementSize() const { return Fp16 ? 2 : 4; }
  bool fp16() const { return Fp16; }
  /// A scratch place of Bytes for a temporary (a layout change).
  int32_t scratch(uint64_t Bytes);
  /// T's output place becomes an alias of place P (same bytes).
  void alias(int32_t T, int32_t P);
  bool isGraphOutput(int32_t T) const;
  /// The operator writing T (nullptr for graph inputs and constants).
  const fb::OperatorT *producer(int32_t T) const { return Producers[size_t(T)]; }
  /// The operators reading T, in graph order, once per operand slot.
  const std::vector<const fb::OperatorT *> &readers(int32_t T) const {
    return Readers[size_t(T)];
  }

  /// Copies Src (any storage) to Dst (any storage) element by element over
  /// Domain with the operand maps given; by default with the mode's gather,
  /// or with Fp16 the variant that converts an f32 graph buffer's side.
  void gather(const Storage &SrcS, BindingRef Src, const OperandMap &SrcMap,
              const Storage &DstS, BindingRef Dst, const OperandMap &DstMap,
              DomainDims Domain, llvm::StringRef Kernel = "");
  /// A PLAIN copy of activation T (T itself when it is PLAIN).
  BindingRef plainOf(int32_t T);

private:
  /// With Fp16: B is a graph input's or output's own (f32) buffer.
  bool f32Io(BindingRef B) const;
  /// With Fp16: the f32 <-> fp16 conversion of a graph input or output
  /// between its own buffer and its fp16 copy (Into: to the copy).
  void convertIo(int32_t T, int32_t IoPlace, bool Into);

  const KilnModule &Cpu;
  bool Fp16 = false;
  KilnModule Out;
  VulkanProgram Program;
  std::vector<Storage> Storages;
  std::vector<int32_t> PlaceOf;
  int32_t CurrentOp = -1;
  /// Constants some kernel has a packed copy of.
  std::set<int32_t> Packed;
  std::vector<const fb::OperatorT *> Producers;
  std::vector<std::vector<const fb::OperatorT *>> Readers;
};

/// Group counts for a 1-D range of Items invocations in groups of 64,
/// spread over x and y (each at most 65535).
void flatGroups(PendingDispatch &D, uint64_t Items);
/// Spec constants 0-2: the workgroup size.
void workgroup(PendingDispatch &D, uint32_t X, uint32_t Y, uint32_t Z);
/// Spec constants 10-17 of the generic kernels (tensor_access.glsl): the
/// loop domain and, for PadAxis < 6, the axis whose indices from PadFrom on
/// are a C4 output's padding lanes; and the group counts over the domain.
void domainConstants(PendingDispatch &D, const DomainDims &Domain, int PadAxis,
                     int64_t PadFrom);
/// The same for a domain that is the output's dims, its channels padded to
/// four when it is C4.
void outputDomain(PendingDispatch &D, const Storage &Out);
/// Spec constants 20-35 of the windowed kernels (kernels/conv_shape.glsl)
/// for input X [N, H, W, C] and output Y [N, OH, OW, OC] with the window of
/// O (Conv2DOptions or Pool2DOptions), the 8x8x1 workgroup and the group
/// counts: one invocation per output pixel of each (n, channel block).
template <typename WindowOptions>
void windowConstants(PendingDispatch &D, const std::vector<int64_t> &X,
                     const std::vector<int64_t> &Y, const WindowOptions &O) {
  auto Set = [&](uint32_t Id, int64_t V) { D.Spec[Id] = uint32_t(int32_t(V)); };
  int64_t InC4 = (X[3] + 3) / 4, OutC4 = (Y[3] + 3) / 4;
  workgroup(D, 8, 8, 1);
  Set(20, X[1]);
  Set(21, X[2]);
  Set(22, InC4);
  Set(23, Y[1]);
  Set(24, Y[2]);
  Set(25, OutC4);
  Set(26, X[0]);
  Set(27, O.kernel_height);
  Set(28, O.kernel_width);
  Set(29, O.stride_height);
  Set(30, O.stride_width);
  Set(31, O.dilation_height);
  Set(32, O.dilation_width);
  Set(33, O.padding_top);
  Set(34, O.padding_left);
  Set(35, Y[3]);
  D.Groups[0] = uint32_t((Y[2] + 7) / 8);
  D.Groups[1] = uint32_t((Y[1] + 7) / 8);
  D.Groups[2] = uint32_t(X[0] * OutC4);
}

/// Spec constants 3-4: the fused clamp.
void clampConstants(PendingDispatch &D, float Min, float Max);
uint32_t floatBits(float F);

/// The per-family lowering functions: each lowers Op, or returns why it
/// cannot (the caller lists every such operator in one error).
std::string lowerConv(Lowering &L, const fb::OperatorT &Op);
std::string lowerFullyConnected(Lowering &L, const fb::OperatorT &Op);
std::string lowerPool(Lowering &L, const fb::OperatorT &Op);
std::string lowerElementwise(Lowering &L, const fb::OperatorT &Op);
std::string lowerMovement(Lowering &L, const fb::OperatorT &Op);
std::string lowerConcat(Lowering &L, const fb::OperatorT &Op);
std::string lowerSoftmax(Lowering &L, const fb::OperatorT &Op);
std::string lowerResize(Lowering &L, const fb::OperatorT &Op);
std::string lowerLayerNorm(Lowering &L, const fb::OperatorT &Op);
std::string lowerMatMul(Lowering &L, const fb::OperatorT &Op);
std::string lowerPixelsToTensor(Lowering &L, const fb::OperatorT &Op);
// IndexLowering.cpp: integer graph inputs (token ids, masks).
std::string lowerGather(Lowering &L, const fb::OperatorT &Op);
std::string lowerCast(Lowering &L, const fb::OperatorT &Op);
/// EQUAL, GREATER, LESS: checked here, computed by the CASTs that read them.
std::string lowerComparison(Lowering &L, const fb::OperatorT &Op);
/// EQUAL, GREATER or LESS (a BINARY whose result is boolean).
bool isComparison(const fb::OperatorT &Op);

/// AttentionLowering.cpp: an attention chain lowered as one dispatch.
struct AttentionChain {
  /// The matmul of queries and keys, the optional transpose of the keys
  /// before it, and the matmul of the probabilities with the values.
  const fb::OperatorT *QK = nullptr, *KeysTranspose = nullptr, *PV = nullptr;
  /// Every operator the dispatch at PV replaces (PV itself excluded).
  std::vector<const fb::OperatorT *> Absorbed;
  /// The scores' scale: the product of the scalar MULs and DIVs.
  float Alpha = 1;
  struct Bias {
    int32_t Tensor;
    std::vector<int64_t> Dims; // of the ADD that applied it
    float Mult;                // the scales applied after it
  };
  std::vector<Bias> Biases;
  /// An operand's batch count (P, or 1: broadcast) and matrix elements.
  struct Operand {
    int64_t Batch = 0, Inner = 0;
  };
  Operand Q, K, V;
  int64_t Rows = 0, M = 0, Keys = 0, Depth = 0, DV = 0;
};
/// Every chain of the model the attention kernel can run.
std::vector<AttentionChain> findAttentionChains(const Lowering &L);
std::string lowerAttention(Lowering &L, const AttentionChain &C);

/// RecurrentCellLowering.cpp: an unrolled LSTM step's cell as one dispatch.
struct LstmCell {
  /// The gates' pre-activations, the previous cell state (an activation
  /// or a constant), the new state and the step's output.
  int32_t G = -1, CPrev = -1, C = -1, Y = -1;
  int64_t Rows = 0, Hidden = 0, Width = 0;
  /// Where gates i, f, o and the candidate start in a row of G.
  int64_t IOff = 0, FOff = 0, OOff = 0, UOff = 0;
  /// CPrev's row stride (0: one row for all).
  int64_t CRow = 0;
  /// The operator the dispatch stands at (y's MUL) and those it replaces.
  const fb::OperatorT *Last = nullptr;
  std::vector<const fb::OperatorT *> Absorbed;
};
std::vector<LstmCell> findLstmCells(const Lowering &L);
std::string lowerLstmCell(Lowering &L, const LstmCell &C);
/// An unrolled GRU step's cell (linear_before_reset) as one dispatch.
struct GruCell {
  /// The gates' pre-activations, the candidate's input and recurrent parts
  /// (activations or constants), the previous state and the step's output.
  int32_t ZR = -1, XH = -1, HR = -1, HPrev = -1, Y = -1;
  int64_t Rows = 0, Hidden = 0, Width = 0;
  /// Where the update and reset gates start in a row of ZR.
  int64_t ZOff = 0, ROff = 0;
  /// Row strides of XH, HR and HPrev (0: one row for all).
  int64_t XHRow = 0, HRRow = 0, HRow = 0;
  const fb::OperatorT *Last = nullptr;
  std::vector<const fb::OperatorT *> Absorbed;
};
std::vector<GruCell> findGruCells(const Lowering &L);
std::string lowerGruCell(Lowering &L, const GruCell &C);

/// Why integer graph input T cannot stay in its caller's bytes ("" when
/// every reader is a gather by it, a cast of it or a comparison of it).
std::string integerInputProblem(const Lowering &L, int32_t T);

} // namespace kiln::vulkan

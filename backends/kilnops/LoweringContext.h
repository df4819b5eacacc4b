// State of one CPU lowering: the KilnModule being built, and where each IR
// value lives in it. A value can exist in its canonical layout (the IR's:
// NCHW for images) and, when rank 4, in NHWC; asking for a layout it does
// not have yet emits the transpose once and remembers it. Constants are
// written (and permuted) on demand, so an unused one costs nothing.
#pragma once

#include "backends/common/KilnModule.h"
#include "backends/kilnops/ConstantFolds.h"
#include "backends/kilnops/LoweringOptions.h"

#include "IR/Graph.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <string>
#include <vector>

namespace kiln {

/// One runtime operator emitted for an IR node, for reports.
struct EmittedOp {
  std::string Kind;   // "CONV_2D"
  std::string Engine; // "xnnpack" | "reference"
};

class LoweringContext {
public:
  LoweringContext(KilnModule &M, const LoweringOptions &Opts)
      : M(M), Opts(Opts) {}

  /// What the target chose (KilnOps.h).
  const LoweringOptions &options() const { return Opts; }

  /// The constant behind V (its own, through identities, or a cast or
  /// dequantize of one folded to f32, once per value); null if V is
  /// computed (ConstantFolds.h).
  const Tensor *constantOf(const Value *V) const { return Folds.constantOf(V); }

  //===-- Tensors ---------------------------------------------------------===//

  /// A new activation tensor.
  int32_t addTensor(std::string Name, ElementType Elem,
                    const std::vector<int64_t> &Shape, fb::Layout Layout);
  /// A new activation tensor of Shape with Like's type, layout and
  /// quantization.
  int32_t addTensorLike(int32_t Like, std::string Name,
                        const std::vector<int64_t> &Shape);
  /// A new constant tensor holding Bytes (a new segment).
  int32_t addConstant(std::string Name, ElementType Elem,
                      const std::vector<int64_t> &Shape, fb::Layout Layout,
                      Buffer Bytes);
  /// A new f32 constant; the values move into the segment (no copy).
  int32_t addFloatConstant(std::string Name, const std::vector<int64_t> &Shape,
                           fb::Layout Layout, std::vector<float> Values);
  /// A new f32 constant whose values Pack writes (every element of Out) when
  /// the file is written, from weights it keeps alive itself.
  int32_t addPackedFloatConstant(std::string Name,
                                 const std::vector<int64_t> &Shape,
                                 fb::Layout Layout,
                                 std::function<void(float *Out)> Pack);
  /// The weight tensor of V in Layout: made by Make the first time, then
  /// shared by every operator that reads V so (an unrolled recurrent
  /// layer reads its weights at every step; one copy is stored).
  int32_t sharedWeight(const Value *V, fb::Layout Layout,
                       llvm::function_ref<int32_t()> Make) {
    auto [It, New] = Weights.try_emplace({V, int(Layout)}, -1);
    if (New)
      It->second = Make();
    return It->second;
  }
  const fb::TensorT &tensor(int32_t Index) const {
    return *M.Model.tensors[size_t(Index)];
  }
  std::vector<int64_t> shapeOf(int32_t Index) const {
    return tensor(Index).shape;
  }

  //===-- Values ----------------------------------------------------------===//

  /// Records that V is computed into tensor Index, in NHWC or canonically.
  void define(const Value *V, int32_t Index, bool Nhwc);
  /// True when V is available in NHWC (and not only canonically).
  bool hasNhwc(const Value *V) const;
  bool hasCanonical(const Value *V) const;
  /// A tensor holding V's values in either layout (canonical first), or -1.
  int32_t placement(const Value *V) const;
  /// V in the IR's layout; emits a transpose from NHWC if needed.
  int32_t canonical(const Value *V);
  /// Rank-4 V in NHWC; emits a transpose from NCHW if needed.
  int32_t nhwc(const Value *V);
  /// A new activation tensor for V's value: its name and type, with the
  /// dims permuted to NHWC when Nhwc.
  int32_t resultTensor(const Value *V, bool Nhwc);

  //===-- Operators -------------------------------------------------------===//

  /// Emits an operator; Name defaults to the current node's display name.
  void addOp(fb::OpKind Kind, std::vector<int32_t> Inputs,
             std::vector<int32_t> Outputs, fb::OpOptionsUnion Options,
             fb::Engine Engine);
  /// Emits a transpose of In by Perm into a new tensor (a reshape when the
  /// permutation moves only size-1 dims, so no data moves).
  int32_t transpose(int32_t In, const std::vector<int32_t> &Perm,
                    const std::string &Name, fb::Layout Layout);
  /// Emits a RESHAPE of In into a new tensor of Shape.
  int32_t reshape(int32_t In, const std::vector<int64_t> &Shape,
                  const std::string &Name, fb::Layout Layout);

  /// The node whose operators are being emitted (names and reports).
  void beginNode(const Node &N) {
    beginNode(N.displayName());
    CurrentSources = N.sources();
  }
  void beginNode(llvm::StringRef Name);
  const std::vector<EmittedOp> &emittedForCurrentNode() const {
    return Current;
  }

  KilnModule &module() { return M; }

private:
  struct Placement {
    int32_t Canonical = -1, Nhwc = -1;
  };
  int32_t constantTensor(const Value *V, bool Nhwc);

  KilnModule &M;
  LoweringOptions Opts;
  mutable ConstantFolds Folds;
  llvm::DenseMap<const Value *, Placement> Where;
  llvm::DenseMap<std::pair<const Value *, int>, int32_t> Weights;
  std::string CurrentName;
  std::vector<std::string> CurrentSources; // provenance of the current node
  std::vector<EmittedOp> Current;
};


/// IR element type -> schema dtype (the values are the same by design).
fb::DType toDType(ElementType T);
/// The layout a canonical tensor of this rank gets (NCHW for rank 4).
fb::Layout canonicalLayout(size_t Rank);
/// NCHW dims -> NHWC dims.
std::vector<int64_t> toNhwcShape(const std::vector<int64_t> &Nchw);
/// Permutes a rank-4 row-major array from NCHW to NHWC, any element size.
std::vector<uint8_t> permuteToNhwc(llvm::ArrayRef<uint8_t> Bytes,
                                   const std::vector<int64_t> &Nchw,
                                   size_t ElemSize);

} // namespace kiln

// Data movement -> RESHAPE, TRANSPOSE, CONCAT, SLICE, PAD, BROADCAST and
// GATHER (reference kernels, any element type). They work on the canonical
// layout, except concat and pad, which stay NHWC when their input already
// is (the axis or the pads are permuted instead of the data). Operands that
// give sizes (shapes, starts, pads, repeats) must be constants: the result
// types are static, so only the data moves at run time.
#include "backends/kilnops/KilnOpRules.h"

#include "IR/ShapeInference.h"

#include <cstring>


namespace kiln {

namespace {

std::vector<int64_t> sizesOf(const Value *V) {
  return staticSizes(V->type().Dims);
}

KilnOpSupport checkAny(const Node &) { return supported(); }

KilnOpSupport checkConstantOperands(const Node &N, unsigned From) {
  for (unsigned I = From; I < N.numOperands(); ++I)
    if (N.operand(I) && !isConstantOrFolded(N.operand(I)))
      return notSupported("operand {0} must be a constant (run -O1 or higher "
                          "to fold it)",
                          I);
  return supported();
}

/// reshape, flatten, squeeze, unsqueeze: the bytes stay, the shape changes.
llvm::Error lowerReshape(const Node &N, LoweringContext &Ctx) {
  int32_t In = Ctx.canonical(N.operand(0));
  int32_t Out = Ctx.resultTensor(N.result(), false);
  Ctx.addOp(fb::OpKind::RESHAPE, {In}, {Out}, optionsOf(fb::ReshapeOptionsT()),
            fb::Engine::REFERENCE);
  Ctx.define(N.result(), Out, false);
  return llvm::Error::success();
}

llvm::Error lowerTranspose(const Node &N, LoweringContext &Ctx) {
  const Value *X = N.operand(0), *R = N.result();
  std::vector<int32_t> Perm = transposePermOf(N);
  std::string Name = R->name().empty() ? "transposed" : R->name();
  // Where the permutation is the one between NCHW and NHWC order and the
  // operand is held in the other order already (ConvNeXt's permutes around
  // its LayerNorm: a convolution's NHWC output to channels-last, and a
  // channels-last MLP output back to NCHW), the bytes are in place: a
  // reshape, instead of a transpose to the canonical form and another.
  static const std::vector<int32_t> ToNhwc = {0, 2, 3, 1}, ToNchw = {0, 3, 1, 2};
  if (Perm == ToNhwc && Ctx.hasNhwc(X)) {
    std::vector<int64_t> Shape = Ctx.shapeOf(Ctx.nhwc(X));
    Ctx.define(R, Ctx.reshape(Ctx.nhwc(X), Shape, Name, canonicalLayout(4)),
               false);
    return llvm::Error::success();
  }
  if (Perm == ToNchw && Ctx.hasCanonical(X) && !Ctx.hasNhwc(X)) {
    std::vector<int64_t> Shape = Ctx.shapeOf(Ctx.canonical(X));
    Ctx.define(R, Ctx.reshape(Ctx.canonical(X), Shape, Name, fb::Layout::NHWC),
               true);
    return llvm::Error::success();
  }
  int32_t Out = Ctx.transpose(Ctx.canonical(X), Perm, Name,
                              canonicalLayout(size_t(R->type().rank())));
  Ctx.define(R, Out, false);
  return llvm::Error::success();
}

llvm::Error lowerConcat(const Node &N, LoweringContext &Ctx) {
  return emitConcat(
      N, Ctx, [&](const Value *V) { return Ctx.hasNhwc(V); },
      [&](const Value *V, bool Nhwc) {
        return Nhwc ? Ctx.nhwc(V) : Ctx.canonical(V);
      },
      [&](bool Nhwc) {
        int32_t Out = Ctx.resultTensor(N.result(), Nhwc);
        Ctx.define(N.result(), Out, Nhwc);
        return Out;
      });
}

/// Per-axis start and step of a slice, as the interpreter computes them
/// (starts/ends clamped, negatives counted from the end).
struct SliceParams {
  std::vector<int64_t> Starts, Steps;
};

llvm::Optional<SliceParams> sliceParams(const Node &N) {
  std::vector<int64_t> In = sizesOf(N.operand(0));
  auto Starts = constantInts(N.operand(1)), Ends = constantInts(N.operand(2));
  auto AxesV = N.numOperands() > 3 ? constantInts(N.operand(3)) : llvm::None;
  auto StepsV = N.numOperands() > 4 ? constantInts(N.operand(4)) : llvm::None;
  if (!Starts || !Ends)
    return llvm::None;
  size_t K = Starts->size();
  std::vector<int64_t> Axes(K), Steps(K, 1);
  for (size_t I = 0; I < K; ++I)
    Axes[I] = int64_t(I);
  if (AxesV)
    Axes = *AxesV;
  if (StepsV)
    Steps = *StepsV;
  if (Ends->size() != K || Axes.size() != K || Steps.size() != K)
    return llvm::None;
  SliceParams P{std::vector<int64_t>(In.size(), 0),
                std::vector<int64_t>(In.size(), 1)};
  for (size_t I = 0; I < K; ++I) {
    int64_t A = Axes[I] < 0 ? Axes[I] + int64_t(In.size()) : Axes[I];
    if (A < 0 || A >= int64_t(In.size()) || Steps[I] == 0)
      return llvm::None;
    int64_t Sz = In[size_t(A)], S = (*Starts)[I], St = Steps[I];
    P.Steps[size_t(A)] = St;
    if (Sz == 0)
      continue;
    S = std::clamp<int64_t>(S, -Sz - 1, Sz + 1);
    if (S < 0)
      S += Sz;
    S = St > 0 ? std::clamp<int64_t>(S, 0, Sz) : std::clamp<int64_t>(S, 0, Sz - 1);
    P.Starts[size_t(A)] = S;
  }
  return P;
}

KilnOpSupport checkSlice(const Node &N) {
  if (KilnOpSupport S = checkConstantOperands(N, 1); !S.Supported)
    return S;
  if (!sliceParams(N))
    return notSupported("slice parameters are not usable constants");
  return supported();
}

llvm::Error lowerSlice(const Node &N, LoweringContext &Ctx) {
  int32_t In = Ctx.canonical(N.operand(0));
  int32_t Res = Ctx.resultTensor(N.result(), false);
  Ctx.addOp(fb::OpKind::SLICE, {In}, {Res}, optionsOf(*sliceOptionsOf(N)),
            fb::Engine::REFERENCE);
  Ctx.define(N.result(), Res, false);
  return llvm::Error::success();
}

KilnOpSupport checkSplit(const Node &N) { return checkConstantOperands(N, 1); }

llvm::Error lowerSplit(const Node &N, LoweringContext &Ctx) {
  auto Slices = splitSlicesOf(N);
  if (!Slices)
    return Slices.takeError();
  int32_t In = Ctx.canonical(N.operand(0));
  for (unsigned R = 0; R < N.numResults(); ++R) {
    int32_t Out = Ctx.resultTensor(N.result(R), false);
    Ctx.addOp(fb::OpKind::SLICE, {In}, {Out}, optionsOf((*Slices)[R]),
              fb::Engine::REFERENCE);
    Ctx.define(N.result(R), Out, false);
  }
  return llvm::Error::success();
}

KilnOpSupport checkPad(const Node &N) {
  if (KilnOpSupport S = checkConstantOperands(N, 1); !S.Supported)
    return S;
  auto Pads = constantInts(N.operand(1));
  std::vector<int64_t> In = sizesOf(N.operand(0));
  if (!Pads || Pads->size() != 2 * In.size())
    return notSupported("pads must list a begin and an end per axis");
  const std::string &Mode = N.getString("mode");
  for (size_t I = 0; I < Pads->size(); ++I) {
    int64_t P = (*Pads)[I], Dim = In[I % In.size()];
    if (P < 0)
      return notSupported("negative pads (cropping)");
    if (Mode == "reflect" && P > 0 && P >= Dim)
      return notSupported("reflect padding of {0} on an axis of size {1}", P,
                          Dim);
    if (Mode == "edge" && P > 0 && Dim == 0)
      return notSupported("edge padding of an empty axis");
  }
  ElementType E = N.operand(0)->type().Elem;
  bool ValueOk = E == ElementType::F32 || E == ElementType::I32 ||
                 E == ElementType::I64 || E == ElementType::I8 ||
                 E == ElementType::U8;
  if (Mode == "constant" && N.numOperands() > 2 && N.operand(2) &&
      constantScalar(N.operand(2)).getValueOr(0) != 0 && !ValueOk)
    return notSupported("a non-zero pad value on {0}", elementTypeName(E));
  return supported();
}

llvm::Error lowerPad(const Node &N, LoweringContext &Ctx) {
  const Value *X = N.operand(0);
  std::vector<int64_t> Pads = *constantInts(N.operand(1));
  size_t Rank = Pads.size() / 2;
  bool Nhwc = Rank == 4 && Ctx.hasNhwc(X);
  fb::PadOptionsT O;
  O.pads = Pads;
  if (Nhwc)
    for (size_t I = 0; I < 4; ++I) {
      O.pads[size_t(nhwcAxis(int64_t(I)))] = Pads[I];
      O.pads[4 + size_t(nhwcAxis(int64_t(I)))] = Pads[4 + I];
    }
  const std::string &Mode = N.getString("mode");
  O.mode = Mode == "reflect" ? fb::PadMode::REFLECT
           : Mode == "edge"  ? fb::PadMode::EDGE
                             : fb::PadMode::CONSTANT;
  if (N.numOperands() > 2 && N.operand(2))
    O.value = float(Ctx.constantOf(N.operand(2))->asDouble(0));
  int32_t In = Nhwc ? Ctx.nhwc(X) : Ctx.canonical(X);
  int32_t Out = Ctx.resultTensor(N.result(), Nhwc);
  Ctx.addOp(fb::OpKind::PAD, {In}, {Out}, optionsOf(O), fb::Engine::REFERENCE);
  Ctx.define(N.result(), Out, Nhwc);
  return llvm::Error::success();
}

KilnOpSupport checkExpand(const Node &N) {
  if (N.operand(0)->type().rank() > N.result()->type().rank())
    return notSupported("expand to a lower rank");
  return checkConstantOperands(N, 1);
}

llvm::Error lowerExpand(const Node &N, LoweringContext &Ctx) {
  int32_t In = Ctx.canonical(N.operand(0));
  int32_t Out = Ctx.resultTensor(N.result(), false);
  Ctx.addOp(fb::OpKind::BROADCAST, {In}, {Out},
            optionsOf(fb::BroadcastOptionsT()), fb::Engine::REFERENCE);
  Ctx.define(N.result(), Out, false);
  return llvm::Error::success();
}

KilnOpSupport checkTile(const Node &N) {
  if (N.operand(0)->type().rank() > 4)
    return notSupported("tile of rank > 4");
  return checkConstantOperands(N, 1);
}

/// tile(x, r) = reshape(broadcast(reshape(x, [1,d0,1,d1,...]),
/// [r0,d0,r1,d1,...]), result).
llvm::Error lowerTile(const Node &N, LoweringContext &Ctx) {
  const Value *X = N.operand(0);
  std::vector<int64_t> In = sizesOf(X), Reps = *constantInts(N.operand(1));
  std::vector<int64_t> Spread, Wide;
  for (size_t I = 0; I < In.size(); ++I) {
    Spread.insert(Spread.end(), {1, In[I]});
    Wide.insert(Wide.end(), {Reps[I], In[I]});
  }
  std::string Name = X->name().empty() ? "tile" : X->name();
  int32_t S = Ctx.reshape(Ctx.canonical(X), Spread, Name + ".spread",
                          fb::Layout::PLAIN);
  int32_t B = Ctx.addTensor(Name + ".tiled", X->type().Elem, Wide,
                            fb::Layout::PLAIN);
  Ctx.addOp(fb::OpKind::BROADCAST, {S}, {B}, optionsOf(fb::BroadcastOptionsT()),
            fb::Engine::REFERENCE);
  int32_t Out = Ctx.resultTensor(N.result(), false);
  Ctx.addOp(fb::OpKind::RESHAPE, {B}, {Out}, optionsOf(fb::ReshapeOptionsT()),
            fb::Engine::REFERENCE);
  Ctx.define(N.result(), Out, false);
  return llvm::Error::success();
}

KilnOpSupport checkGather(const Node &N) {
  ElementType I = N.operand(1)->type().Elem;
  if (I != ElementType::I32 && I != ElementType::I64)
    return notSupported("gather indices must be i32 or i64");
  return supported();
}

llvm::Error lowerGather(const Node &N, LoweringContext &Ctx) {
  auto Axis = normalizeAxis(N.getInt("axis"), N.operand(0)->type().rank());
  if (!Axis)
    return Axis.takeError();
  fb::GatherOptionsT O;
  O.axis = int32_t(*Axis);
  int32_t Data = Ctx.canonical(N.operand(0)), Idx = -1;
  // Constant indices are written counted from the front: NNAPI's GATHER
  // rejects negative ones, and every kernel then reads them the same way.
  const Dim &Along = N.operand(0)->type().Dims[size_t(*Axis)];
  auto Ints = constantInts(N.operand(1));
  if (Ints && Along.isStatic() &&
      llvm::any_of(*Ints, [](int64_t V) { return V < 0; })) {
    std::vector<int32_t> Front;
    for (int64_t V : *Ints)
      Front.push_back(int32_t(V < 0 ? V + Along.size() : V));
    std::vector<uint8_t> Bytes(Front.size() * sizeof(int32_t));
    std::memcpy(Bytes.data(), Front.data(), Bytes.size());
    Idx = Ctx.addConstant(N.operand(1)->name() + ".from_front", ElementType::I32,
                          staticSizes(N.operand(1)->type().Dims),
                          fb::Layout::PLAIN, Buffer::own(std::move(Bytes)));
  } else
    Idx = Ctx.canonical(N.operand(1));
  int32_t Out = Ctx.resultTensor(N.result(), false);
  Ctx.addOp(fb::OpKind::GATHER, {Data, Idx}, {Out}, optionsOf(O),
            fb::Engine::REFERENCE);
  Ctx.define(N.result(), Out, false);
  return llvm::Error::success();
}

const CpuOpRule Rules[] = {
    {"reshape", checkAny, lowerReshape},
    {"flatten", checkAny, lowerReshape},
    {"squeeze", checkAny, lowerReshape},
    {"unsqueeze", checkAny, lowerReshape},
    {"transpose", checkAny, lowerTranspose},
    {"concat", checkAny, lowerConcat},
    {"slice", checkSlice, lowerSlice},
    {"split", checkSplit, lowerSplit},
    {"pad", checkPad, lowerPad},
    {"expand", checkExpand, lowerExpand},
    {"tile", checkTile, lowerTile},
    {"gather", checkGather, lowerGather},
};

} // namespace

std::vector<int32_t> transposePermOf(const Node &N) {
  std::vector<int64_t> Perm = N.getInts("perm");
  if (Perm.empty())
    for (int64_t I = N.operand(0)->type().rank() - 1; I >= 0; --I)
      Perm.push_back(I);
  return std::vector<int32_t>(Perm.begin(), Perm.end());
}

llvm::Error emitConcat(const Node &N, LoweringContext &Ctx,
                       llvm::function_ref<bool(const Value *)> InNhwc,
                       llvm::function_ref<int32_t(const Value *, bool)> Operand,
                       llvm::function_ref<int32_t(bool)> Result) {
  int64_t Rank = N.result()->type().rank();
  auto Axis = normalizeAxis(N.getInt("axis"), Rank);
  if (!Axis)
    return Axis.takeError();
  bool AnyNhwc = false;
  for (const Value *V : N.operands())
    AnyNhwc |= InNhwc(V);
  bool Nhwc = AnyNhwc && Rank == 4;
  std::vector<int32_t> Inputs;
  for (const Value *V : N.operands())
    Inputs.push_back(Operand(V, Nhwc));
  fb::ConcatOptionsT O;
  O.axis = int32_t(Nhwc ? nhwcAxis(*Axis) : *Axis);
  int32_t Out = Result(Nhwc);
  // The runtime takes at most 4096 inputs per operator (its loader's
  // MaxOperatorInputs): a wider concat becomes a tree of concats of at most
  // MaxConcatInputs each, which gives the same bytes (concatenation along
  // one axis is associative).
  constexpr size_t MaxConcatInputs = 1024;
  size_t Part = 0;
  while (Inputs.size() > MaxConcatInputs) {
    std::vector<int32_t> Parts;
    for (size_t Begin = 0; Begin < Inputs.size(); Begin += MaxConcatInputs) {
      size_t End = std::min(Inputs.size(), Begin + MaxConcatInputs);
      if (End - Begin == 1) {
        Parts.push_back(Inputs[Begin]);
        continue;
      }
      std::vector<int32_t> Chunk(Inputs.begin() + Begin, Inputs.begin() + End);
      std::vector<int64_t> Shape = Ctx.shapeOf(Chunk[0]);
      Shape[size_t(O.axis)] = 0;
      for (int32_t In : Chunk)
        Shape[size_t(O.axis)] += Ctx.shapeOf(In)[size_t(O.axis)];
      int32_t P = Ctx.addTensorLike(
          Out, Ctx.tensor(Out).name + ".part" + std::to_string(Part++), Shape);
      Ctx.addOp(fb::OpKind::CONCAT, std::move(Chunk), {P}, optionsOf(O),
                fb::Engine::REFERENCE);
      Parts.push_back(P);
    }
    Inputs = std::move(Parts);
  }
  Ctx.addOp(fb::OpKind::CONCAT, Inputs, {Out}, optionsOf(O),
            fb::Engine::REFERENCE);
  return llvm::Error::success();
}

llvm::Optional<fb::SliceOptionsT> sliceOptionsOf(const Node &N) {
  auto P = sliceParams(N);
  if (!P)
    return llvm::None;
  std::vector<int64_t> Out = sizesOf(N.result());
  for (size_t I = 0; I < Out.size(); ++I)
    if (Out[I] == 0)
      P->Starts[I] = 0;
  fb::SliceOptionsT O;
  O.starts = P->Starts;
  O.steps = P->Steps;
  return O;
}

llvm::Expected<std::vector<fb::SliceOptionsT>> splitSlicesOf(const Node &N) {
  int64_t Rank = N.operand(0)->type().rank();
  auto Axis = normalizeAxis(N.getInt("axis"), Rank);
  if (!Axis)
    return Axis.takeError();
  std::vector<fb::SliceOptionsT> Slices;
  int64_t Offset = 0;
  for (const Value *R : N.results()) {
    fb::SliceOptionsT O;
    O.starts.assign(size_t(Rank), 0);
    O.steps.assign(size_t(Rank), 1);
    int64_t Size = R->type().Dims[size_t(*Axis)].size();
    O.starts[size_t(*Axis)] = Size ? Offset : 0;
    Offset += Size;
    Slices.push_back(std::move(O));
  }
  return Slices;
}

llvm::ArrayRef<CpuOpRule> shapeRules() { return Rules; }

} // namespace kiln

#include "backends/kilnops/LoweringContext.h"
#include "backends/kilnops/QuantLowering.h"

#include <cstring>

namespace kiln {

static_assert(static_cast<int>(ElementType::F32) == static_cast<int>(fb::DType::F32) &&
                  static_cast<int>(ElementType::I64) == static_cast<int>(fb::DType::I64) &&
                  static_cast<int>(ElementType::Bool) == static_cast<int>(fb::DType::BOOL),
              "IR element types and schema dtypes share their values");

fb::DType toDType(ElementType T) { return static_cast<fb::DType>(T); }

/// Copies the QuantParams of tensor From (if any) to tensor To.
static void copyQuant(KilnModule &M, int32_t From, int32_t To) {
  const auto &Q = M.Model.tensors[size_t(From)]->quant;
  if (Q)
    M.Model.tensors[size_t(To)]->quant = std::make_unique<fb::QuantParamsT>(*Q);
}

fb::Layout canonicalLayout(size_t Rank) {
  return Rank == 4 ? fb::Layout::NCHW : fb::Layout::PLAIN;
}

std::vector<int64_t> toNhwcShape(const std::vector<int64_t> &S) {
  return {S[0], S[2], S[3], S[1]};
}

std::vector<uint8_t> permuteToNhwc(llvm::ArrayRef<uint8_t> Bytes,
                                   const std::vector<int64_t> &S,
                                   size_t ElemSize) {
  int64_t N = S[0], C = S[1], H = S[2], W = S[3];
  std::vector<uint8_t> Out(Bytes.size());
  for (int64_t B = 0; B < N; ++B)
    for (int64_t Ch = 0; Ch < C; ++Ch)
      for (int64_t Y = 0; Y < H; ++Y)
        for (int64_t X = 0; X < W; ++X)
          std::memcpy(&Out[size_t(((B * H + Y) * W + X) * C + Ch) * ElemSize],
                      &Bytes[size_t(((B * C + Ch) * H + Y) * W + X) * ElemSize],
                      ElemSize);
  return Out;
}

static std::vector<int64_t> sizesOf(const Value *V) {
  return staticSizes(V->type().Dims);
}

int32_t LoweringContext::addTensor(std::string Name, ElementType Elem,
                                   const std::vector<int64_t> &Shape,
                                   fb::Layout Layout) {
  auto T = std::make_unique<fb::TensorT>();
  T->name = std::move(Name);
  T->dtype = toDType(Elem);
  T->shape = Shape;
  T->layout = Layout;
  T->buffer = -1;
  M.Model.tensors.push_back(std::move(T));
  return int32_t(M.Model.tensors.size() - 1);
}

int32_t LoweringContext::addConstant(std::string Name, ElementType Elem,
                                     const std::vector<int64_t> &Shape,
                                     fb::Layout Layout, Buffer Bytes) {
  int32_t Index = addTensor(std::move(Name), Elem, Shape, Layout);
  M.Model.tensors[size_t(Index)]->buffer = M.addSegment(std::move(Bytes));
  return Index;
}

namespace {

/// A Buffer that keeps the vector Values alive and aliases its floats.
Buffer floatBuffer(std::vector<float> Values) {
  auto Owner = std::make_shared<std::vector<float>>(std::move(Values));
  const auto *Data = reinterpret_cast<const uint8_t *>(Owner->data());
  size_t Size = Owner->size() * sizeof(float);
  return Size ? Buffer::alias(Owner, Data, Size) : Buffer();
}

} // namespace

int32_t LoweringContext::addFloatConstant(std::string Name,
                                          const std::vector<int64_t> &Shape,
                                          fb::Layout Layout,
                                          std::vector<float> Values) {
  return addConstant(std::move(Name), ElementType::F32, Shape, Layout,
                     floatBuffer(std::move(Values)));
}

int32_t LoweringContext::addPackedFloatConstant(
    std::string Name, const std::vector<int64_t> &Shape, fb::Layout Layout,
    std::function<void(float *Out)> Pack) {
  int32_t Index = addTensor(std::move(Name), ElementType::F32, Shape, Layout);
  uint64_t Count = 1;
  for (int64_t D : Shape)
    Count *= uint64_t(D);
  M.Model.tensors[size_t(Index)]->buffer = M.addSegment(Segment::produced(
      Count * sizeof(float), [Pack = std::move(Pack)](char *Out) {
        Pack(reinterpret_cast<float *>(Out));
      }));
  return Index;
}

void LoweringContext::define(const Value *V, int32_t Index, bool Nhwc) {
  Placement &P = Where[V];
  (Nhwc ? P.Nhwc : P.Canonical) = Index;
}

int32_t LoweringContext::placement(const Value *V) const {
  auto It = Where.find(V);
  if (It == Where.end())
    return -1;
  return It->second.Canonical >= 0 ? It->second.Canonical : It->second.Nhwc;
}

bool LoweringContext::hasNhwc(const Value *V) const {
  auto It = Where.find(V);
  return It != Where.end() && It->second.Nhwc >= 0;
}

bool LoweringContext::hasCanonical(const Value *V) const {
  auto It = Where.find(V);
  return It != Where.end() && It->second.Canonical >= 0;
}

static std::string valueName(const Value *V) {
  return V->name().empty() ? "value" : V->name();
}

int32_t LoweringContext::constantTensor(const Value *V, bool Nhwc) {
  const Tensor &T = *constantOf(V);
  std::vector<int64_t> Sizes = sizesOf(V);
  ElementType Elem = T.type().Elem;
  if (!Nhwc)
    return addConstant(valueName(V), Elem, Sizes, canonicalLayout(Sizes.size()),
                       T.buffer());
  return addConstant(valueName(V) + ".nhwc", Elem, toNhwcShape(Sizes),
                     fb::Layout::NHWC,
                     Buffer::own(permuteToNhwc(T.buffer().bytes(), Sizes,
                                               elementSize(Elem))));
}

int32_t LoweringContext::canonical(const Value *V) {
  Placement &P = Where[V];
  if (P.Canonical >= 0)
    return P.Canonical;
  if (constantOf(V))
    return Where[V].Canonical = constantTensor(V, false);
  assert(P.Nhwc >= 0 && "value used before it is lowered");
  int32_t T = transpose(P.Nhwc, {0, 3, 1, 2}, valueName(V) + ".nchw",
                        fb::Layout::NCHW);
  return Where[V].Canonical = T;
}

int32_t LoweringContext::nhwc(const Value *V) {
  Placement &P = Where[V];
  if (P.Nhwc >= 0)
    return P.Nhwc;
  if (constantOf(V))
    return Where[V].Nhwc = constantTensor(V, true);
  assert(P.Canonical >= 0 && "value used before it is lowered");
  int32_t T = transpose(P.Canonical, {0, 2, 3, 1}, valueName(V) + ".nhwc",
                        fb::Layout::NHWC);
  return Where[V].Nhwc = T;
}

int32_t LoweringContext::resultTensor(const Value *V, bool Nhwc) {
  std::vector<int64_t> Sizes = sizesOf(V);
  int32_t T = Nhwc ? addTensor(valueName(V), V->type().Elem, toNhwcShape(Sizes),
                               fb::Layout::NHWC)
                   : addTensor(valueName(V), V->type().Elem, Sizes,
                               canonicalLayout(Sizes.size()));
  if (V->type().Quant && !V->type().Quant->isPerAxis())
    setQuantParams(*this, T, *V->type().Quant);
  return T;
}

void LoweringContext::addOp(fb::OpKind Kind, std::vector<int32_t> Inputs,
                            std::vector<int32_t> Outputs,
                            fb::OpOptionsUnion Options, fb::Engine Engine) {
  auto Op = std::make_unique<fb::OperatorT>();
  Op->kind = Kind;
  Op->inputs = std::move(Inputs);
  Op->outputs = std::move(Outputs);
  Op->options = std::move(Options);
  Op->engine = Engine;
  Op->name = CurrentName;
  Op->sources = CurrentSources;
  M.Model.operators.push_back(std::move(Op));
  Current.push_back({fb::EnumNameOpKind(Kind),
                     Engine == fb::Engine::XNNPACK ? "xnnpack" : "reference"});
}

/// True when permuting by Perm keeps the order of the dims larger than 1,
/// i.e. the bytes do not move.
static bool movesOnlyUnitDims(const std::vector<int64_t> &Shape,
                              const std::vector<int32_t> &Perm) {
  int64_t Last = -1;
  for (int32_t P : Perm) {
    if (Shape[size_t(P)] == 1)
      continue;
    if (P < Last)
      return false;
    Last = P;
  }
  return true;
}

int32_t LoweringContext::addTensorLike(int32_t Like, std::string Name,
                                       const std::vector<int64_t> &Shape) {
  const fb::TensorT &T = tensor(Like);
  fb::Layout Layout = T.layout;
  int32_t Out = addTensor(std::move(Name), static_cast<ElementType>(T.dtype),
                          Shape, Layout);
  copyQuant(M, Like, Out);
  return Out;
}

int32_t LoweringContext::transpose(int32_t In, const std::vector<int32_t> &Perm,
                                   const std::string &Name,
                                   fb::Layout Layout) {
  std::vector<int64_t> InShape = shapeOf(In), OutShape;
  for (int32_t P : Perm)
    OutShape.push_back(InShape[size_t(P)]);
  if (movesOnlyUnitDims(InShape, Perm))
    return reshape(In, OutShape, Name, Layout);
  ElementType Elem = static_cast<ElementType>(tensor(In).dtype);
  int32_t Out = addTensor(Name, Elem, OutShape, Layout);
  copyQuant(M, In, Out);
  fb::OpOptionsUnion O;
  fb::TransposeOptionsT T;
  T.perm = Perm;
  O.Set(std::move(T));
  // oneDNN's reorder where the runtime has oneDNN.
  addOp(fb::OpKind::TRANSPOSE, {In}, {Out}, std::move(O), fb::Engine::ANY);
  return Out;
}

int32_t LoweringContext::reshape(int32_t In, const std::vector<int64_t> &Shape,
                                 const std::string &Name, fb::Layout Layout) {
  ElementType Elem = static_cast<ElementType>(tensor(In).dtype);
  int32_t Out = addTensor(Name, Elem, Shape, Layout);
  copyQuant(M, In, Out);
  fb::OpOptionsUnion O;
  O.Set(fb::ReshapeOptionsT());
  addOp(fb::OpKind::RESHAPE, {In}, {Out}, std::move(O), fb::Engine::REFERENCE);
  return Out;
}

void LoweringContext::beginNode(llvm::StringRef Name) {
  CurrentName = Name.str();
  CurrentSources.clear();
  Current.clear();
}

} // namespace kiln

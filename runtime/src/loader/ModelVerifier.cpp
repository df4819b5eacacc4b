// The loader's checks, in the order they can be trusted: the FlatBuffers
// verifier first (every offset and vector inside the buffer), then the
// semantic check (schema version, target, tensors and their segments with
// overflow-checked arithmetic, graph inputs and outputs, and operators in an
// order where each input already exists, which makes the graph acyclic),
// then each operator's own contract (OpValidation.h), and the payload's check
// of the file's target (TargetRules::VerifyPayload, in the target's folder).
// Where the payload runs (Vulkan, NNAPI, Metal), the operators describe the
// graph for tools and the payload's verifier checks what runs instead.
// Nothing is used before it is checked. The loader names no target: the
// registry (target/RuntimeTargets.cpp) passes the table of them.
#include "loader/BlockedLayout.h"
#include "loader/LoadedModel.h"
#include "loader/Limits.h"
#include "loader/OpValidation.h"
#include "loader/SelfTestCheck.h"
#include "schema/KilnSchemaVersion.h"

#include "numerics/PixelFormats.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>

namespace kiln::rt {

namespace {

std::string str(const flatbuffers::String *S) {
  return S ? std::string(S->c_str(), S->size()) : std::string();
}

Status verifyFlatBuffer(const ModelBytes &B) {
  // A .kiln file starts with the 4-byte offset of its root table, then the
  // "KILN" identifier (bytes 4-7). Each way of getting that wrong is said as
  // it is: a file with "KILN" in the wrong place does have the word.
  constexpr size_t HeaderBytes = 8;
  if (B.size() < HeaderBytes)
    return invalidModel("not a .kiln file: it is ", B.size(),
                        " bytes, shorter than the ", HeaderBytes,
                        "-byte .kiln header (root offset, then \"KILN\")");
  if (!fb::ModelBufferHasIdentifier(B.data())) {
    if (std::memcmp(B.data(), "KILN", 4) == 0)
      return invalidModel(
          "not a .kiln file: it starts with \"KILN\", but a .kiln file has "
          "its \"KILN\" identifier at bytes 4-7, after the 4-byte offset of "
          "its root table");
    return invalidModel("not a .kiln file (no \"KILN\" identifier)");
  }
  uint32_t Root = flatbuffers::ReadScalar<uint32_t>(B.data());
  if (Root < HeaderBytes || uint64_t(Root) + 4 > B.size())
    return invalidModel("the file has the \"KILN\" identifier but is ",
                        B.size(), " bytes, too short for the root table its "
                        "header places at byte ", Root, " (truncated?)");
  // The FlatBuffer sits at the start of the file; segments after it may take
  // the file past FlatBuffers' 2 GiB limit, which only the FlatBuffer obeys.
  size_t Size = std::min<size_t>(B.size(), FLATBUFFERS_MAX_BUFFER_SIZE - 1);
  flatbuffers::Verifier V(B.data(), Size, limits::MaxDepth, limits::MaxTables);
  if (!fb::VerifyModelBuffer(V))
    return invalidModel("the file is corrupt (FlatBuffers verification failed)");
  return Status::ok();
}

Status checkVersion(const fb::Model &M) {
  if (M.schema_major() == fb::SchemaMajor)
    return Status::ok();
  bool Newer = M.schema_major() > fb::SchemaMajor;
  return unsupported("schema ", M.schema_major(), ".", M.schema_minor(),
                     " is ", Newer ? "newer" : "older", " than this runtime's ",
                     fb::SchemaMajor, ".x; ",
                     Newer ? "update the kiln runtime"
                           : "convert the model again with a current kiln");
}

Status checkBuffers(const fb::Model &M, size_t FileSize) {
  if (!M.buffers())
    return Status::ok();
  for (unsigned I = 0; I < M.buffers()->size(); ++I) {
    const fb::Buffer *B = M.buffers()->Get(I);
    uint64_t End;
    if (__builtin_add_overflow(B->offset(), B->size(), &End) || End > FileSize)
      return invalidModel("buffer ", I, " (offset ", B->offset(), ", size ",
                          B->size(), ") extends past the end of the file (",
                          FileSize, " bytes)");
    if (B->offset() % fb::SegmentAlignment != 0)
      return invalidModel("buffer ", I, " starts at offset ", B->offset(),
                          ", not a multiple of ", fb::SegmentAlignment);
  }
  return Status::ok();
}

/// QuantParams: only on integer tensors; one scale per tensor or one per
/// slice of the axis; scales finite and > 0; zero points representable in
/// the element type (0 for I32 biases).
Status describeQuantization(const fb::Tensor &T, TensorDesc &D) {
  const fb::QuantParams *Q = T.quant();
  if (!Q)
    return Status::ok();
  if (D.DType != fb::DType::I8 && D.DType != fb::DType::U8 &&
      D.DType != fb::DType::I32)
    return invalidModel("quantization parameters on a ", dtypeName(D.DType),
                        " tensor (only i8, u8 and i32 are quantized)");
  if (Status S = checkAligned(Q->zero_point(), "the zero points"))
    return S;
  size_t NumScales = Q->scale() ? Q->scale()->size() : 0;
  size_t NumZeros = Q->zero_point() ? Q->zero_point()->size() : 0;
  if (NumZeros != 0 && NumScales != NumZeros) // none: every zero point is 0
    return invalidModel(NumScales, " scales but ", NumZeros, " zero points");
  int32_t Axis = Q->axis();
  if (Axis < -1 || Axis >= int32_t(D.rank()))
    return invalidModel("quantization axis ", Axis, " is out of range for rank ",
                        D.rank());
  size_t Want = Axis < 0 ? 1 : size_t(D.dim(Axis));
  if (NumScales != Want)
    return invalidModel(NumScales, " scales, expected ", Want,
                        Axis < 0 ? " (per tensor)"
                                 : concat(" (dim ", Axis, ")").c_str());
  int64_t Lo = D.DType == fb::DType::I8 ? -128 : 0;
  int64_t Hi = D.DType == fb::DType::I8 ? 127
               : D.DType == fb::DType::U8 ? 255 : 0;
  for (size_t K = 0; K < NumScales; ++K) {
    float Scale = Q->scale()->Get(unsigned(K));
    int64_t Zero = NumZeros ? Q->zero_point()->Get(unsigned(K)) : 0;
    if (!std::isfinite(Scale) || !(Scale > 0))
      return invalidModel("scale ", K, " is ", Scale,
                          ", expected a finite value > 0");
    if (Zero < Lo || Zero > Hi)
      return invalidModel("zero point ", K, " is ", Zero, ", outside [", Lo,
                          ", ", Hi, "] of ", dtypeName(D.DType));
    D.Scales.push_back(Scale);
    D.ZeroPoints.push_back(Zero);
  }
  D.QuantAxis = Axis;
  return Status::ok();
}

/// The GPU layouts (1.5): C4 activations of rank 4 and PACKED constants,
/// whose segment holds at least the logical bytes, in whole elements. Only
/// Vulkan and Metal files have them.
Status checkGpuLayout(const fb::Model &M, const TargetRules &Target,
                      const TensorDesc &D) {
  if (D.Layout != fb::Layout::C4 && D.Layout != fb::Layout::PACKED)
    return Status::ok();
  const char *Name = fb::EnumNameLayout(D.Layout);
  if (!Target.GpuLayouts)
    return invalidModel("layout ", Name, " in a ", Target.Name,
                        " file (only GPU files have it)");
  if (D.Layout == fb::Layout::C4) {
    if (D.isConstant())
      return invalidModel("a C4 constant (C4 is for activations)");
    if (D.rank() != 4)
      return invalidModel("a C4 tensor of rank ", D.rank(), " (C4 is [N,H,W,C])");
    return Status::ok();
  }
  if (!D.isConstant())
    return invalidModel("a PACKED activation (PACKED is for constants)");
  uint64_t Stored = M.buffers()->Get(unsigned(D.Buffer))->size();
  if (Stored < D.Bytes || Stored % dtypeSize(D.DType) != 0)
    return invalidModel("PACKED segment ", D.Buffer, " holds ", Stored,
                        " bytes, expected at least ", D.Bytes,
                        " in whole elements");
  return Status::ok();
}

/// Tensor.symbolic_dims (1.9): one entry per -1 dim, by increasing axis,
/// naming a symbol of Model.symbols with a factor >= 1; activations only.
Status describeSymbolicDims(const fb::Tensor &T, size_t NumSymbols,
                            std::vector<SymbolicDimDesc> &Out) {
  const auto *Dims = T.symbolic_dims();
  if (!Dims || Dims->size() == 0)
    return Status::ok();
  if (T.buffer() != -1)
    return invalidModel("a constant with symbolic dims");
  int64_t Rank = T.shape() ? int64_t(T.shape()->size()) : 0;
  for (unsigned K = 0; K < Dims->size(); ++K) {
    const fb::SymbolicDim *D = Dims->Get(K);
    if (D->axis() < 0 || D->axis() >= Rank ||
        (K > 0 && D->axis() <= Out.back().Axis))
      return invalidModel("symbolic dim ", K, " has axis ", D->axis(),
                          " (axes increase, below the rank ", Rank, ")");
    if (D->symbol() < 0 || size_t(D->symbol()) >= NumSymbols)
      return invalidModel("symbolic dim ", K, " names symbol ", D->symbol(),
                          " of ", NumSymbols);
    if (D->factor() < 1 || uint64_t(D->factor()) > limits::MaxTensorBytes)
      return invalidModel("symbolic dim ", K, " has the factor ", D->factor());
    if (T.shape()->Get(unsigned(D->axis())) != -1)
      return invalidModel("symbolic dim ", K, ": dim ", D->axis(), " is ",
                          T.shape()->Get(unsigned(D->axis())),
                          ", not -1");
    Out.push_back({D->axis(), D->symbol(), D->factor()});
  }
  return Status::ok();
}

Status describeTensor(const fb::Model &M, const TargetRules &Target, unsigned I,
                      const ModelBytes &Bytes,
                      const std::vector<int64_t> &SymbolSizes,
                      std::vector<SymbolicDimDesc> &Symbolic, TensorDesc &D) {
  const fb::Tensor *T = M.tensors()->Get(I);
  D.Name = str(T->name());
  D.DType = T->dtype();
  D.Layout = T->layout();
  size_t ElemSize = dtypeSize(D.DType);
  if (ElemSize == 0)
    return invalidModel("tensor ", I, " '", D.Name, "' has an unknown element "
                        "type ", static_cast<int>(D.DType));
  if (static_cast<int>(D.Layout) < 0 ||
      D.Layout > fb::Layout::MAX)
    return invalidModel("tensor ", I, " '", D.Name, "' has an unknown layout ",
                        static_cast<int>(D.Layout));
  // The product of the non-zero dims is bounded too, so that no stride a
  // kernel computes can overflow, even for an empty tensor.
  uint64_t Elements = 1, NonZero = 1;
  if (Status S = checkAligned(T->shape(), "the shape"))
    return S.withContext(concat("tensor ", I, " '", D.Name, "'"));
  if (const auto *Shape = T->shape()) {
    if (Shape->size() > limits::MaxRank)
      return invalidModel("tensor ", I, " '", D.Name, "' has rank ",
                          Shape->size(), " (at most ", limits::MaxRank, ")");
    if (Status S = describeSymbolicDims(*T, SymbolSizes.size(), Symbolic))
      return S.withContext(concat("tensor ", I, " '", D.Name, "'"));
    size_t NextSymbolic = 0;
    for (int64_t Dim : *Shape) {
      if (NextSymbolic < Symbolic.size() &&
          size_t(Symbolic[NextSymbolic].Axis) == D.Shape.size()) {
        const SymbolicDimDesc &S = Symbolic[NextSymbolic++];
        if (__builtin_mul_overflow(S.Factor, SymbolSizes[size_t(S.Symbol)],
                                   &Dim) ||
            uint64_t(Dim) > limits::MaxTensorBytes)
          return invalidModel("tensor ", I, " '", D.Name, "' is too large at ",
                              M.symbols()->Get(unsigned(S.Symbol))->str(), "=",
                              SymbolSizes[size_t(S.Symbol)]);
      }
      if (Dim < 0)
        return invalidModel("tensor ", I, " '", D.Name, "' has a negative dim ",
                            Dim);
      D.Shape.push_back(Dim);
      if (Dim == 0) {
        Elements = 0;
        continue;
      }
      if (__builtin_mul_overflow(NonZero, uint64_t(Dim), &NonZero) ||
          NonZero > limits::MaxTensorBytes)
        return invalidModel("tensor ", I, " '", D.Name, "' is too large ",
                            shapeString(D.Shape), "...");
      Elements *= uint64_t(Dim);
    }
  }
  D.Elements = Elements;
  D.Bytes = Elements * ElemSize;
  if (Status S = describeQuantization(*T, D))
    return S.withContext(concat("tensor ", I, " '", D.Name, "'"));
  if (Status S = describeBlocked(*T, D))
    return S.withContext(concat("tensor ", I, " '", D.Name, "'"));
  if (D.Bytes > limits::MaxTensorBytes)
    return invalidModel("tensor ", I, " '", D.Name, "' is too large (",
                        D.Bytes, " bytes)");
  D.Buffer = T->buffer();
  if (D.Buffer == -1)
    return checkGpuLayout(M, Target, D)
        .withContextIfError(concat("tensor ", I, " '", D.Name, "'"));
  unsigned NumBuffers = M.buffers() ? M.buffers()->size() : 0;
  if (D.Buffer < 0 || unsigned(D.Buffer) >= NumBuffers)
    return invalidModel("tensor ", I, " '", D.Name, "' names buffer ",
                        D.Buffer, " of ", NumBuffers);
  const fb::Buffer *B = M.buffers()->Get(unsigned(D.Buffer));
  if (D.Layout == fb::Layout::PACKED || D.Layout == fb::Layout::C4) {
    if (Status S = checkGpuLayout(M, Target, D))
      return S.withContext(concat("tensor ", I, " '", D.Name, "'"));
    D.StoredBytes = B->size();
    D.ConstData = Bytes.data() + B->offset();
    return Status::ok();
  }
  uint64_t Stored = D.Blocked ? D.StoredBytes : D.Bytes;
  if (B->size() != Stored)
    return invalidModel("tensor ", I, " '", D.Name, "' is ",
                        dtypeName(D.DType), shapeString(D.Shape), " (",
                        Stored, D.Blocked ? " bytes, blocked" : " bytes",
                        ") but buffer ", D.Buffer, " holds ", B->size(),
                        " bytes");
  D.ConstData = Bytes.data() + B->offset(); // bounds checked by checkBuffers
  return Status::ok();
}

Status readIndices(const flatbuffers::Vector<int32_t> *V, size_t NumTensors,
                   const char *What, std::vector<int32_t> &Out) {
  if (!V)
    return Status::ok();
  for (int32_t X : *V) {
    if (X < 0 || size_t(X) >= NumTensors)
      return invalidModel(What, " names tensor ", X, " of ", NumTensors);
    Out.push_back(X);
  }
  return Status::ok();
}

/// Operator-level structure: indices, single writer, inputs defined earlier.
/// Defined[t] is true once tensor t has a value.
Status checkOperator(const LoadedModel &LM, unsigned I,
                     std::vector<char> &Defined) {
  const fb::Operator &Op = LM.op(I);
  fb::OpKind Kind = Op.kind();
  std::string Where = concat("operator ", I, " (", opKindName(Kind),
                             Op.name() ? " '" + str(Op.name()) + "'" : "", ")");
  if (Kind == fb::OpKind::UNKNOWN || Kind > fb::OpKind::MAX)
    return unsupported(Where, ": unknown operator kind ", static_cast<int>(Kind),
                       "; the file may need a newer kiln runtime");
  if (Op.engine() > fb::Engine::MAX)
    return invalidModel(Where, ": unknown engine ", static_cast<int>(Op.engine()));
  if (Op.options_type() != expectedOptions(Kind))
    return invalidModel(Where, ": wrong options table (type ",
                        static_cast<int>(Op.options_type()), ")");
  if (Op.options_type() != fb::OpOptions::NONE && !Op.options())
    return invalidModel(Where, ": the options table is missing");
  size_t NumTensors = LM.Tensors.size();
  OpView View{Op, {}, {}};
  if (Op.inputs()) {
    if (Op.inputs()->size() > limits::MaxOperatorInputs)
      return invalidModel(Where, ": too many inputs");
    for (int32_t X : *Op.inputs()) {
      if (X == -1) {
        View.In.push_back(nullptr);
        continue;
      }
      if (X < 0 || size_t(X) >= NumTensors)
        return invalidModel(Where, ": input names tensor ", X, " of ",
                            NumTensors);
      if (!Defined[size_t(X)])
        return invalidModel(Where, ": input tensor ", X, " '",
                            LM.Tensors[size_t(X)].Name,
                            "' is not computed before it is used (operators "
                            "out of order, or a cycle)");
      View.In.push_back(&LM.Tensors[size_t(X)]);
    }
  }
  if (Op.outputs()) {
    if (Op.outputs()->size() > limits::MaxOperatorInputs)
      return invalidModel(Where, ": too many outputs");
    for (int32_t X : *Op.outputs()) {
      if (X < 0 || size_t(X) >= NumTensors)
        return invalidModel(Where, ": output names tensor ", X, " of ",
                            NumTensors);
      if (Defined[size_t(X)])
        return invalidModel(Where, ": output tensor ", X, " '",
                            LM.Tensors[size_t(X)].Name,
                            "' already has a value (a constant, a graph input "
                            "or another operator's result)");
      Defined[size_t(X)] = 1;
      View.Out.push_back(&LM.Tensors[size_t(X)]);
    }
  }
  if (LM.Rules->PayloadRuns)
    return Status::ok(); // descriptive: the payload runs
  if (Status S = validateOperator(View))
    return S.withContext(Where);
  return Status::ok();
}

/// Each image input's description (TensorInfo.image, 1.10) against its
/// tensor: a known format, the frame's shape for that format, 1 or 3
/// channels and as many mean and std values, so that kiln_session_set_image
/// can trust it.
Status checkImageInputs(const LoadedModel &LM) {
  const fb::Metadata *MD = LM.Root->metadata();
  if (!MD || !MD->inputs())
    return Status::ok();
  for (unsigned I = 0; I < MD->inputs()->size(); ++I) {
    if (!MD->inputs()->Get(I)->image())
      continue;
    std::string Where = concat("image input ", I);
    const fb::ImageInputInfo *Img = LM.imageInput(I);
    if (!Img)
      return invalidModel(Where, ": the model has ", LM.Inputs.size(),
                          " graph inputs");
    const TensorDesc &T = LM.Tensors[size_t(LM.Inputs[I])];
    auto F = numerics::PixelFormat(Img->format());
    int Bytes = numerics::pixelBytes(F);
    if (Bytes == 0)
      return invalidModel(Where, ": unknown pixel format ", int(Img->format()));
    if (T.DType != fb::DType::U8 || T.rank() != 4 || T.dim(3) != Bytes)
      return invalidModel(Where, " '", T.Name, "' is not a ",
                          numerics::pixelFormatName(F), " frame [N, H, W, ",
                          Bytes, "] of u8");
    if (F == numerics::PixelFormat::Nv21 &&
        (T.dim(1) % 3 != 0 || (T.dim(1) / 3) % 2 != 0 || T.dim(2) % 2 != 0))
      return invalidModel(Where, " '", T.Name, "': nv21 needs H + H/2 rows "
                          "for an even H and an even width");
    int32_t C = Img->channels();
    if (C != 1 && C != 3)
      return invalidModel(Where, ": ", C, " channels (1 or 3)");
    for (const auto *V : {Img->mean(), Img->std()})
      if (V && V->size() != 1 && int32_t(V->size()) != C)
        return invalidModel(Where, ": ", V->size(), " mean or std values for ",
                            C, " channels");
  }
  return Status::ok();
}

void readMetadata(const fb::Model &M, std::map<std::string, std::string> &Out) {
  const fb::Metadata *MD = M.metadata();
  if (!MD)
    return;
  auto Put = [&](const char *Key, const flatbuffers::String *S) {
    if (S)
      Out[Key] = str(S);
  };
  Put("producer", MD->producer());
  Put("producer_version", MD->producer_version());
  Put("target", MD->target());
  Put("pipeline", MD->pipeline());
  Put("source_model", MD->source_model());
  Put("source_hash", MD->source_hash());
}

/// Model.symbols (1.9): non-empty, distinct names, only in CPU files (the
/// GPU and NNAPI payloads are compiled for one size).
Status readSymbols(const fb::Model &M, LoadedModel &LM) {
  if (!M.symbols() || M.symbols()->size() == 0)
    return Status::ok();
  if (M.symbols()->size() > limits::MaxSymbols)
    return invalidModel("too many symbols (", M.symbols()->size(), ", at most ",
                        limits::MaxSymbols, ")");
  if (!LM.Rules->Polymorphic)
    return invalidModel("symbolic dims in a ", LM.Rules->Name,
                        " file (only CPU files are batch-polymorphic)");
  for (const flatbuffers::String *Name : *M.symbols()) {
    std::string S = str(Name);
    if (S.empty() || std::find(LM.Symbols.begin(), LM.Symbols.end(), S) !=
                         LM.Symbols.end())
      return invalidModel("symbol names must be non-empty and distinct ('", S,
                          "')");
    LM.Symbols.push_back(S);
  }
  return Status::ok();
}

/// The target M is compiled for: its Model.target, or CPU for files before
/// schema 1.4 (all CPU files, written without one). Fails for a target the
/// catalog does not hold, for a 1.4 file without a target, and for a
/// payload that belongs to another target.
Status resolveTarget(const fb::Model &M, const TargetCatalog &Catalog,
                     const TargetRules *&Out) {
  fb::Target T = M.target();
  if (T == fb::Target::UNKNOWN) {
    if (M.schema_minor() >= 4)
      return invalidModel("the file names no target (schema ", M.schema_major(),
                          ".", M.schema_minor(), " files name one)");
    T = fb::Target::CPU; // before 1.4, every file was a CPU file
  }
  const TargetRules *R = Catalog.find(T);
  if (!R) {
    if (uint8_t(T) > uint8_t(fb::Target::MAX))
      return unsupported("the file is for target ", unsigned(T),
                         ", which this runtime does not know; it runs: ",
                         Catalog.Runnable, " (update the kiln runtime)");
    std::string Name = fb::EnumNameTarget(T);
    for (char &C : Name)
      C = char(std::tolower(static_cast<unsigned char>(C)));
    return unsupported("the file is for the ", Name,
                       " target, and this runtime runs only: ",
                       Catalog.Runnable, "; convert the model for one of "
                       "those, or use a runtime built with ", Name);
  }
  if (M.payload_type() != fb::TargetPayload::NONE &&
      M.payload_type() != R->Payload)
    return invalidModel("the payload (", fb::EnumNameTargetPayload(M.payload_type()),
                        ") is not the ", R->Name, " target's");
  if (M.schema_minor() >= 4 && M.payload_type() == fb::TargetPayload::NONE)
    return invalidModel("the file has no ", R->Name, " payload");
  Out = R;
  return Status::ok();
}

} // namespace

Status verifyModel(const TargetCatalog &Catalog,
                   std::shared_ptr<ModelBytes> Bytes,
                   const std::vector<int64_t> *Sizes,
                   std::shared_ptr<const LoadedModel> &Out) {
  if (Status S = verifyFlatBuffer(*Bytes))
    return S;
  auto LM = std::make_shared<LoadedModel>();
  LM->Root = fb::GetModel(Bytes->data());
  const fb::Model &M = *LM->Root;
  if (Status S = checkVersion(M))
    return S;
  if (Status S = resolveTarget(M, Catalog, LM->Rules))
    return S;
  LM->Target = LM->Rules->Value;
  if (Status S = checkBuffers(M, Bytes->size()))
    return S;
  if (Status S = readSymbols(M, *LM))
    return S;
  if (Sizes && Sizes->size() != LM->Symbols.size())
    return invalidArgument(Sizes->size(), " symbol sizes for a model with ",
                           LM->Symbols.size(), " symbols");
  LM->SymbolSizes =
      Sizes ? *Sizes : std::vector<int64_t>(LM->Symbols.size(), 1);

  size_t NumTensors = M.tensors() ? M.tensors()->size() : 0;
  if (NumTensors > limits::MaxTensors)
    return invalidModel("too many tensors (", NumTensors, ")");
  LM->Tensors.resize(NumTensors);
  LM->TensorSymbols.resize(LM->isPolymorphic() ? NumTensors : 0);
  std::vector<SymbolicDimDesc> Unused;
  for (unsigned I = 0; I < NumTensors; ++I) {
    Unused.clear();
    if (Status S = describeTensor(
            M, *LM->Rules, I, *Bytes, LM->SymbolSizes,
            LM->isPolymorphic() ? LM->TensorSymbols[I] : Unused,
            LM->Tensors[I]))
      return S;
  }

  if (Status S = readIndices(M.inputs(), NumTensors, "a graph input", LM->Inputs))
    return S;
  if (Status S =
          readIndices(M.outputs(), NumTensors, "a graph output", LM->Outputs))
    return S;
  // Each symbol's size is read off the graph inputs' shapes.
  for (size_t K = 0; K < LM->Symbols.size(); ++K) {
    bool Bound = false;
    for (int32_t X : LM->Inputs)
      for (const SymbolicDimDesc &D : LM->TensorSymbols[size_t(X)])
        Bound |= D.Symbol == int32_t(K);
    if (!Bound)
      return invalidModel("symbol '", LM->Symbols[K],
                          "' is in no graph input's shape");
  }
  std::vector<char> Defined(NumTensors, 0);
  for (size_t I = 0; I < NumTensors; ++I)
    Defined[I] = LM->Tensors[I].isConstant();
  for (int32_t X : LM->Inputs) {
    if (LM->Tensors[size_t(X)].isConstant())
      return invalidModel("graph input tensor ", X, " '",
                          LM->Tensors[size_t(X)].Name, "' is a constant");
    if (Defined[size_t(X)])
      return invalidModel("graph input tensor ", X, " is listed twice");
    Defined[size_t(X)] = 1;
  }

  size_t NumOps = LM->numOperators();
  if (NumOps > limits::MaxOperators)
    return invalidModel("too many operators (", NumOps, ")");
  for (unsigned I = 0; I < NumOps; ++I)
    if (Status S = checkOperator(*LM, I, Defined))
      return S;
  for (int32_t X : LM->Outputs) {
    if (!Defined[size_t(X)] && !LM->Rules->PartsCompute)
      return invalidModel("graph output tensor ", X, " '",
                          LM->Tensors[size_t(X)].Name,
                          "' is never computed");
    if (LM->Tensors[size_t(X)].Blocked) // callers read outputs in order
      return invalidModel("graph output tensor ", X, " '",
                          LM->Tensors[size_t(X)].Name, "' is BLOCKED");
  }
  if (Status S = checkImageInputs(*LM))
    return S;
  if (Status S = checkSelfTest(*LM))
    return S;
  LM->Bytes = std::move(Bytes); // a partitioned file's parts are slices
  if (LM->Rules->VerifyPayload)
    if (Status S = LM->Rules->VerifyPayload(M, *LM))
      return S;
  readMetadata(M, LM->Metadata);
  Out = std::move(LM);
  return Status::ok();
}

} // namespace kiln::rt

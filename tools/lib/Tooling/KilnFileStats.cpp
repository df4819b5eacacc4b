// Counting what a .kiln file holds. The file is verified by the runtime's
// own verifier first, so every index and offset used here is in range.
#include "Tooling/KilnFileStats.h"

#include "Support/Error.h"
#include "backends/Target.h"
#include "Support/FileSystem.h"
#include "schema/KilnSchemaVersion.h"

#include "kiln/kiln.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>

namespace kiln {

namespace {

int64_t elements(const std::vector<int64_t> &Shape) {
  int64_t N = 1;
  for (int64_t D : Shape)
    N *= D;
  return N;
}

uint64_t alignUp(uint64_t X) {
  return (X + fb::SegmentAlignment - 1) / fb::SegmentAlignment *
         fb::SegmentAlignment;
}

/// "BINARY.ADD" for BINARY and UNARY, else the kind's name.
std::string kindName(const fb::OperatorT &Op) {
  std::string K = fb::EnumNameOpKind(Op.kind);
  if (const auto *B = Op.options.AsBinaryOptions())
    return K + "." + fb::EnumNameBinaryOp(B->op);
  if (const auto *U = Op.options.AsUnaryOptions())
    return K + "." + fb::EnumNameUnaryOp(U->op);
  return K;
}

std::string engineName(fb::Engine E) {
  switch (E) {
  case fb::Engine::XNNPACK:
    return "xnnpack";
  case fb::Engine::REFERENCE:
    return "reference";
  default:
    return "any";
  }
}

/// Multiply-accumulates, from the shapes the file stores (NHWC).
int64_t operatorMacs(const fb::ModelT &M, const fb::OperatorT &Op) {
  auto Shape = [&](int32_t T) -> const std::vector<int64_t> & {
    static const std::vector<int64_t> None;
    return T >= 0 ? M.tensors[size_t(T)]->shape : None;
  };
  if (Op.inputs.empty() || Op.outputs.empty())
    return 0;
  const std::vector<int64_t> &In = Shape(Op.inputs[0]);
  int64_t OutElems = elements(Shape(Op.outputs[0]));
  switch (Op.kind) {
  case fb::OpKind::CONV_2D:
    if (const auto *C = Op.options.AsConv2DOptions())
      return OutElems * int64_t(C->kernel_height) * C->kernel_width *
             C->group_input_channels;
    return 0;
  case fb::OpKind::DECONV_2D:
    if (const auto *C = Op.options.AsDeconv2DOptions())
      return elements(In) * int64_t(C->kernel_height) * C->kernel_width *
             C->group_output_channels;
    return 0;
  case fb::OpKind::FULLY_CONNECTED:
  case fb::OpKind::MATMUL:
    return In.empty() ? 0 : OutElems * In.back();
  case fb::OpKind::LSTM: // per step and row: 4H gates of I inputs and H states
    if (const auto *L = Op.options.AsLstmOptions())
      return In.size() == 3 ? OutElems * 4 * (In[2] + L->hidden_size) : 0;
    return 0;
  case fb::OpKind::GRU: // per step and row: 3H gates of I inputs and H states
    if (const auto *G = Op.options.AsGruOptions())
      return In.size() == 3 ? OutElems * 3 * (In[2] + G->hidden_size) : 0;
    return 0;
  case fb::OpKind::MAX_POOL_2D:
  case fb::OpKind::AVERAGE_POOL_2D:
    if (const auto *P = Op.options.AsPool2DOptions())
      return OutElems * int64_t(P->kernel_height) * P->kernel_width;
    return 0;
  case fb::OpKind::GLOBAL_AVERAGE_POOL_2D:
  case fb::OpKind::GLOBAL_MAX_POOL_2D:
    return elements(In);
  case fb::OpKind::LAYER_NORM:
    return OutElems;
  default:
    return 0;
  }
}

KilnSizeBreakdown sizeBreakdown(const fb::ModelT &M, uint64_t FileBytes) {
  KilnSizeBreakdown S;
  S.FileBytes = FileBytes;
  // The FlatBuffer's own length is not stored; the writer packs the same
  // object tree with defaults forced, so packing it again measures it.
  flatbuffers::FlatBufferBuilder B(1 << 16);
  B.ForceDefaults(true);
  B.Finish(fb::Model::Pack(B, &M), fb::ModelIdentifier());
  uint64_t FirstSegment = FileBytes, SegmentsEnd = 0;
  for (const auto &Buf : M.buffers) {
    S.SegmentBytes += Buf->size;
    ++S.SegmentCount;
    FirstSegment = std::min<uint64_t>(FirstSegment, Buf->offset);
    SegmentsEnd = std::max<uint64_t>(SegmentsEnd, Buf->offset + Buf->size);
  }
  // SPIR-V words and MSL source live inside the FlatBuffer; they are
  // reported on their own line, so the parts still add up to the file.
  S.TargetBlobBytes = kilnTargetBlobBytes(M);
  S.FlatBufferBytes = std::min<uint64_t>(B.GetSize(), FirstSegment);
  S.FlatBufferBytes -= std::min(S.FlatBufferBytes, S.TargetBlobBytes);
  if (S.SegmentCount && alignUp(SegmentsEnd) <= FileBytes)
    S.TailBytes = FileBytes - alignUp(SegmentsEnd);
  S.PaddingBytes = FileBytes - S.FlatBufferBytes - S.TargetBlobBytes -
                   S.SegmentBytes - S.TailBytes;
  return S;
}

} // namespace

uint64_t kilnTargetBlobBytes(const fb::ModelT &M) {
  uint64_t N = 0;
  if (const auto *V = M.payload.AsVulkanPayload())
    for (const auto &Sh : V->shaders)
      N += Sh->spirv.size() * sizeof(uint32_t);
  if (const auto *Mt = M.payload.AsMetalPayload())
    for (const auto &K : Mt->kernels)
      N += K->msl.size();
  return N;
}

std::string kilnDTypeName(fb::DType T) {
  return llvm::StringRef(fb::EnumNameDType(T)).lower();
}

std::string describeKilnTensor(const fb::TensorT &T,
                               const std::vector<std::string> &Symbols) {
  std::string S = kilnDTypeName(T.dtype) + "[";
  for (size_t I = 0; I < T.shape.size(); ++I) {
    std::string Dim = std::to_string(T.shape[I]);
    for (const auto &D : T.symbolic_dims)
      if (D->axis == int32_t(I)) {
        bool Named = D->symbol >= 0 && size_t(D->symbol) < Symbols.size();
        Dim = (D->factor == 1 ? "" : std::to_string(D->factor)) +
              (Named ? Symbols[size_t(D->symbol)] : "?");
      }
    S += (I ? "," : "") + Dim;
  }
  return S + "] " + fb::EnumNameLayout(T.layout);
}

namespace {

/// Sets every symbolic dim of M to its size with each symbol at 1 and
/// returns the shapes it replaced, for restoreShapes.
std::vector<std::vector<int64_t>> shapesAtOne(fb::ModelT &M) {
  std::vector<std::vector<int64_t>> Saved;
  for (auto &T : M.tensors) {
    Saved.push_back(T->shape);
    for (const auto &D : T->symbolic_dims)
      if (D->axis >= 0 && size_t(D->axis) < T->shape.size())
        T->shape[size_t(D->axis)] = D->factor;
  }
  return Saved;
}

void restoreShapes(fb::ModelT &M, std::vector<std::vector<int64_t>> &Saved) {
  for (size_t I = 0; I < M.tensors.size(); ++I)
    M.tensors[I]->shape = std::move(Saved[I]);
}

} // namespace

llvm::Expected<KilnFileStats> readKilnFileStats(llvm::StringRef Path) {
  auto Bytes = mapFile(Path);
  if (!Bytes)
    return Bytes.takeError();
  llvm::StringRef Data = (*Bytes)->getBuffer();
  // A valid file this runtime cannot run (another target, a newer schema)
  // is not a corrupt one: say which.
  if (kiln_status St = kiln_verify_buffer(Data.data(), Data.size()))
    return inputError("{0}: {1}: {2}", Path,
                      St == KILN_ERROR_UNSUPPORTED
                          ? "this kiln cannot read the file"
                          : "not a valid .kiln file",
                      kiln_last_error());
  fb::ModelT M;
  fb::GetModel(Data.data())->UnPackTo(&M);
  KilnFileStats S = kilnFileStatsOf(std::move(M), Path.str(), Data.size());
  // A partitioned file: each part is a verified file at its segment.
  if (const fb::PartitionedPayloadT *P = S.Model.payload.AsPartitionedPayload()) {
    for (size_t I = 0; I < P->partitions.size(); ++I) {
      const fb::BufferT &B = *S.Model.buffers[size_t(P->partitions[I]->file)];
      fb::ModelT Part;
      fb::GetModel(Data.data() + B.offset)->UnPackTo(&Part);
      S.Parts.push_back(kilnFileStatsOf(
          std::move(Part), Path.str() + " partition " + std::to_string(I),
          B.size));
    }
    for (int32_t I : P->schedule) {
      const KilnFileStats &Part = S.Parts[size_t(I)];
      for (const auto &[Kind, E] : Part.OpHistogram)
        for (const auto &[Engine, N] : E)
          S.OpHistogram[Kind][Engine] += N;
      for (const auto &[Type, PT] : Part.ParamsByType) {
        S.ParamsByType[Type].first += PT.first;
        S.ParamsByType[Type].second += PT.second;
      }
      for (KilnOperatorStats O : Part.Operators) {
        O.Part = I;
        S.Operators.push_back(O);
      }
      S.TotalMacs += Part.TotalMacs;
    }
  }
  return S;
}

KilnFileStats kilnFileStatsOf(fb::ModelT Model, std::string Path,
                              uint64_t FileBytes) {
  KilnFileStats S;
  S.Path = std::move(Path);
  S.Model = std::move(Model);
  S.Size = sizeBreakdown(S.Model, FileBytes);
  const fb::ModelT &M = S.Model;
  // Shapes are logical for every layout: a PACKED or BLOCKED constant's
  // segment may be longer than its elements (padding, kernel order), and a
  // C4 activation lists NHWC dims; nothing here reads the bytes.
  for (const auto &T : M.tensors)
    if (T->buffer >= 0) {
      auto &P = S.ParamsByType[kilnDTypeName(T->dtype)];
      P.first += elements(T->shape);
      P.second += int64_t(M.buffers[size_t(T->buffer)]->size);
    }
  // A GPU file's operators leave Operator.engine at ANY: the target runs
  // them all.
  const Target *FileTarget = findTargetOfFile(int(M.target));
  const char *Gpu = FileTarget && FileTarget->Inspect.RunsEveryOperator
                        ? FileTarget->Name
                        : nullptr;
  // A batch-polymorphic file's MACs are those of one sample (each symbol 1).
  auto Saved = shapesAtOne(S.Model);
  for (const auto &Op : M.operators) {
    KilnOperatorStats OS;
    OS.Op = Op.get();
    OS.Kind = kindName(*Op);
    OS.Engine = Gpu ? Gpu : engineName(Op->engine);
    OS.Macs = operatorMacs(M, *Op);
    for (int32_t In : Op->inputs)
      if (In >= 0 && M.tensors[size_t(In)]->buffer >= 0)
        OS.Params += elements(M.tensors[size_t(In)]->shape);
    ++S.OpHistogram[OS.Kind][OS.Engine];
    S.TotalMacs += OS.Macs;
    S.Operators.push_back(std::move(OS));
  }
  restoreShapes(S.Model, Saved);
  return S;
}

} // namespace kiln

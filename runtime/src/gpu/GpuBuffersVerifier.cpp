#include "gpu/GpuBuffersVerifier.h"

#include "gpu/GpuLimits.h"
#include "loader/LoadedModel.h"
#include "loader/Limits.h"
#include "loader/TensorDesc.h"

namespace kiln::rt {

namespace {

const char *kindName(fb::VulkanBufferKind K) {
  return K <= fb::VulkanBufferKind::MAX ? fb::EnumNameVulkanBufferKind(K) : "?";
}

} // namespace

Status verifyGpuIo(const LoadedModel &LM) {
  for (const auto *Io : {&LM.Inputs, &LM.Outputs})
    for (size_t I = 0; I < Io->size(); ++I) {
      int32_t X = (*Io)[I];
      const TensorDesc &D = LM.Tensors[size_t(X)];
      const char *What = Io == &LM.Inputs ? "graph input" : "graph output";
      bool Frame = Io == &LM.Inputs && D.DType == fb::DType::U8 &&
                   LM.imageInput(I);
      // Token ids: the index kernels read them in place (int_index.glsl).
      bool Integer = Io == &LM.Inputs && (D.DType == fb::DType::I64 ||
                                          D.DType == fb::DType::I32);
      if (D.DType != fb::DType::F32 && !Frame && !Integer)
        return invalidModel(What, " tensor ", X, " '", D.Name, "' is ",
                            dtypeName(D.DType),
                            " (a GPU file's are f32, image inputs u8 and "
                            "integer inputs i64 or i32)");
      if (D.Layout == fb::Layout::C4 || D.Layout == fb::Layout::PACKED)
        return invalidModel(What, " tensor ", X, " '", D.Name, "' is ",
                            fb::EnumNameLayout(D.Layout),
                            " (a GPU file's keep their logical layout)");
    }
  return Status::ok();
}

Status verifyGpuBuffers(const fb::Model &M, const GpuBuffers *Buffers,
                        const std::vector<TensorDesc> &Tensors,
                        const char *Api) {
  size_t N = Buffers ? Buffers->size() : 0;
  if (N > limits::MaxVulkanBuffers)
    return invalidModel("too many ", Api, " buffers (", N, ")");
  size_t NumSegments = M.buffers() ? M.buffers()->size() : 0;
  size_t NumIn = M.inputs() ? M.inputs()->size() : 0;
  size_t NumOut = M.outputs() ? M.outputs()->size() : 0;
  std::vector<int> InputBuffers(NumIn, 0), OutputBuffers(NumOut, 0);
  for (unsigned I = 0; I < N; ++I) {
    const fb::VulkanBuffer *B = Buffers->Get(I);
    fb::VulkanBufferKind K = B->kind();
    std::string Where = concat(Api, " buffer ", I, " (", kindName(K), ")");
    if (K > fb::VulkanBufferKind::MAX)
      return invalidModel(Api, " buffer ", I, ": unknown kind ",
                          unsigned(K));
    if (B->size() == 0 || B->size() > limits::MaxVulkanBufferBytes)
      return invalidModel(Where, ": size ", B->size(), " is outside [1, ",
                          limits::MaxVulkanBufferBytes, "]");
    size_t NumUploads = B->uploads() ? B->uploads()->size() : 0;
    if (NumUploads && K != fb::VulkanBufferKind::WEIGHTS)
      return invalidModel(Where, ": only WEIGHTS buffers have uploads");
    for (unsigned U = 0; U < NumUploads; ++U) {
      const fb::VulkanUpload *Up = B->uploads()->Get(U);
      if (Up->segment() >= NumSegments)
        return invalidModel(Where, ": upload ", U, " names segment ",
                            Up->segment(), " of ", NumSegments);
      uint64_t Bytes = M.buffers()->Get(Up->segment())->size();
      if (!insideBuffer(Up->offset(), Bytes, B->size()))
        return invalidModel(Where, ": upload ", U, " (segment ", Up->segment(),
                            ", ", Bytes, " bytes at offset ", Up->offset(),
                            ") is outside the buffer (", B->size(), " bytes)");
    }
    bool IsIn = K == fb::VulkanBufferKind::INPUT;
    bool IsOut = K == fb::VulkanBufferKind::OUTPUT;
    if (!IsIn && !IsOut) {
      if (B->io_index() != -1)
        return invalidModel(Where, ": io_index ", B->io_index(),
                            " on a buffer that is no INPUT or OUTPUT");
      continue;
    }
    size_t NumIo = IsIn ? NumIn : NumOut;
    if (B->io_index() < 0 || size_t(B->io_index()) >= NumIo)
      return invalidModel(Where, ": io_index ", B->io_index(), " names none of ",
                          NumIo, IsIn ? " graph inputs" : " graph outputs");
    size_t Io = size_t(B->io_index());
    int &Count = IsIn ? InputBuffers[Io] : OutputBuffers[Io];
    if (++Count > 1)
      return invalidModel(Where, ": graph ", IsIn ? "input " : "output ", Io,
                          " has more than one buffer");
    const TensorDesc &D = Tensors[size_t(
        IsIn ? M.inputs()->Get(unsigned(Io)) : M.outputs()->Get(unsigned(Io)))];
    if (B->size() != D.Bytes)
      return invalidModel(Where, ": ", B->size(), " bytes, but graph ",
                          IsIn ? "input " : "output ", Io, " '", D.Name,
                          "' takes ", D.Bytes);
  }
  for (size_t Io = 0; Io < NumIn; ++Io)
    if (!InputBuffers[Io])
      return invalidModel("graph input ", Io, " has no INPUT buffer");
  for (size_t Io = 0; Io < NumOut; ++Io)
    if (!OutputBuffers[Io])
      return invalidModel("graph output ", Io, " has no OUTPUT buffer");
  return Status::ok();
}

Status verifyGpuPlaces(const GpuBuffers *Buffers, const GpuPlaces *Places,
                       const std::vector<TensorDesc> &Tensors, bool Fp16,
                       const char *Api) {
  if (!Places)
    return Status::ok();
  size_t NumBuffers = Buffers ? Buffers->size() : 0;
  for (unsigned I = 0; I < Places->size(); ++I) {
    const fb::VulkanTensorPlace *Pl = Places->Get(I);
    std::string Where = concat(Api, " place ", I);
    if (Pl->tensor() < 0 || size_t(Pl->tensor()) >= Tensors.size())
      return invalidModel(Where, ": tensor ", Pl->tensor(), " of ",
                          Tensors.size());
    const TensorDesc &D = Tensors[size_t(Pl->tensor())];
    if (D.isConstant())
      return invalidModel(Where, ": tensor ", Pl->tensor(), " '", D.Name,
                          "' is a constant");
    if (Pl->buffer() >= NumBuffers)
      return invalidModel(Where, ": buffer ", Pl->buffer(), " of ", NumBuffers);
    uint64_t Size = Buffers->Get(Pl->buffer())->size();
    if (!insideBuffer(Pl->offset(), Pl->size(), Size))
      return invalidModel(Where, " (offset ", Pl->offset(), ", size ",
                          Pl->size(), ") is outside buffer ", Pl->buffer(),
                          " (", Size, " bytes)");
    uint64_t Need = vulkanPlaceBytes(D, Fp16);
    if (Pl->size() < Need)
      return invalidModel(Where, ": ", Pl->size(), " bytes, but tensor ",
                          Pl->tensor(), " '", D.Name, "' takes ", Need);
  }
  return Status::ok();
}

size_t vulkanElementSize(const TensorDesc &D, bool Fp16) {
  bool Float = D.DType == fb::DType::F32 || D.DType == fb::DType::F16;
  return Fp16 && Float ? 2 : dtypeSize(D.DType);
}

uint64_t vulkanPlaceBytes(const TensorDesc &D, bool Fp16) {
  uint64_t Elements = D.Elements;
  if (D.Layout == fb::Layout::C4 && D.rank() == 4 && D.dim(3) > 0)
    Elements = Elements / uint64_t(D.dim(3)) * ((uint64_t(D.dim(3)) + 3) / 4 * 4);
  return Elements * vulkanElementSize(D, Fp16);
}

Status verifyGpuBinding(const GpuBuffers *Buffers, unsigned I,
                        const fb::VulkanBinding &B) {
  size_t NumBuffers = Buffers ? Buffers->size() : 0;
  if (B.buffer() >= NumBuffers)
    return invalidModel("binding ", I, " names buffer ", B.buffer(), " of ",
                        NumBuffers);
  uint64_t Size = Buffers->Get(B.buffer())->size();
  if (B.size() == 0)
    return invalidModel("binding ", I, " is empty (size 0)");
  if (!insideBuffer(B.offset(), B.size(), Size))
    return invalidModel("binding ", I, " (offset ", B.offset(), ", size ",
                        B.size(), ") is outside buffer ", B.buffer(), " (",
                        Size, " bytes)");
  return Status::ok();
}

Status verifyGpuGridAndOperator(const fb::Model &M, const uint32_t Groups[3],
                                int32_t Operator, const char *What) {
  for (unsigned K = 0; K < 3; ++K)
    if (Groups[K] < 1 || Groups[K] > limits::MaxVulkanGroupCount)
      return invalidModel(What, " ", "xyz"[K], " is ", Groups[K],
                          ", outside [1, ", limits::MaxVulkanGroupCount, "]");
  size_t NumOps = M.operators() ? M.operators()->size() : 0;
  if (Operator < -1 || (Operator >= 0 && size_t(Operator) >= NumOps))
    return invalidModel("operator ", Operator, " of ", NumOps);
  return Status::ok();
}

Status verifyGpuWorkgroup(const uint64_t Local[3], const char *What) {
  uint64_t Product = 1;
  for (unsigned K = 0; K < 3; ++K) {
    if (Local[K] < 1 || Local[K] > limits::MaxWorkgroupSize[K])
      return invalidModel(What, " ", "xyz"[K], " is ", Local[K], ", outside [1, ",
                          limits::MaxWorkgroupSize[K], "]");
    Product *= Local[K];
  }
  if (Product > limits::MaxWorkgroupInvocations)
    return invalidModel(What, " of ", Product, " invocations (at most ",
                        limits::MaxWorkgroupInvocations, ")");
  return Status::ok();
}

Status verifyGpuInvocations(const uint32_t Groups[3], const uint64_t Local[3],
                            uint64_t BoundBytes, const char *What) {
  // Groups are at most 65535 each and a workgroup at most 128: no overflow.
  uint64_t Invocations = uint64_t(Groups[0]) * Groups[1] * Groups[2] *
                         Local[0] * Local[1] * Local[2];
  if (Invocations > BoundBytes + limits::InvocationSlack)
    return invalidModel(What, " runs ", Invocations, " invocations (",
                        Groups[0], " x ", Groups[1], " x ", Groups[2],
                        " groups of ", Local[0] * Local[1] * Local[2],
                        ") for ", BoundBytes, " bound bytes: more work than "
                        "its tensors need");
  return Status::ok();
}

} // namespace kiln::rt

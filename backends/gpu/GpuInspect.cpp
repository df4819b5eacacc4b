// The parts of the Vulkan and Metal sections of `kiln inspect` that are the
// same. Indices are checked, so that a hand-built model (tests) prints
// rather than reading out of range.
#include "backends/gpu/GpuInspect.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>

namespace kiln {

namespace {

std::string kindName(fb::VulkanBufferKind K) {
  return llvm::StringRef(fb::EnumNameVulkanBufferKind(K)).lower();
}

/// The graph input or output a buffer holds: "input 0 (x)".
std::string ioText(const fb::ModelT &M, const fb::VulkanBufferT &B) {
  bool In = B.kind == fb::VulkanBufferKind::INPUT;
  const std::vector<int32_t> &Io = In ? M.inputs : M.outputs;
  std::string R = std::string(In ? "input " : "output ") + std::to_string(B.io_index);
  if (B.io_index >= 0 && size_t(B.io_index) < Io.size() && Io[size_t(B.io_index)] >= 0 &&
      size_t(Io[size_t(B.io_index)]) < M.tensors.size())
    R += " (" + M.tensors[size_t(Io[size_t(B.io_index)])]->name + ")";
  return R;
}

uint64_t uploadedBytes(const fb::ModelT &M, const fb::VulkanBufferT &B) {
  uint64_t N = 0;
  for (const fb::VulkanUpload &U : B.uploads)
    if (U.segment() < M.buffers.size())
      N += M.buffers[U.segment()]->size;
  return N;
}

} // namespace

GpuBufferTotals gpuBufferTotals(const fb::ModelT &M, const GpuBuffers &Buffers) {
  GpuBufferTotals T;
  for (const auto &B : Buffers) {
    switch (B->kind) {
    case fb::VulkanBufferKind::ARENA:
      T.ArenaBytes += B->size;
      break;
    case fb::VulkanBufferKind::WEIGHTS:
      T.WeightsBytes += B->size;
      T.UploadedBytes += uploadedBytes(M, *B);
      break;
    case fb::VulkanBufferKind::INPUT:
      T.InputBytes += B->size;
      break;
    case fb::VulkanBufferKind::OUTPUT:
      T.OutputBytes += B->size;
      break;
    }
  }
  return T;
}

std::string gpuOperatorName(const fb::ModelT &M, int32_t Op) {
  if (Op < 0)
    return "-";
  if (size_t(Op) >= M.operators.size())
    return "op#" + std::to_string(Op) + "?";
  const std::string &Name = M.operators[size_t(Op)]->name;
  return Name.empty() ? "op#" + std::to_string(Op) : Name;
}

std::optional<uint32_t> gpuConstant(const std::vector<fb::VulkanSpecConstant> &C,
                                    uint32_t Id) {
  for (const fb::VulkanSpecConstant &K : C)
    if (K.id() == Id)
      return K.value();
  return std::nullopt;
}

std::string gpuConstantsText(const std::vector<fb::VulkanSpecConstant> &C,
                                  uint32_t FirstId) {
  std::string R;
  for (const fb::VulkanSpecConstant &K : C)
    if (K.id() >= FirstId)
      R += (R.empty() ? "" : " ") + std::to_string(K.id()) + "=" +
           std::to_string(K.value());
  return R.empty() ? "-" : R;
}

llvm::json::Array gpuConstantsJson(const std::vector<fb::VulkanSpecConstant> &C,
                                        uint32_t FirstId) {
  llvm::json::Array R;
  for (const fb::VulkanSpecConstant &K : C)
    if (K.id() >= FirstId)
      R.push_back(llvm::json::Object{{"id", int64_t(K.id())},
                                     {"value", int64_t(K.value())}});
  return R;
}

std::string gpuBindingsText(const std::vector<fb::VulkanBinding> &Bindings) {
  std::string R;
  for (const fb::VulkanBinding &B : Bindings)
    R += (R.empty() ? "" : " ") + std::string("buf#") +
         std::to_string(B.buffer()) + "[" + std::to_string(B.offset()) +
         ", +" + std::to_string(B.size()) + "]";
  return R.empty() ? "-" : R;
}

llvm::json::Array gpuBindingsJson(const std::vector<fb::VulkanBinding> &Bindings) {
  llvm::json::Array R;
  for (const fb::VulkanBinding &B : Bindings)
    R.push_back(llvm::json::Object{{"buffer", int64_t(B.buffer())},
                                   {"offset", int64_t(B.offset())},
                                   {"size", int64_t(B.size())}});
  return R;
}

std::string gpuTripleText(uint32_t X, uint32_t Y, uint32_t Z) {
  return "[" + std::to_string(X) + "," + std::to_string(Y) + "," +
         std::to_string(Z) + "]";
}

std::string gpuPad(std::string S, size_t Width) {
  if (S.size() < Width)
    S.append(Width - S.size(), ' ');
  return S;
}

std::string gpuPadLeft(const std::string &S, size_t Width) {
  return S.size() < Width ? std::string(Width - S.size(), ' ') + S : S;
}

void gpuTable(llvm::raw_ostream &OS, const std::vector<std::string> &Head,
              const std::vector<std::vector<std::string>> &Rows,
              const std::vector<size_t> &RightAligned) {
  std::vector<size_t> W(Head.size());
  for (size_t C = 0; C < Head.size(); ++C) {
    W[C] = Head[C].size();
    for (const auto &R : Rows)
      W[C] = std::max(W[C], R[C].size());
  }
  auto Cell = [&](const std::vector<std::string> &R, size_t C) {
    return std::find(RightAligned.begin(), RightAligned.end(), C) !=
                   RightAligned.end()
               ? gpuPadLeft(R[C], W[C])
               : gpuPad(R[C], W[C]);
  };
  auto Line = [&](const std::vector<std::string> &R) {
    std::string L = "    " + Cell(R, 0);
    for (size_t C = 1; C + 1 < R.size(); ++C)
      L += "  " + Cell(R, C);
    L += "  " + R.back();
    OS << L << "\n";
  };
  Line(Head);
  for (const auto &R : Rows)
    Line(R);
}

void gpuBuffersText(llvm::raw_ostream &OS, const fb::ModelT &M,
                    const GpuBuffers &Buffers, size_t Places) {
  OS << "  buffers: " << Buffers.size() << "\n";
  for (size_t I = 0; I < Buffers.size(); ++I) {
    const fb::VulkanBufferT &B = *Buffers[I];
    OS << "    " << gpuPad("buf#" + std::to_string(I), 6) << "  "
       << gpuPad(kindName(B.kind), 7) << "  "
       << gpuPadLeft(std::to_string(B.size), 10) << " B";
    if (B.kind == fb::VulkanBufferKind::WEIGHTS)
      OS << "  " << B.uploads.size()
         << (B.uploads.size() == 1 ? " upload (" : " uploads (")
         << uploadedBytes(M, B) << " B of segments)";
    else if (B.kind != fb::VulkanBufferKind::ARENA)
      OS << "  " << ioText(M, B);
    OS << "\n";
  }
  OS << "  places: " << Places << " activations\n";
}

llvm::json::Array gpuBuffersJson(const fb::ModelT &M, const GpuBuffers &Buffers) {
  llvm::json::Array R;
  for (size_t I = 0; I < Buffers.size(); ++I) {
    const fb::VulkanBufferT &B = *Buffers[I];
    R.push_back(llvm::json::Object{{"index", int64_t(I)},
                                   {"kind", kindName(B.kind)},
                                   {"size", int64_t(B.size)},
                                   {"uploads", int64_t(B.uploads.size())},
                                   {"upload_bytes", int64_t(uploadedBytes(M, B))},
                                   {"io_index", int64_t(B.io_index)}});
  }
  return R;
}

void gpuBytesText(llvm::raw_ostream &OS, llvm::StringRef KernelLabel,
                  uint64_t KernelBytes, const GpuBufferTotals &T) {
  auto Row = [&](llvm::StringRef Label, uint64_t N) {
    OS << "    " << gpuPad(Label.str(), 8) << "  "
       << gpuPadLeft(std::to_string(N), 10) << "\n";
  };
  OS << "  bytes:\n";
  Row(KernelLabel, KernelBytes);
  Row("weights", T.WeightsBytes);
  Row("arena", T.ArenaBytes);
  Row("inputs", T.InputBytes);
  Row("outputs", T.OutputBytes);
}

llvm::json::Object gpuBytesJson(llvm::StringRef KernelKey, uint64_t KernelBytes,
                                const GpuBufferTotals &T) {
  return llvm::json::Object{{KernelKey.str(), int64_t(KernelBytes)},
                            {"weights", int64_t(T.WeightsBytes)},
                            {"uploaded", int64_t(T.UploadedBytes)},
                            {"arena", int64_t(T.ArenaBytes)},
                            {"inputs", int64_t(T.InputBytes)},
                            {"outputs", int64_t(T.OutputBytes)}};
}

} // namespace kiln

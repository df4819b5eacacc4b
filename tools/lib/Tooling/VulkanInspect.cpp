// The Vulkan section of `kiln inspect`. The payload is verified by the
// runtime's loader before it gets here; indices are still checked, so that a
// hand-built model (tests) prints '?' rather than reading out of range.
#include "Tooling/VulkanInspect.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <optional>

namespace kiln {

namespace {

std::string kindName(fb::VulkanBufferKind K) {
  return llvm::StringRef(fb::EnumNameVulkanBufferKind(K)).lower();
}

std::string shaderName(const fb::VulkanPayloadT &P, uint32_t Index) {
  if (Index < P.shaders.size() && !P.shaders[Index]->name.empty())
    return P.shaders[Index]->name;
  return "shader#" + std::to_string(Index);
}

/// The name of the operator a dispatch computes; "-" for none.
std::string operatorName(const fb::ModelT &M, int32_t Op) {
  if (Op < 0)
    return "-";
  if (size_t(Op) >= M.operators.size())
    return "op#" + std::to_string(Op) + "?";
  const std::string &Name = M.operators[size_t(Op)]->name;
  return Name.empty() ? "op#" + std::to_string(Op) : Name;
}

/// Specialization constant Id of D, if set.
std::optional<uint32_t> specConstant(const fb::VulkanDispatchT &D, uint32_t Id) {
  for (const fb::VulkanSpecConstant &C : D.spec_constants)
    if (C.id() == Id)
      return C.value();
  return std::nullopt;
}

std::string workgroupText(const fb::VulkanDispatchT &D) {
  std::string R = "[";
  for (uint32_t I = 0; I < 3; ++I) {
    auto V = specConstant(D, I);
    R += (I ? "," : "") + (V ? std::to_string(*V) : std::string("?"));
  }
  return R + "]";
}

std::string groupsText(const fb::VulkanDispatchT &D) {
  return "[" + std::to_string(D.group_count_x) + "," +
         std::to_string(D.group_count_y) + "," +
         std::to_string(D.group_count_z) + "]";
}

/// The specialization constants beyond the workgroup size: "3=16 4=1".
std::string otherSpecText(const fb::VulkanDispatchT &D) {
  std::string R;
  for (const fb::VulkanSpecConstant &C : D.spec_constants)
    if (C.id() > 2)
      R += (R.empty() ? "" : " ") + std::to_string(C.id()) + "=" +
           std::to_string(C.value());
  return R.empty() ? "-" : R;
}

std::string bindingsText(const fb::VulkanDispatchT &D) {
  std::string R;
  for (const fb::VulkanBinding &B : D.bindings)
    R += (R.empty() ? "" : " ") + std::string("buf#") +
         std::to_string(B.buffer()) + "[" + std::to_string(B.offset()) +
         ", +" + std::to_string(B.size()) + "]";
  return R.empty() ? "-" : R;
}

std::string pad(std::string S, size_t Width) {
  if (S.size() < Width)
    S.append(Width - S.size(), ' ');
  return S;
}

std::string padLeft(const std::string &S, size_t Width) {
  return S.size() < Width ? std::string(Width - S.size(), ' ') + S : S;
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

std::string yesNo(bool B) { return B ? "yes" : "no"; }

} // namespace

std::vector<VulkanKernelStats> vulkanKernels(const fb::VulkanPayloadT &P) {
  std::vector<VulkanKernelStats> K;
  for (size_t I = 0; I < P.shaders.size(); ++I)
    K.push_back({shaderName(P, uint32_t(I)),
                 uint64_t(P.shaders[I]->spirv.size()) * sizeof(uint32_t), 0,
                 P.shaders[I]->fp16_math_variant >= 0
                     ? shaderName(P, uint32_t(P.shaders[I]->fp16_math_variant))
                     : std::string()});
  for (const auto &D : P.dispatches)
    if (D->shader < K.size())
      ++K[D->shader].Dispatches;
  return K;
}

VulkanTotals vulkanTotals(const fb::ModelT &M, const fb::VulkanPayloadT &P) {
  VulkanTotals T;
  for (const auto &S : P.shaders)
    T.SpirvBytes += uint64_t(S->spirv.size()) * sizeof(uint32_t);
  for (const auto &B : P.buffers) {
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

std::string vulkanTextSection(const fb::ModelT &M, bool Detail) {
  const fb::VulkanPayloadT *P = M.payload.AsVulkanPayload();
  if (!P)
    return "";
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << "vulkan:\n";
  OS << "  fp16:          " << yesNo(P->fp16)
     << (P->fp16 ? " (activations and weights are fp16 in device memory)" : "")
     << "\n";
  OS << "  features:      "
     << (P->required_features.empty() ? std::string("none")
                                      : llvm::join(P->required_features, ", "))
     << "\n";

  std::vector<VulkanKernelStats> Kernels = vulkanKernels(*P);
  VulkanTotals T = vulkanTotals(M, *P);
  size_t NameW = 6;
  for (const VulkanKernelStats &K : Kernels)
    NameW = std::max(NameW, K.Name.size());
  OS << "  kernels: " << Kernels.size() << " (" << T.SpirvBytes
     << " B of SPIR-V)\n";
  for (const VulkanKernelStats &K : Kernels)
    OS << "    " << pad(K.Name, NameW) << "  "
       << padLeft(std::to_string(K.SpirvBytes), 9) << " B  " << K.Dispatches
       << (K.Dispatches == 1 ? " dispatch" : " dispatches")
       << (K.Fp16MathTwin.empty()
               ? std::string()
               : "  (fp16 arithmetic: " + K.Fp16MathTwin + ")")
       << "\n";

  OS << "  dispatches: " << P->dispatches.size();
  if (!Detail && P->dispatches.size() > VulkanDispatchListLimit) {
    OS << " (--nodes lists them)\n";
  } else {
    OS << "\n";
    std::vector<std::vector<std::string>> Rows;
    for (size_t I = 0; I < P->dispatches.size(); ++I) {
      const fb::VulkanDispatchT &D = *P->dispatches[I];
      Rows.push_back({std::to_string(I), shaderName(*P, D.shader),
                      operatorName(M, D.operator_), groupsText(D),
                      workgroupText(D), otherSpecText(D),
                      std::to_string(D.push_constants.size()) + " B",
                      bindingsText(D)});
    }
    std::vector<std::string> Head{"#",         "shader", "operator",
                                  "groups",    "workgroup", "spec",
                                  "push",      "bindings"};
    std::vector<size_t> W(Head.size());
    for (size_t C = 0; C < Head.size(); ++C) {
      W[C] = Head[C].size();
      for (const auto &R : Rows)
        W[C] = std::max(W[C], R[C].size());
    }
    auto Line = [&](const std::vector<std::string> &R) {
      std::string L = "    " + padLeft(R[0], W[0]);
      for (size_t C = 1; C + 1 < R.size(); ++C)
        L += "  " + (C == 6 ? padLeft(R[C], W[C]) : pad(R[C], W[C]));
      L += "  " + R.back();
      OS << L << "\n";
    };
    Line(Head);
    for (const auto &R : Rows)
      Line(R);
  }

  OS << "  buffers: " << P->buffers.size() << "\n";
  for (size_t I = 0; I < P->buffers.size(); ++I) {
    const fb::VulkanBufferT &B = *P->buffers[I];
    OS << "    " << pad("buf#" + std::to_string(I), 6) << "  "
       << pad(kindName(B.kind), 7) << "  " << padLeft(std::to_string(B.size), 10)
       << " B";
    if (B.kind == fb::VulkanBufferKind::WEIGHTS)
      OS << "  " << B.uploads.size()
         << (B.uploads.size() == 1 ? " upload (" : " uploads (")
         << uploadedBytes(M, B) << " B of segments)";
    else if (B.kind != fb::VulkanBufferKind::ARENA)
      OS << "  " << ioText(M, B);
    OS << "\n";
  }
  OS << "  places: " << P->places.size() << " activations\n";
  OS << "  bytes:\n";
  OS << "    SPIR-V    " << padLeft(std::to_string(T.SpirvBytes), 10) << "\n";
  OS << "    weights   " << padLeft(std::to_string(T.WeightsBytes), 10) << "\n";
  OS << "    arena     " << padLeft(std::to_string(T.ArenaBytes), 10) << "\n";
  OS << "    inputs    " << padLeft(std::to_string(T.InputBytes), 10) << "\n";
  OS << "    outputs   " << padLeft(std::to_string(T.OutputBytes), 10) << "\n";
  return OS.str();
}

llvm::json::Value vulkanJsonSection(const fb::ModelT &M) {
  const fb::VulkanPayloadT *P = M.payload.AsVulkanPayload();
  if (!P)
    return nullptr;
  llvm::json::Array Features, Kernels, Dispatches, Buffers;
  for (const std::string &F : P->required_features)
    Features.push_back(F);
  for (const VulkanKernelStats &K : vulkanKernels(*P)) {
    llvm::json::Object O{{"name", K.Name},
                         {"spirv_bytes", int64_t(K.SpirvBytes)},
                         {"dispatches", K.Dispatches}};
    if (!K.Fp16MathTwin.empty())
      O["fp16_math_variant"] = K.Fp16MathTwin;
    Kernels.push_back(std::move(O));
  }
  for (size_t I = 0; I < P->dispatches.size(); ++I) {
    const fb::VulkanDispatchT &D = *P->dispatches[I];
    llvm::json::Array Workgroup, Spec, Bindings;
    for (uint32_t K = 0; K < 3; ++K) {
      auto V = specConstant(D, K);
      Workgroup.push_back(V ? llvm::json::Value(int64_t(*V))
                            : llvm::json::Value(nullptr));
    }
    for (const fb::VulkanSpecConstant &C : D.spec_constants)
      if (C.id() > 2)
        Spec.push_back(llvm::json::Object{{"id", int64_t(C.id())},
                                          {"value", int64_t(C.value())}});
    for (const fb::VulkanBinding &B : D.bindings)
      Bindings.push_back(llvm::json::Object{{"buffer", int64_t(B.buffer())},
                                            {"offset", int64_t(B.offset())},
                                            {"size", int64_t(B.size())}});
    Dispatches.push_back(llvm::json::Object{
        {"index", int64_t(I)},
        {"shader", int64_t(D.shader)},
        {"shader_name", shaderName(*P, D.shader)},
        {"operator", int64_t(D.operator_)},
        {"operator_name", D.operator_ < 0 ? llvm::json::Value(nullptr)
                                          : llvm::json::Value(operatorName(M, D.operator_))},
        {"group_count", llvm::json::Array{int64_t(D.group_count_x),
                                          int64_t(D.group_count_y),
                                          int64_t(D.group_count_z)}},
        {"workgroup_size", std::move(Workgroup)},
        {"spec_constants", std::move(Spec)},
        {"push_constant_bytes", int64_t(D.push_constants.size())},
        {"bindings", std::move(Bindings)}});
  }
  for (size_t I = 0; I < P->buffers.size(); ++I) {
    const fb::VulkanBufferT &B = *P->buffers[I];
    llvm::json::Object O{{"index", int64_t(I)},
                         {"kind", kindName(B.kind)},
                         {"size", int64_t(B.size)},
                         {"uploads", int64_t(B.uploads.size())},
                         {"upload_bytes", int64_t(uploadedBytes(M, B))},
                         {"io_index", int64_t(B.io_index)}};
    Buffers.push_back(std::move(O));
  }
  VulkanTotals T = vulkanTotals(M, *P);
  return llvm::json::Object{
      {"fp16", P->fp16},
      {"required_features", std::move(Features)},
      {"kernels", std::move(Kernels)},
      {"dispatch_count", int64_t(P->dispatches.size())},
      {"dispatches", std::move(Dispatches)},
      {"buffers", std::move(Buffers)},
      {"places", int64_t(P->places.size())},
      {"bytes", llvm::json::Object{{"spirv", int64_t(T.SpirvBytes)},
                                   {"weights", int64_t(T.WeightsBytes)},
                                   {"uploaded", int64_t(T.UploadedBytes)},
                                   {"arena", int64_t(T.ArenaBytes)},
                                   {"inputs", int64_t(T.InputBytes)},
                                   {"outputs", int64_t(T.OutputBytes)}}}};
}

} // namespace kiln

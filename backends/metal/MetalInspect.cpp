// The Metal section of `kiln inspect`. The payload is verified by the
// runtime's loader before it gets here; indices are still checked, so that a
// hand-built model (tests) prints rather than reading out of range.
#include "backends/metal/MetalInspect.h"

#include "Support/Error.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

namespace kiln {

namespace {

std::string kernelName(const fb::MetalPayloadT &P, uint32_t Index) {
  if (Index < P.kernels.size() && !P.kernels[Index]->name.empty())
    return P.kernels[Index]->name;
  return "kernel#" + std::to_string(Index);
}

std::string constantTypeName(fb::MetalConstantType T) {
  return llvm::StringRef(fb::EnumNameMetalConstantType(T)).lower();
}

/// The function constant that sets dimension Dim of K's threadgroup size,
/// or -1 where the size is fixed.
int32_t sizeConstant(const fb::MetalKernelT &K, size_t Dim) {
  return Dim < K.threadgroup_size_constants.size()
             ? K.threadgroup_size_constants[Dim]
             : -1;
}

uint32_t fixedSize(const fb::MetalKernelT &K, size_t Dim) {
  return Dim < K.threadgroup_size.size() ? K.threadgroup_size[Dim] : 1;
}

std::string threadgroupText(const fb::MetalKernelT &K) {
  std::string R = "[";
  for (size_t Dim = 0; Dim < 3; ++Dim) {
    int32_t C = sizeConstant(K, Dim);
    R += (Dim ? "," : "") +
         (C >= 0 ? "fc" + std::to_string(C) : std::to_string(fixedSize(K, Dim)));
  }
  return R + "]";
}

std::string indicesText(const std::vector<uint32_t> &I) {
  std::string R = "[";
  for (size_t K = 0; K < I.size(); ++K)
    R += (K ? "," : "") + std::to_string(I[K]);
  return R + "]";
}

std::string pushText(const MetalKernelStats &K) {
  if (K.PushConstantIndex < 0)
    return "-";
  return "buffer(" + std::to_string(K.PushConstantIndex) + ") " +
         std::to_string(K.PushConstantBytes) + " B";
}

std::string yesNo(bool B) { return B ? "yes" : "no"; }

} // namespace

std::string mslVersionText(uint32_t Version) {
  std::string R = std::to_string(Version / 10000) + "." +
                  std::to_string(Version / 100 % 100);
  if (Version % 100)
    R += "." + std::to_string(Version % 100);
  return R;
}

std::vector<MetalKernelStats> metalKernels(const fb::MetalPayloadT &P) {
  std::vector<MetalKernelStats> R;
  for (size_t I = 0; I < P.kernels.size(); ++I) {
    const fb::MetalKernelT &K = *P.kernels[I];
    MetalKernelStats S;
    S.Name = kernelName(P, uint32_t(I));
    S.EntryPoint = K.entry_point;
    S.MslBytes = K.msl.size();
    S.BufferIndices = K.buffer_indices;
    S.PushConstantIndex = K.push_constant_index;
    S.PushConstantBytes = K.push_constant_bytes;
    S.BufferSizeIndex = K.buffer_size_index;
    S.FunctionConstants = K.function_constants.size();
    S.Threadgroup = threadgroupText(K);
    S.ThreadgroupMemoryBytes = K.threadgroup_memory_bytes;
    R.push_back(std::move(S));
  }
  for (const auto &D : P.dispatches)
    if (D->kernel < R.size())
      ++R[D->kernel].Dispatches;
  return R;
}

MetalTotals metalTotals(const fb::ModelT &M, const fb::MetalPayloadT &P) {
  MetalTotals T;
  static_cast<GpuBufferTotals &>(T) = gpuBufferTotals(M, P.buffers);
  for (const auto &K : P.kernels)
    T.MslBytes += K->msl.size();
  return T;
}

std::string metalTextSection(const fb::ModelT &M, bool Detail) {
  const fb::MetalPayloadT *P = M.payload.AsMetalPayload();
  if (!P)
    return "";
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << "metal:\n";
  OS << "  MSL:           " << mslVersionText(P->msl_version) << "\n";
  OS << "  fp16:          " << yesNo(P->fp16)
     << (P->fp16 ? " (activations and weights are half in device memory)" : "")
     << "\n";

  std::vector<MetalKernelStats> Kernels = metalKernels(*P);
  MetalTotals T = metalTotals(M, *P);
  OS << "  kernels: " << Kernels.size() << " (" << T.MslBytes << " B of MSL)\n";
  if (!Kernels.empty()) {
    std::vector<std::vector<std::string>> Rows;
    for (const MetalKernelStats &K : Kernels)
      Rows.push_back({K.Name, K.EntryPoint, std::to_string(K.MslBytes) + " B",
                      std::to_string(K.Dispatches), indicesText(K.BufferIndices),
                      pushText(K),
                      K.BufferSizeIndex < 0
                          ? std::string("-")
                          : "buffer(" + std::to_string(K.BufferSizeIndex) + ")",
                      std::to_string(K.FunctionConstants),
                      K.Threadgroup,
                      std::to_string(K.ThreadgroupMemoryBytes) + " B"});
    gpuTable(OS,
             {"kernel", "entry", "MSL", "dispatches", "buffers", "push",
              "sizes", "constants", "threadgroup", "threadgroup memory"},
             Rows, /*RightAligned=*/{2, 3, 7});
  }

  OS << "  dispatches: " << P->dispatches.size();
  if (!Detail && P->dispatches.size() > MetalDispatchListLimit) {
    OS << " (--nodes lists them)\n";
  } else {
    OS << "\n";
    std::vector<std::vector<std::string>> Rows;
    for (size_t I = 0; I < P->dispatches.size(); ++I) {
      const fb::MetalDispatchT &D = *P->dispatches[I];
      Rows.push_back({std::to_string(I), kernelName(*P, D.kernel),
                      gpuOperatorName(M, D.operator_),
                      gpuTripleText(D.threadgroups_x, D.threadgroups_y,
                                    D.threadgroups_z),
                      gpuTripleText(D.threads_per_threadgroup_x,
                                    D.threads_per_threadgroup_y,
                                    D.threads_per_threadgroup_z),
                      gpuConstantsText(D.function_constants, 0),
                      std::to_string(D.push_constants.size()) + " B",
                      gpuBindingsText(D.bindings)});
    }
    gpuTable(OS,
             {"#", "kernel", "operator", "threadgroups", "threads", "constants",
              "push", "bindings"},
             Rows, /*RightAligned=*/{0, 6});
  }

  gpuBuffersText(OS, M, P->buffers, P->places.size());
  gpuBytesText(OS, "MSL", T.MslBytes, T);
  return OS.str();
}

llvm::json::Value metalJsonSection(const fb::ModelT &M) {
  const fb::MetalPayloadT *P = M.payload.AsMetalPayload();
  if (!P)
    return nullptr;
  llvm::json::Array Kernels, Dispatches;
  std::vector<MetalKernelStats> Stats = metalKernels(*P);
  for (size_t I = 0; I < P->kernels.size(); ++I) {
    const fb::MetalKernelT &K = *P->kernels[I];
    const MetalKernelStats &S = Stats[I];
    llvm::json::Array Constants, Size, SizeConstants, Indices;
    for (const fb::MetalFunctionConstant &C : K.function_constants)
      Constants.push_back(llvm::json::Object{
          {"id", int64_t(C.id())}, {"type", constantTypeName(C.type())}});
    for (size_t Dim = 0; Dim < 3; ++Dim) {
      Size.push_back(int64_t(fixedSize(K, Dim)));
      int32_t C = sizeConstant(K, Dim);
      SizeConstants.push_back(C >= 0 ? llvm::json::Value(int64_t(C))
                                     : llvm::json::Value(nullptr));
    }
    for (uint32_t B : S.BufferIndices)
      Indices.push_back(int64_t(B));
    Kernels.push_back(llvm::json::Object{
        {"name", S.Name},
        {"entry_point", S.EntryPoint},
        {"msl_bytes", int64_t(S.MslBytes)},
        {"dispatches", S.Dispatches},
        {"buffer_indices", std::move(Indices)},
        {"push_constant_index", int64_t(S.PushConstantIndex)},
        {"push_constant_bytes", int64_t(S.PushConstantBytes)},
        {"buffer_size_index", int64_t(S.BufferSizeIndex)},
        {"function_constants", std::move(Constants)},
        {"threadgroup_size", std::move(Size)},
        {"threadgroup_size_constants", std::move(SizeConstants)},
        {"threadgroup_memory_bytes", int64_t(S.ThreadgroupMemoryBytes)}});
  }
  for (size_t I = 0; I < P->dispatches.size(); ++I) {
    const fb::MetalDispatchT &D = *P->dispatches[I];
    Dispatches.push_back(llvm::json::Object{
        {"index", int64_t(I)},
        {"kernel", int64_t(D.kernel)},
        {"kernel_name", kernelName(*P, D.kernel)},
        {"operator", int64_t(D.operator_)},
        {"operator_name", D.operator_ < 0
                              ? llvm::json::Value(nullptr)
                              : llvm::json::Value(gpuOperatorName(M, D.operator_))},
        {"threadgroups", llvm::json::Array{int64_t(D.threadgroups_x),
                                           int64_t(D.threadgroups_y),
                                           int64_t(D.threadgroups_z)}},
        {"threads_per_threadgroup",
         llvm::json::Array{int64_t(D.threads_per_threadgroup_x),
                           int64_t(D.threads_per_threadgroup_y),
                           int64_t(D.threads_per_threadgroup_z)}},
        {"function_constants", gpuConstantsJson(D.function_constants, 0)},
        {"push_constant_bytes", int64_t(D.push_constants.size())},
        {"bindings", gpuBindingsJson(D.bindings)}});
  }
  MetalTotals T = metalTotals(M, *P);
  return llvm::json::Object{
      {"msl_version", mslVersionText(P->msl_version)},
      {"msl_version_number", int64_t(P->msl_version)},
      {"fp16", P->fp16},
      {"kernels", std::move(Kernels)},
      {"dispatch_count", int64_t(P->dispatches.size())},
      {"dispatches", std::move(Dispatches)},
      {"buffers", gpuBuffersJson(M, P->buffers)},
      {"places", int64_t(P->places.size())},
      {"bytes", gpuBytesJson("msl", T.MslBytes, T)}};
}

std::vector<std::string> metalKernelNames(const fb::ModelT &M) {
  std::vector<std::string> R;
  if (const auto *P = M.payload.AsMetalPayload())
    for (const auto &K : P->kernels)
      R.push_back(K->name);
  return R;
}

llvm::Expected<std::string> metalKernelSource(const fb::ModelT &M,
                                              llvm::StringRef Name) {
  if (const auto *P = M.payload.AsMetalPayload())
    for (const auto &K : P->kernels)
      if (K->name == Name)
        return K->msl;
  return inputError("no kernel named '{0}'", Name);
}

} // namespace kiln

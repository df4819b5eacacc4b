// kiln-metal-convert: the Metal target on every model the Vulkan target's
// end-to-end test runs (examples, TorchScript fixtures, kernel edge cases,
// ONNX conformance models), where no Apple GPU runs the files. Each model is
// imported, optimized at -O2 and compiled for Metal, and the file must:
//   - be byte-identical when converted twice (fp32, and fp16 for examples
//     and edge cases);
//   - pass the runtime's loader (MetalPayloadVerifier);
//   - be the Vulkan target's lowering of the same graph: the same buffers,
//     and dispatch for dispatch the same bindings, grid and operator, with
//     the same kernel (its fp16-arithmetic twin in fp16 files);
//   - record for every kernel what an independent reflection of its SPIR-V
//     says (the runtime's vulkan/SpirvReflection: storage buffers,
//     specialization constants, workgroup size), and for every dispatch the
//     threadgroup size its constants give.
// Models the Vulkan target cannot run count as UNSUPPORTED; examples and
// edge cases must pass.
//
//   kiln-metal-convert [--suite DIR] [--examples DIR]... [--kir DIR]
//                      [--filter S] [--verbose]
#include "EndToEndDriver.h"
#include "ModelChecks.h"
#include "backends/common/KilnWriter.h"
#include "backends/metal/MetalTarget.h"
#include "backends/gpu/KernelCatalog.h"
#include "backends/gpu/GpuDispatchLowering.h"
#include "vulkan/SpirvReflection.h"
#include "passes/quant/QuantizeGraph.h"

#include "kiln/kiln.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace kiln;
using namespace kiln::testing;

namespace {

using GraphSource = std::function<llvm::Expected<std::unique_ptr<Graph>>()>;

std::string loads(const std::string &Bytes) {
  kiln_model *M = nullptr;
  kiln_status S = kiln_model_load_buffer(Bytes.data(), Bytes.size(), &M);
  std::string Why = S == KILN_OK ? "" : kiln_last_error();
  kiln_model_destroy(M);
  return Why.empty() ? "" : "load: " + Why;
}

/// Kernel K against the runtime's reflection of the SPIR-V it came from.
std::string checkKernel(const fb::MetalKernelT &K) {
  llvm::ArrayRef<uint32_t> Spirv = vulkan::kernelSpirv(K.name);
  if (Spirv.empty())
    return "kernel '" + K.name + "' is no Vulkan kernel";
  rt::VulkanModuleInfo Info;
  if (rt::Status S = rt::inspectSpirv(Spirv.data(), Spirv.size(), Info))
    return "reflect '" + K.name + "': " + S.message();
  if (!Info.Reflected)
    return "this build cannot reflect SPIR-V";
  if (K.buffer_indices.size() != Info.NumBindings)
    return llvm::formatv("kernel '{0}': {1} buffer indices, {2} storage buffers",
                         K.name, K.buffer_indices.size(), Info.NumBindings);
  std::vector<uint32_t> Ids;
  for (const fb::MetalFunctionConstant &C : K.function_constants)
    Ids.push_back(C.id());
  if (Ids != Info.SpecIds)
    return "kernel '" + K.name + "': function constants differ from the "
           "module's specialization constants";
  if (K.push_constant_bytes != Info.PushBytes)
    return "kernel '" + K.name + "': push-constant bytes differ";
  for (unsigned D = 0; D < 3; ++D)
    if (K.threadgroup_size[D] != Info.LocalSize[D])
      return llvm::formatv("kernel '{0}': threadgroup size {1} is {2}, the "
                           "module's workgroup size {3}",
                           K.name, "xyz"[D], K.threadgroup_size[D],
                           Info.LocalSize[D]);
  return "";
}

uint32_t specValue(const fb::VulkanDispatchT &D, uint32_t Id, uint32_t Default) {
  for (const fb::VulkanSpecConstant &C : D.spec_constants)
    if (C.id() == Id)
      return C.value();
  return Default;
}

/// Metal file M against the Vulkan file V of the same graph.
std::string checkAgainstVulkan(const fb::ModelT &M, const fb::ModelT &V) {
  const fb::MetalPayloadT *P = M.payload.AsMetalPayload();
  const fb::VulkanPayloadT *Q = V.payload.AsVulkanPayload();
  if (!P || !Q)
    return "payloads missing";
  for (const auto &K : P->kernels)
    if (std::string Why = checkKernel(*K); !Why.empty())
      return Why;
  if (P->buffers.size() != Q->buffers.size() ||
      P->dispatches.size() != Q->dispatches.size() ||
      P->places.size() != Q->places.size() || P->fp16 != Q->fp16)
    return "buffers, dispatches or places differ from the Vulkan file's";
  for (size_t I = 0; I < P->buffers.size(); ++I)
    if (P->buffers[I]->size != Q->buffers[I]->size ||
        P->buffers[I]->kind != Q->buffers[I]->kind)
      return llvm::formatv("buffer {0} differs from the Vulkan file's", I);
  for (size_t I = 0; I < P->dispatches.size(); ++I) {
    const fb::MetalDispatchT &D = *P->dispatches[I];
    const fb::VulkanDispatchT &E = *Q->dispatches[I];
    const fb::VulkanShaderT &Shader = *Q->shaders[E.shader];
    std::string Want = Shader.fp16_math_variant >= 0
                           ? Q->shaders[size_t(Shader.fp16_math_variant)]->name
                           : Shader.name;
    if (P->kernels[D.kernel]->name != Want)
      return llvm::formatv("dispatch {0}: kernel {1}, Vulkan's {2}", I,
                           P->kernels[D.kernel]->name, Want);
    bool Same = D.bindings.size() == E.bindings.size() &&
                D.threadgroups_x == E.group_count_x &&
                D.threadgroups_y == E.group_count_y &&
                D.threadgroups_z == E.group_count_z &&
                D.operator_ == E.operator_ && D.push_constants == E.push_constants;
    for (size_t B = 0; Same && B < D.bindings.size(); ++B)
      Same = D.bindings[B].buffer() == E.bindings[B].buffer() &&
             D.bindings[B].offset() == E.bindings[B].offset() &&
             D.bindings[B].size() == E.bindings[B].size();
    if (!Same)
      return llvm::formatv("dispatch {0}: bindings, grid or operator differ "
                           "from the Vulkan file's", I);
    const fb::MetalKernelT &K = *P->kernels[D.kernel];
    uint32_t Threads[3] = {D.threads_per_threadgroup_x,
                           D.threads_per_threadgroup_y,
                           D.threads_per_threadgroup_z};
    for (unsigned Dim = 0; Dim < 3; ++Dim)
      if (Threads[Dim] != specValue(E, Dim, K.threadgroup_size[Dim]))
        return llvm::formatv("dispatch {0}: threads per threadgroup {1} is "
                             "{2}, the Vulkan workgroup size {3}",
                             I, "xyz"[Dim], Threads[Dim],
                             specValue(E, Dim, K.threadgroup_size[Dim]));
  }
  return "";
}

/// Converts Fresh's graph (fp16 when asked) for Metal twice and for Vulkan
/// once, and checks the Metal file; Bytes gets its size.
std::string convertAndCheck(const GraphSource &Fresh, bool Fp16, size_t &Bytes) {
  std::string First, Kernels;
  for (int Round = 0; Round < 2; ++Round) {
    auto G = Fresh();
    if (!G)
      return "import: " + firstLine(G.takeError());
    if (llvm::Error E = optimize(**G))
      return "-O2: " + firstLine(std::move(E));
    if (Fp16) {
      QuantizeOptions QO;
      QO.Mode = QuantizeMode::Fp16;
      QO.Threads = 1;
      QuantizeReport Report;
      if (llvm::Error E = quantizeGraph(**G, QO, Report))
        return "quantize: " + firstLine(std::move(E));
    }
    auto C = compileForMetal(**G, Fp16);
    if (!C)
      return llvm::toString(C.takeError());
    auto Serialized = serializeKilnModule(C->Module);
    if (!Serialized)
      return "write: " + firstLine(Serialized.takeError());
    std::string Out = std::move(*Serialized);
    if (Round == 1)
      return Out == First ? "" : "two conversions differ";
    First = Out;
    Bytes = Out.size();
    if (std::string Why = loads(Out); !Why.empty())
      return Why;
    auto V = lowerToGpuDispatches(**G, Fp16);
    if (!V)
      return "vulkan: " + firstLine(V.takeError());
    if (std::string Why = checkAgainstVulkan(C->Module.Model, V->Module.Model);
        !Why.empty())
      return Why;
  }
  return "";
}

Verdict checkModel(const GraphSource &Fresh, bool MustPass, bool WithFp16) {
  size_t Bytes = 0, Fp16Bytes = 0;
  std::string Why = convertAndCheck(Fresh, false, Bytes);
  if (!Why.empty()) {
    if (Why.find("target cannot run") != std::string::npos && !MustPass)
      return {"UNSUPPORTED", firstReason(Why)};
    return {"FAIL", Why.substr(0, Why.find('\n'))};
  }
  if (WithFp16) {
    Why = convertAndCheck(Fresh, true, Fp16Bytes);
    if (!Why.empty())
      return {"FAIL", "fp16: " + Why.substr(0, Why.find('\n'))};
    return {"PASS", llvm::formatv("{0} bytes; fp16 {1} bytes", Bytes, Fp16Bytes)};
  }
  return {"PASS", llvm::formatv("{0} bytes", Bytes)};
}

Verdict checkNodeTest(const std::string &Folder) {
  std::unique_ptr<Graph> G;
  std::vector<Tensor> Inputs;
  if (Verdict V = loadNodeTest(Folder, G, Inputs); !V.Kind.empty())
    return V;
  return checkModel(
      [&]() -> llvm::Expected<std::unique_ptr<Graph>> {
        std::unique_ptr<Graph> Again;
        std::vector<Tensor> Ignored;
        Verdict V = loadNodeTest(Folder, Again, Ignored);
        if (!V.Kind.empty())
          return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                         V.Detail);
        return Again;
      },
      false, false);
}

} // namespace

int main(int Argc, char **Argv) {
  DriverArgs A;
  if (!parseDriverArgs(Argc, Argv, "kiln-metal-convert", A))
    return 2;
  std::vector<ModelEntry> Models = collectModels(A);
  if (Models.empty()) {
    llvm::errs() << "kiln-metal-convert: no models found\n";
    return 1;
  }
  std::map<std::string, unsigned> Counts;
  unsigned Examples = 0, Kirs = 0;
  for (const ModelEntry &M : Models) {
    if (!A.Filter.empty() && M.Name.find(A.Filter) == std::string::npos)
      continue;
    Examples += M.Kind == ModelKind::Example;
    Kirs += M.Kind == ModelKind::Kir;
    Verdict V = isolatedVerdict(300, [&] {
      if (M.Kind == ModelKind::Example)
        return checkModel([&] { return importModel(M.Path); }, true, true);
      if (M.Kind == ModelKind::Kir)
        return checkModel([&] { return parseKirFile(M.Path); }, true, true);
      return checkNodeTest(M.Path);
    });
    ++Counts[V.Kind];
    if (V.Kind == "FAIL" || M.Kind != ModelKind::Node || A.Verbose)
      llvm::outs() << V.Kind << ' ' << M.Name << ": " << V.Detail << '\n';
  }
  llvm::outs() << Counts["PASS"] << " models convert for Metal, verified and "
               << "cross-checked (" << Examples << " examples, " << Kirs
               << " kernel edge cases, in fp32 and fp16), " << Counts["FAIL"]
               << " failed, " << Counts["UNSUPPORTED"]
               << " use ops the Metal target does not support, "
               << Counts["SKIP"] << " skipped\n";
  return Counts["FAIL"] == 0 ? 0 : 1;
}

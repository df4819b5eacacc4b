// `kiln inspect` on a Metal file (schema 1.7), from a model built in memory
// with the object API: the MSL version, kernels, dispatches, buffer plan and
// byte totals it prints, in text and JSON, and `--kernel`'s source lookup.
// The MSL strings are fakes: rendering counts their bytes and never
// compiles them. Every expected value is worked out by hand from the model
// below.
#include "GpuInspectTestModel.h"
#include "LlvmErrorChecks.h"
#include "Tooling/KilnFileStats.h"
#include "Tooling/KilnInspect.h"
#include "backends/metal/MetalInspect.h"

#include "llvm/Support/FormatVariadic.h"

#include <catch2/catch.hpp>

using namespace kiln;
using namespace kiln::test;

namespace {

/// A kernel of MslBytes bytes of fake MSL whose threadgroup size is set by
/// function constants 0, 1, 2 (as SPIRV-Cross translates local_size_x_id),
/// or fixed at Fixed where Fixed is given.
std::unique_ptr<fb::MetalKernelT> kernel(std::string Name, size_t MslBytes,
                                         std::vector<uint32_t> BufferIndices,
                                         int32_t PushIndex, uint32_t PushBytes,
                                         std::vector<uint32_t> ExtraConstants,
                                         std::vector<uint32_t> Fixed = {}) {
  auto K = std::make_unique<fb::MetalKernelT>();
  K->name = std::move(Name);
  K->msl.assign(MslBytes, 'k');
  K->entry_point = "main0";
  K->buffer_indices = std::move(BufferIndices);
  K->push_constant_index = PushIndex;
  K->push_constant_bytes = PushBytes;
  if (Fixed.empty()) {
    for (uint32_t Id = 0; Id < 3; ++Id)
      K->function_constants.emplace_back(Id, fb::MetalConstantType::UINT);
    K->threadgroup_size = {1, 1, 1};
    K->threadgroup_size_constants = {0, 1, 2};
  } else {
    K->threadgroup_size = std::move(Fixed);
    K->threadgroup_size_constants = {-1, -1, -1};
  }
  for (uint32_t Id : ExtraConstants)
    K->function_constants.emplace_back(Id, fb::MetalConstantType::INT);
  return K;
}

/// D as the Metal compiler records it: its constants kept as function
/// constants, constants 0..2 (else Fixed) as the threads per threadgroup,
/// its group counts as the threadgroups.
std::unique_ptr<fb::MetalDispatchT> dispatch(GpuDispatchSpec D,
                                             std::vector<uint32_t> Fixed = {}) {
  auto R = std::make_unique<fb::MetalDispatchT>();
  R->kernel = D.Kernel;
  R->operator_ = D.Op;
  uint32_t Threads[3] = {1, 1, 1};
  for (uint32_t Dim = 0; Dim < 3; ++Dim)
    if (Dim < Fixed.size())
      Threads[Dim] = Fixed[Dim];
  for (const fb::VulkanSpecConstant &C : D.Constants)
    if (C.id() < 3)
      Threads[C.id()] = C.value();
  R->function_constants = std::move(D.Constants);
  R->push_constants.assign(D.PushBytes, 0);
  R->bindings = std::move(D.Bindings);
  R->threads_per_threadgroup_x = Threads[0];
  R->threads_per_threadgroup_y = Threads[1];
  R->threads_per_threadgroup_z = Threads[2];
  R->threadgroups_x = D.GroupsX;
  return R;
}

// The model of GpuInspectTestModel.h for Metal. Kernels: nchw_to_c4 300 B
// of MSL (buffers 0,1; push at 2, 8 B), conv2d_c4 1000 B (buffers 0..3,
// push at 4, 16 B; constants 3 and 4; 512 B of threadgroup memory),
// c4_to_nchw 200 B (buffers 0,1; no push constants), fixed_size 50 B
// (threadgroup fixed at 32x2x1, no dispatch).
GpuFile metalModel() {
  fb::MetalPayloadT P;
  P.fp16 = false;
  P.msl_version = 20100;
  P.kernels.push_back(kernel("nchw_to_c4", 300, {0, 1}, 2, 8, {}));
  P.kernels.push_back(kernel("conv2d_c4", 1000, {0, 1, 2, 3}, 4, 16, {3, 4}));
  P.kernels[1]->threadgroup_memory_bytes = 512;
  P.kernels[1]->buffer_size_index = 5;
  P.kernels.push_back(kernel("c4_to_nchw", 200, {0, 1}, -1, 0, {}));
  P.kernels.push_back(kernel("fixed_size", 50, {0}, -1, 0, {}, {32, 2, 1}));
  for (GpuDispatchSpec &D : gpuDispatchPlan())
    P.dispatches.push_back(dispatch(std::move(D)));
  return gpuFile(convGraph(fb::Target::METAL, "metal"), std::move(P));
}

std::string errorText(llvm::Error E) { return llvm::toString(std::move(E)); }

} // namespace

TEST_CASE("the Metal section lists kernels, dispatches, buffers and totals",
          "[tooling][inspect][metal]") {
  GpuFile F = metalModel();
  std::string Text = metalTextSection(F.Model, /*Detail=*/false);
  INFO(Text);
  CHECK(hasLine(Text, "metal:"));
  CHECK(hasLine(Text, "MSL: 2.1"));
  CHECK(hasLine(Text, "fp16: no"));
  // 300 + 1000 + 200 + 50 bytes of MSL.
  CHECK(hasLine(Text, "kernels: 4 (1550 B of MSL)"));
  CHECK(hasLine(Text, "kernel entry MSL dispatches buffers push sizes "
                      "constants threadgroup threadgroup memory"));
  CHECK(hasLine(Text, "nchw_to_c4 main0 300 B 1 [0,1] buffer(2) 8 B - 3 "
                      "[fc0,fc1,fc2] 0 B"));
  CHECK(hasLine(Text, "conv2d_c4 main0 1000 B 2 [0,1,2,3] buffer(4) 16 B buffer(5) 5 "
                      "[fc0,fc1,fc2] 512 B"));
  CHECK(hasLine(Text, "c4_to_nchw main0 200 B 1 [0,1] - - 3 [fc0,fc1,fc2] 0 B"));
  CHECK(hasLine(Text, "fixed_size main0 50 B 0 [0] - - 0 [32,2,1] 0 B"));
  CHECK(hasLine(Text, "dispatches: 4"));
  CHECK(hasLine(Text, "# kernel operator threadgroups threads constants push "
                      "bindings"));
  checkGpuDispatchRows(Text, /*Sizes=*/true);
  checkGpuBufferPlanText(Text);
  CHECK(hasLine(Text, "MSL 1550"));
}

TEST_CASE("the MSL version prints as major.minor[.patch]",
          "[tooling][inspect][metal]") {
  CHECK(mslVersionText(20100) == "2.1");
  CHECK(mslVersionText(30000) == "3.0");
  CHECK(mslVersionText(20403) == "2.4.3");
  GpuFile F = metalModel();
  F.Model.payload.AsMetalPayload()->msl_version = 20400;
  F.Model.payload.AsMetalPayload()->fp16 = true;
  std::string Text = metalTextSection(F.Model, false);
  INFO(Text);
  CHECK(hasLine(Text, "MSL: 2.4"));
  CHECK(hasLine(Text, "fp16: yes (activations and weights are half in device "
                      "memory)"));
}

TEST_CASE("a threadgroup size set in part by a constant shows which",
          "[tooling][inspect][metal]") {
  GpuFile F = metalModel();
  auto &K = *F.Model.payload.AsMetalPayload()->kernels[3];
  K.threadgroup_size = {16, 4, 1};
  K.threadgroup_size_constants = {7, -1, -1};
  std::string Text = metalTextSection(F.Model, false);
  INFO(Text);
  CHECK(hasLine(Text, "fixed_size main0 50 B 0 [0] - - 0 [fc7,4,1] 0 B"));
  llvm::json::Value V = metalJsonSection(F.Model);
  const llvm::json::Object *K3 =
      (*V.getAsObject()->getArray("kernels"))[3].getAsObject();
  CHECK(*K3->getArray("threadgroup_size") == llvm::json::Array{16, 4, 1});
  CHECK(*K3->getArray("threadgroup_size_constants") ==
        llvm::json::Array{7, nullptr, nullptr});
}

TEST_CASE("many Metal dispatches are listed only with the detail flag",
          "[tooling][inspect][metal]") {
  GpuFile F = metalModel();
  auto &P = *F.Model.payload.AsMetalPayload();
  while (P.dispatches.size() <= MetalDispatchListLimit)
    P.dispatches.push_back(dispatch({3, -1, {}, 0, {}, 1}, {32, 2, 1}));
  size_t N = P.dispatches.size();
  std::string Short = metalTextSection(F.Model, false);
  CHECK(hasLine(Short, "dispatches: " + std::to_string(N) +
                           " (--nodes lists them)"));
  CHECK_FALSE(hasLine(Short, "0 nchw_to_c4 - [3,1,1] [64,1,1] - 8 B "
                             "buf#2[0, +768] buf#0[0, +1024]"));
  std::string Long = metalTextSection(F.Model, true);
  CHECK(hasLine(Long, "dispatches: " + std::to_string(N)));
  CHECK(hasLine(Long, std::to_string(N - 1) +
                          " fixed_size - [1,1,1] [32,2,1] - 0 B -"));
  CHECK(hasLine(Long, "fixed_size main0 50 B " + std::to_string(N - 4) +
                          " [0] - - 0 [32,2,1] 0 B"));
}

TEST_CASE("the Metal JSON holds the same data as numbers",
          "[tooling][inspect][metal]") {
  GpuFile F = metalModel();
  llvm::json::Value V = metalJsonSection(F.Model);
  INFO(llvm::formatv("{0:2}", V).str());
  const llvm::json::Object *O = V.getAsObject();
  REQUIRE(O);
  CHECK(str(O, "msl_version") == "2.1");
  CHECK(num(O, "msl_version_number") == 20100);
  CHECK(O->getBoolean("fp16") == llvm::Optional<bool>(false));

  const llvm::json::Array *K = O->getArray("kernels");
  REQUIRE(K);
  REQUIRE(K->size() == 4);
  const llvm::json::Object *K1 = (*K)[1].getAsObject();
  CHECK(str(K1, "name") == "conv2d_c4");
  CHECK(str(K1, "entry_point") == "main0");
  CHECK(num(K1, "msl_bytes") == 1000);
  CHECK(num(K1, "dispatches") == 2);
  CHECK(*K1->getArray("buffer_indices") == llvm::json::Array{0, 1, 2, 3});
  CHECK(num(K1, "push_constant_index") == 4);
  CHECK(num(K1, "push_constant_bytes") == 16);
  CHECK(num(K1, "buffer_size_index") == 5);
  const llvm::json::Array *C1 = K1->getArray("function_constants");
  REQUIRE(C1);
  REQUIRE(C1->size() == 5);
  CHECK((*C1)[0] == llvm::json::Value(llvm::json::Object{{"id", 0}, {"type", "uint"}}));
  CHECK((*C1)[4] == llvm::json::Value(llvm::json::Object{{"id", 4}, {"type", "int"}}));
  CHECK(*K1->getArray("threadgroup_size_constants") == llvm::json::Array{0, 1, 2});
  CHECK(num(K1, "threadgroup_memory_bytes") == 512);
  const llvm::json::Object *K3 = (*K)[3].getAsObject();
  CHECK(num(K3, "push_constant_index") == -1);
  CHECK(num(K3, "buffer_size_index") == -1);
  CHECK(num(K3, "dispatches") == 0);

  checkGpuDispatchesJson(*O, "kernel", "threadgroups", "threads_per_threadgroup",
                         "function_constants", /*Sizes=*/true);

  checkGpuBufferPlanJson(*O, "msl", 1550);
}

TEST_CASE("a Metal file's stats: metal engine, MSL as target blobs, the "
          "section after the size breakdown",
          "[tooling][inspect][metal]") {
  GpuFile F = metalModel();
  checkGpuFileReport(F, "metal", 1550, "msl");
  KilnFileStats S = kilnFileStatsOf(F.Model, "m.kiln", F.FileBytes);
  CHECK(kilnTextReport(S, false).find("\nvulkan:") == std::string::npos);
  llvm::json::Value J = kilnJsonReport(S, false);
  CHECK(str(J.getAsObject(), "payload") == "MetalPayload");
  CHECK(J.getAsObject()->get("vulkan") == nullptr);
}

TEST_CASE("--kernel finds a Metal kernel's MSL by name",
          "[tooling][inspect][metal]") {
  GpuFile F = metalModel();
  F.Model.payload.AsMetalPayload()->kernels[1]->msl =
      "#include <metal_stdlib>\nkernel void main0() {}\n";
  CHECK(kilnKernelNames(F.Model) ==
        std::vector<std::string>{"nchw_to_c4", "conv2d_c4", "c4_to_nchw",
                                 "fixed_size"});
  CHECK(requireValue(kilnKernelSource(F.Model, "m.kiln", "conv2d_c4")) ==
        "#include <metal_stdlib>\nkernel void main0() {}\n");

  auto Missing = kilnKernelSource(F.Model, "m.kiln", "nope");
  REQUIRE_FALSE(static_cast<bool>(Missing));
  CHECK(errorText(Missing.takeError()) ==
        "m.kiln: no kernel named 'nope'; the file's kernels: nchw_to_c4, "
        "conv2d_c4, c4_to_nchw, fixed_size");
}

TEST_CASE("a CPU file has no Metal section and no kernels",
          "[tooling][inspect][metal]") {
  GpuFile F = metalModel();
  F.Model.target = fb::Target::CPU;
  F.Model.payload.Set(fb::CpuPayloadT());
  for (auto &Op : F.Model.operators)
    Op->engine = fb::Engine::XNNPACK;
  KilnFileStats S = kilnFileStatsOf(F.Model, "c.kiln", F.FileBytes);
  CHECK(S.Size.TargetBlobBytes == 0);
  CHECK(metalTextSection(S.Model, true).empty());
  CHECK(kilnTextReport(S, true).find("\nmetal:") == std::string::npos);
  CHECK(kilnJsonReport(S, true).getAsObject()->get("metal") == nullptr);
  CHECK(kilnKernelNames(S.Model).empty());
  auto Src = kilnKernelSource(S.Model, "c.kiln", "conv2d_c4");
  REQUIRE_FALSE(static_cast<bool>(Src));
  CHECK(errorText(Src.takeError()) == "c.kiln: the file has no kernels (target cpu)");
}

// `kiln inspect` on a Metal file (schema 1.7), from a model built in memory
// with the object API: the MSL version, kernels, dispatches, buffer plan and
// byte totals it prints, in text and JSON, and `--kernel`'s source lookup.
// The MSL strings are fakes: rendering counts their bytes and never
// compiles them. Every expected value is worked out by hand from the model
// below.
#include "Tooling/KilnFileStats.h"
#include "Tooling/KilnInspect.h"
#include "Tooling/MetalInspect.h"

#include "schema/KilnSchemaVersion.h"

#include "llvm/Support/FormatVariadic.h"

#include <catch2/catch.hpp>

#include <array>
#include <climits>
#include <sstream>

using namespace kiln;

namespace {

std::unique_ptr<fb::TensorT> tensor(std::string Name, std::vector<int64_t> Shape,
                                    fb::Layout Layout, int32_t Buffer = -1) {
  auto T = std::make_unique<fb::TensorT>();
  T->name = std::move(Name);
  T->dtype = fb::DType::F32;
  T->shape = std::move(Shape);
  T->layout = Layout;
  T->buffer = Buffer;
  return T;
}

std::unique_ptr<fb::OperatorT> conv1x1(std::string Name, std::vector<int32_t> In,
                                       int32_t Out, uint32_t InChannels,
                                       uint32_t OutChannels) {
  auto Op = std::make_unique<fb::OperatorT>();
  Op->kind = fb::OpKind::CONV_2D;
  Op->name = std::move(Name);
  Op->inputs = std::move(In);
  Op->outputs = {Out};
  fb::Conv2DOptionsT C;
  C.kernel_height = 1;
  C.kernel_width = 1;
  C.group_input_channels = InChannels;
  C.group_output_channels = OutChannels;
  C.groups = 1;
  Op->options.Set(C);
  return Op;
}

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

std::unique_ptr<fb::MetalDispatchT>
dispatch(uint32_t Kernel, int32_t Op, std::vector<fb::VulkanSpecConstant> Constants,
         size_t PushBytes, std::vector<fb::VulkanBinding> Bindings,
         std::array<uint32_t, 3> Threads, uint32_t GroupsX) {
  auto D = std::make_unique<fb::MetalDispatchT>();
  D->kernel = Kernel;
  D->operator_ = Op;
  D->function_constants = std::move(Constants);
  D->push_constants.assign(PushBytes, 0);
  D->bindings = std::move(Bindings);
  D->threads_per_threadgroup_x = Threads[0];
  D->threads_per_threadgroup_y = Threads[1];
  D->threads_per_threadgroup_z = Threads[2];
  D->threadgroups_x = GroupsX;
  return D;
}

std::unique_ptr<fb::VulkanBufferT> buffer(fb::VulkanBufferKind Kind, uint64_t Size,
                                          int32_t Io = -1) {
  auto B = std::make_unique<fb::VulkanBufferT>();
  B->kind = Kind;
  B->size = Size;
  B->io_index = Io;
  return B;
}

uint64_t alignUp(uint64_t X) { return (X + 63) / 64 * 64; }

// The Vulkan test's model (VulkanInspectTest.cpp), compiled for Metal:
// x f32[1,3,8,8] NCHW -> gather -> t1 C4 -> conv_0 (1x1, 3->4) -> t2 C4
//   -> conv_1 (1x1, 4->4) -> t3 C4 -> gather -> y f32[1,4,8,8] NCHW
// Kernels: gather 300 B of MSL (buffers 0,1; push at 2, 8 B), conv2d_c4
// 1000 B (buffers 0..3, push at 4, 16 B; constants 3 and 4; 512 B of
// threadgroup memory), fixed_size 50 B (threadgroup fixed at 32x2x1, no
// dispatch).
struct MetalFile {
  fb::ModelT Model;
  uint64_t FlatBufferBytes = 0; // the packed FlatBuffer, MSL included
  uint64_t FileBytes = 0;
};

MetalFile metalModel() {
  fb::ModelT M;
  M.schema_major = fb::SchemaMajor;
  M.schema_minor = fb::SchemaMinor;
  M.target = fb::Target::METAL;
  M.metadata = std::make_unique<fb::MetadataT>();
  M.metadata->producer = "kiln";
  M.metadata->target = "metal";
  M.tensors.push_back(tensor("x", {1, 3, 8, 8}, fb::Layout::NCHW));       // 0
  M.tensors.push_back(tensor("t1", {1, 8, 8, 3}, fb::Layout::C4));        // 1
  M.tensors.push_back(tensor("w0", {4, 1, 1, 3}, fb::Layout::PACKED, 0)); // 2
  M.tensors.push_back(tensor("b0", {4}, fb::Layout::PLAIN, 1));           // 3
  M.tensors.push_back(tensor("t2", {1, 8, 8, 4}, fb::Layout::C4));        // 4
  M.tensors.push_back(tensor("w1", {4, 1, 1, 4}, fb::Layout::PACKED, 2)); // 5
  M.tensors.push_back(tensor("t3", {1, 8, 8, 4}, fb::Layout::C4));        // 6
  M.tensors.push_back(tensor("y", {1, 4, 8, 8}, fb::Layout::NCHW));       // 7
  M.inputs = {0};
  M.outputs = {7};
  M.operators.push_back(conv1x1("conv_0", {1, 2, 3}, 4, 3, 4));
  M.operators.push_back(conv1x1("conv_1", {4, 5, -1}, 6, 4, 4));
  for (uint64_t Size : {64, 16, 64}) {
    auto B = std::make_unique<fb::BufferT>();
    B->size = Size;
    M.buffers.push_back(std::move(B));
  }

  fb::MetalPayloadT P;
  P.fp16 = false;
  P.msl_version = 20100;
  P.kernels.push_back(kernel("gather", 300, {0, 1}, 2, 8, {}));
  P.kernels.push_back(kernel("conv2d_c4", 1000, {0, 1, 2, 3}, 4, 16, {3, 4}));
  P.kernels[1]->threadgroup_memory_bytes = 512;
  P.kernels.push_back(kernel("fixed_size", 50, {0}, -1, 0, {}, {32, 2, 1}));
  P.buffers.push_back(buffer(fb::VulkanBufferKind::ARENA, 2048));
  auto W = buffer(fb::VulkanBufferKind::WEIGHTS, 768);
  W->uploads = {fb::VulkanUpload(0, 0), fb::VulkanUpload(1, 256),
                fb::VulkanUpload(2, 512)};
  P.buffers.push_back(std::move(W));
  P.buffers.push_back(buffer(fb::VulkanBufferKind::INPUT, 768, 0));
  P.buffers.push_back(buffer(fb::VulkanBufferKind::OUTPUT, 1024, 0));
  using SC = fb::VulkanSpecConstant;
  using VB = fb::VulkanBinding;
  P.dispatches.push_back(dispatch(0, -1, {SC(0, 64), SC(1, 1), SC(2, 1)}, 8,
                                  {VB(2, 0, 768), VB(0, 0, 1024)}, {64, 1, 1}, 3));
  P.dispatches.push_back(dispatch(
      1, 0, {SC(0, 8), SC(1, 8), SC(2, 1), SC(3, 3), SC(4, 1)}, 16,
      {VB(0, 0, 1024), VB(1, 0, 64), VB(1, 256, 16), VB(0, 1024, 1024)},
      {8, 8, 1}, 1));
  P.dispatches.push_back(dispatch(1, 1, {SC(0, 8), SC(1, 8), SC(2, 1), SC(3, 4)},
                                  16,
                                  {VB(0, 1024, 1024), VB(1, 512, 64),
                                   VB(0, 0, 1024)},
                                  {8, 8, 1}, 1));
  P.dispatches.push_back(dispatch(0, -1, {SC(0, 64), SC(1, 1), SC(2, 1)}, 8,
                                  {VB(0, 0, 1024), VB(3, 0, 1024)}, {64, 1, 1}, 4));
  for (int32_t T : {1, 4, 6}) {
    auto Pl = std::make_unique<fb::VulkanTensorPlaceT>();
    Pl->tensor = T;
    P.places.push_back(std::move(Pl));
  }
  M.payload.Set(std::move(P));

  // Lay the segments out after the FlatBuffer as the writer does: each at a
  // multiple of 64, then 64 zero bytes.
  flatbuffers::FlatBufferBuilder B;
  B.ForceDefaults(true);
  B.Finish(fb::Model::Pack(B, &M), fb::ModelIdentifier());
  MetalFile F;
  F.FlatBufferBytes = B.GetSize();
  uint64_t At = alignUp(F.FlatBufferBytes);
  for (auto &Seg : M.buffers) {
    Seg->offset = At;
    At = alignUp(At + Seg->size);
  }
  F.FileBytes = At + 64;
  F.Model = std::move(M);
  return F;
}

/// The lines of Text with runs of spaces collapsed and the ends trimmed.
std::vector<std::string> lines(const std::string &Text) {
  std::vector<std::string> R;
  std::istringstream In(Text);
  std::string L;
  while (std::getline(In, L)) {
    std::string C;
    for (char Ch : L)
      if (Ch != ' ' || (!C.empty() && C.back() != ' '))
        C += Ch;
    while (!C.empty() && C.back() == ' ')
      C.pop_back();
    R.push_back(C);
  }
  return R;
}

bool hasLine(const std::string &Text, const std::string &Line) {
  for (const std::string &L : lines(Text))
    if (L == Line)
      return true;
  return false;
}

int64_t num(const llvm::json::Object *O, llvm::StringRef Key) {
  auto V = O ? O->getInteger(Key) : llvm::None;
  return V ? *V : INT64_MIN;
}
std::string str(const llvm::json::Object *O, llvm::StringRef Key) {
  auto V = O ? O->getString(Key) : llvm::None;
  return V ? V->str() : "<absent>";
}

std::string errorText(llvm::Error E) { return llvm::toString(std::move(E)); }

} // namespace

TEST_CASE("the Metal section lists kernels, dispatches, buffers and totals",
          "[tooling][inspect][metal]") {
  MetalFile F = metalModel();
  std::string Text = metalTextSection(F.Model, /*Detail=*/false);
  INFO(Text);
  CHECK(hasLine(Text, "metal:"));
  CHECK(hasLine(Text, "MSL: 2.1"));
  CHECK(hasLine(Text, "fp16: no"));
  // 300 + 1000 + 50 bytes of MSL.
  CHECK(hasLine(Text, "kernels: 3 (1350 B of MSL)"));
  CHECK(hasLine(Text, "kernel entry MSL dispatches buffers push constants "
                      "threadgroup threadgroup memory"));
  CHECK(hasLine(Text, "gather main0 300 B 2 [0,1] buffer(2) 8 B 3 "
                      "[fc0,fc1,fc2] 0 B"));
  CHECK(hasLine(Text, "conv2d_c4 main0 1000 B 2 [0,1,2,3] buffer(4) 16 B 5 "
                      "[fc0,fc1,fc2] 512 B"));
  CHECK(hasLine(Text, "fixed_size main0 50 B 0 [0] - 0 [32,2,1] 0 B"));
  CHECK(hasLine(Text, "dispatches: 4"));
  CHECK(hasLine(Text, "# kernel operator threadgroups threads constants push "
                      "bindings"));
  CHECK(hasLine(Text, "0 gather - [3,1,1] [64,1,1] - 8 B "
                      "buf#2[0, +768] buf#0[0, +1024]"));
  CHECK(hasLine(Text, "1 conv2d_c4 conv_0 [1,1,1] [8,8,1] 3=3 4=1 16 B "
                      "buf#0[0, +1024] buf#1[0, +64] buf#1[256, +16] "
                      "buf#0[1024, +1024]"));
  CHECK(hasLine(Text, "2 conv2d_c4 conv_1 [1,1,1] [8,8,1] 3=4 16 B "
                      "buf#0[1024, +1024] buf#1[512, +64] buf#0[0, +1024]"));
  CHECK(hasLine(Text, "3 gather - [4,1,1] [64,1,1] - 8 B "
                      "buf#0[0, +1024] buf#3[0, +1024]"));
  CHECK(hasLine(Text, "buffers: 4"));
  CHECK(hasLine(Text, "buf#0 arena 2048 B"));
  CHECK(hasLine(Text, "buf#1 weights 768 B 3 uploads (144 B of segments)"));
  CHECK(hasLine(Text, "buf#2 input 768 B input 0 (x)"));
  CHECK(hasLine(Text, "buf#3 output 1024 B output 0 (y)"));
  CHECK(hasLine(Text, "places: 3 activations"));
  CHECK(hasLine(Text, "MSL 1350"));
  CHECK(hasLine(Text, "weights 768"));
  CHECK(hasLine(Text, "arena 2048"));
  CHECK(hasLine(Text, "inputs 768"));
  CHECK(hasLine(Text, "outputs 1024"));
}

TEST_CASE("the MSL version prints as major.minor[.patch]",
          "[tooling][inspect][metal]") {
  CHECK(mslVersionText(20100) == "2.1");
  CHECK(mslVersionText(30000) == "3.0");
  CHECK(mslVersionText(20403) == "2.4.3");
  MetalFile F = metalModel();
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
  MetalFile F = metalModel();
  auto &K = *F.Model.payload.AsMetalPayload()->kernels[2];
  K.threadgroup_size = {16, 4, 1};
  K.threadgroup_size_constants = {7, -1, -1};
  std::string Text = metalTextSection(F.Model, false);
  INFO(Text);
  CHECK(hasLine(Text, "fixed_size main0 50 B 0 [0] - 0 [fc7,4,1] 0 B"));
  llvm::json::Value V = metalJsonSection(F.Model);
  const llvm::json::Object *K2 =
      (*V.getAsObject()->getArray("kernels"))[2].getAsObject();
  CHECK(*K2->getArray("threadgroup_size") == llvm::json::Array{16, 4, 1});
  CHECK(*K2->getArray("threadgroup_size_constants") ==
        llvm::json::Array{7, nullptr, nullptr});
}

TEST_CASE("many Metal dispatches are listed only with the detail flag",
          "[tooling][inspect][metal]") {
  MetalFile F = metalModel();
  auto &P = *F.Model.payload.AsMetalPayload();
  while (P.dispatches.size() <= MetalDispatchListLimit)
    P.dispatches.push_back(dispatch(2, -1, {}, 0, {}, {32, 2, 1}, 1));
  size_t N = P.dispatches.size();
  std::string Short = metalTextSection(F.Model, false);
  CHECK(hasLine(Short, "dispatches: " + std::to_string(N) +
                           " (--nodes lists them)"));
  CHECK_FALSE(hasLine(Short, "0 gather - [3,1,1] [64,1,1] - 8 B "
                             "buf#2[0, +768] buf#0[0, +1024]"));
  std::string Long = metalTextSection(F.Model, true);
  CHECK(hasLine(Long, "dispatches: " + std::to_string(N)));
  CHECK(hasLine(Long, std::to_string(N - 1) +
                          " fixed_size - [1,1,1] [32,2,1] - 0 B -"));
  CHECK(hasLine(Long, "fixed_size main0 50 B " + std::to_string(N - 4) +
                          " [0] - 0 [32,2,1] 0 B"));
}

TEST_CASE("the Metal JSON holds the same data as numbers",
          "[tooling][inspect][metal]") {
  MetalFile F = metalModel();
  llvm::json::Value V = metalJsonSection(F.Model);
  INFO(llvm::formatv("{0:2}", V).str());
  const llvm::json::Object *O = V.getAsObject();
  REQUIRE(O);
  CHECK(str(O, "msl_version") == "2.1");
  CHECK(num(O, "msl_version_number") == 20100);
  CHECK(O->getBoolean("fp16") == llvm::Optional<bool>(false));

  const llvm::json::Array *K = O->getArray("kernels");
  REQUIRE(K);
  REQUIRE(K->size() == 3);
  const llvm::json::Object *K1 = (*K)[1].getAsObject();
  CHECK(str(K1, "name") == "conv2d_c4");
  CHECK(str(K1, "entry_point") == "main0");
  CHECK(num(K1, "msl_bytes") == 1000);
  CHECK(num(K1, "dispatches") == 2);
  CHECK(*K1->getArray("buffer_indices") == llvm::json::Array{0, 1, 2, 3});
  CHECK(num(K1, "push_constant_index") == 4);
  CHECK(num(K1, "push_constant_bytes") == 16);
  const llvm::json::Array *C1 = K1->getArray("function_constants");
  REQUIRE(C1);
  REQUIRE(C1->size() == 5);
  CHECK((*C1)[0] == llvm::json::Value(llvm::json::Object{{"id", 0}, {"type", "uint"}}));
  CHECK((*C1)[4] == llvm::json::Value(llvm::json::Object{{"id", 4}, {"type", "int"}}));
  CHECK(*K1->getArray("threadgroup_size_constants") == llvm::json::Array{0, 1, 2});
  CHECK(num(K1, "threadgroup_memory_bytes") == 512);
  const llvm::json::Object *K2 = (*K)[2].getAsObject();
  CHECK(num(K2, "push_constant_index") == -1);
  CHECK(num(K2, "dispatches") == 0);

  CHECK(num(O, "dispatch_count") == 4);
  const llvm::json::Array *D = O->getArray("dispatches");
  REQUIRE(D);
  REQUIRE(D->size() == 4);
  const llvm::json::Object *D1 = (*D)[1].getAsObject();
  CHECK(num(D1, "index") == 1);
  CHECK(num(D1, "kernel") == 1);
  CHECK(str(D1, "kernel_name") == "conv2d_c4");
  CHECK(num(D1, "operator") == 0);
  CHECK(str(D1, "operator_name") == "conv_0");
  CHECK(*D1->getArray("threadgroups") == llvm::json::Array{1, 1, 1});
  CHECK(*D1->getArray("threads_per_threadgroup") == llvm::json::Array{8, 8, 1});
  CHECK(*D1->getArray("function_constants") ==
        llvm::json::Array{llvm::json::Object{{"id", 3}, {"value", 3}},
                          llvm::json::Object{{"id", 4}, {"value", 1}}});
  CHECK(num(D1, "push_constant_bytes") == 16);
  const llvm::json::Array *B1 = D1->getArray("bindings");
  REQUIRE(B1);
  REQUIRE(B1->size() == 4);
  CHECK((*B1)[2] == llvm::json::Value(llvm::json::Object{
                        {"buffer", 1}, {"offset", 256}, {"size", 16}}));
  const llvm::json::Object *D0 = (*D)[0].getAsObject();
  CHECK(num(D0, "operator") == -1);
  CHECK(D0->get("operator_name")->getAsNull());
  CHECK(*D0->getArray("threadgroups") == llvm::json::Array{3, 1, 1});

  const llvm::json::Array *Bufs = O->getArray("buffers");
  REQUIRE(Bufs);
  REQUIRE(Bufs->size() == 4);
  const llvm::json::Object *W = (*Bufs)[1].getAsObject();
  CHECK(str(W, "kind") == "weights");
  CHECK(num(W, "size") == 768);
  CHECK(num(W, "uploads") == 3);
  CHECK(num(W, "upload_bytes") == 144);
  CHECK(num(O, "places") == 3);

  const llvm::json::Object *Bytes = O->getObject("bytes");
  REQUIRE(Bytes);
  CHECK(num(Bytes, "msl") == 1350);
  CHECK(num(Bytes, "weights") == 768);
  CHECK(num(Bytes, "uploaded") == 144);
  CHECK(num(Bytes, "arena") == 2048);
  CHECK(num(Bytes, "inputs") == 768);
  CHECK(num(Bytes, "outputs") == 1024);
}

TEST_CASE("a Metal file's stats: metal engine, MSL as target blobs, the "
          "section after the size breakdown",
          "[tooling][inspect][metal]") {
  MetalFile F = metalModel();
  KilnFileStats S = kilnFileStatsOf(F.Model, "m.kiln", F.FileBytes);
  REQUIRE(S.OpHistogram.count("CONV_2D"));
  CHECK(S.OpHistogram.at("CONV_2D").at("metal") == 2);
  const KilnSizeBreakdown &Z = S.Size;
  CHECK(Z.TargetBlobBytes == 1350);
  CHECK(Z.FlatBufferBytes == F.FlatBufferBytes - 1350);
  CHECK(Z.FlatBufferBytes + Z.TargetBlobBytes + Z.SegmentBytes + Z.PaddingBytes +
            Z.TailBytes ==
        F.FileBytes);

  std::string Text = kilnTextReport(S, false);
  INFO(Text);
  CHECK(hasLine(Text, "model: m.kiln (.kiln schema " +
                          std::to_string(fb::SchemaMajor) + "." +
                          std::to_string(fb::SchemaMinor) + ", target metal)"));
  CHECK(hasLine(Text, "CONV_2D 2 (2 metal)"));
  CHECK(hasLine(Text, "target blobs 1350"));
  CHECK(hasLine(Text, "weight layouts: 2 tensors packed for the metal kernels"));
  size_t Size = Text.find("target blobs"), Mt = Text.find("\nmetal:\n");
  REQUIRE(Mt != std::string::npos);
  CHECK(Size < Mt);
  CHECK(Text.find("\nvulkan:") == std::string::npos);

  llvm::json::Value J = kilnJsonReport(S, false);
  const llvm::json::Object *O = J.getAsObject();
  REQUIRE(O);
  CHECK(str(O, "payload") == "MetalPayload");
  CHECK(num(O->getObject("size"), "target_blobs") == 1350);
  REQUIRE(O->getObject("metal"));
  CHECK(O->get("vulkan") == nullptr);
  CHECK(num(O->getObject("metal")->getObject("bytes"), "msl") == 1350);
}

TEST_CASE("--kernel finds a Metal kernel's MSL by name",
          "[tooling][inspect][metal]") {
  MetalFile F = metalModel();
  F.Model.payload.AsMetalPayload()->kernels[1]->msl =
      "#include <metal_stdlib>\nkernel void main0() {}\n";
  CHECK(kilnKernelNames(F.Model) ==
        std::vector<std::string>{"gather", "conv2d_c4", "fixed_size"});
  auto Src = kilnKernelSource(F.Model, "m.kiln", "conv2d_c4");
  REQUIRE(static_cast<bool>(Src));
  CHECK(*Src == "#include <metal_stdlib>\nkernel void main0() {}\n");

  auto Missing = kilnKernelSource(F.Model, "m.kiln", "nope");
  REQUIRE_FALSE(static_cast<bool>(Missing));
  CHECK(errorText(Missing.takeError()) ==
        "m.kiln: no kernel named 'nope'; the file's kernels: gather, "
        "conv2d_c4, fixed_size");
}

TEST_CASE("a CPU file has no Metal section and no kernels",
          "[tooling][inspect][metal]") {
  MetalFile F = metalModel();
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

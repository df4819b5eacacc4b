// `kiln inspect` on a Vulkan file (schema 1.5), from a model built in
// memory with the object API: the kernels, dispatches, buffer plan and byte
// totals it prints, in text and JSON, and the counts that must not read a
// PACKED constant or a C4 activation as CPU data. The SPIR-V words are
// fakes: rendering counts them and never runs them. Every expected value is
// worked out by hand from the model below.
#include "Tooling/KilnFileStats.h"
#include "Tooling/KilnInspect.h"
#include "Tooling/VulkanInspect.h"

#include "schema/KilnSchemaVersion.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <catch2/catch.hpp>

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

std::unique_ptr<fb::VulkanShaderT> shader(std::string Name, size_t Words) {
  auto S = std::make_unique<fb::VulkanShaderT>();
  S->name = std::move(Name);
  S->spirv.assign(Words, 0x07230203u); // the SPIR-V magic, repeated
  return S;
}

std::unique_ptr<fb::VulkanDispatchT>
dispatch(uint32_t Shader, int32_t Op, std::vector<fb::VulkanSpecConstant> Spec,
         size_t PushBytes, std::vector<fb::VulkanBinding> Bindings,
         uint32_t GroupsX) {
  auto D = std::make_unique<fb::VulkanDispatchT>();
  D->shader = Shader;
  D->operator_ = Op;
  D->spec_constants = std::move(Spec);
  D->push_constants.assign(PushBytes, 0);
  D->bindings = std::move(Bindings);
  D->group_count_x = GroupsX;
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

// x f32[1,3,8,8] NCHW -> nchw_to_c4 -> t1 C4 [1,8,8,3]
//   -> conv_0 (1x1, 3->4, PACKED weight of 12 elements in a 64-byte
//      segment, bias 4) -> t2 C4 [1,8,8,4]
//   -> conv_1 (1x1, 4->4, PACKED weight of 16 elements, 64 bytes) -> t3 C4
//   -> c4_to_nchw -> y f32[1,4,8,8] NCHW
// Shaders: nchw_to_c4 5 words, conv2d_c4 12 words (both convs), c4_to_nchw
// 7 words.
struct VulkanFile {
  fb::ModelT Model;
  uint64_t FlatBufferBytes = 0; // the packed FlatBuffer, blobs included
  uint64_t FileBytes = 0;
};

VulkanFile vulkanModel() {
  fb::ModelT M;
  M.schema_major = fb::SchemaMajor;
  M.schema_minor = fb::SchemaMinor;
  M.target = fb::Target::VULKAN;
  M.metadata = std::make_unique<fb::MetadataT>();
  M.metadata->producer = "kiln";
  M.metadata->target = "vulkan";
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

  fb::VulkanPayloadT P;
  P.fp16 = false;
  P.required_features = {"storageBuffer16BitAccess"};
  P.shaders.push_back(shader("nchw_to_c4", 5));
  P.shaders.push_back(shader("conv2d_c4", 12));
  P.shaders.push_back(shader("c4_to_nchw", 7));
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
                                  {VB(2, 0, 768), VB(0, 0, 1024)}, 3));
  P.dispatches.push_back(dispatch(
      1, 0, {SC(0, 8), SC(1, 8), SC(2, 1), SC(3, 3), SC(4, 1)}, 16,
      {VB(0, 0, 1024), VB(1, 0, 64), VB(1, 256, 16), VB(0, 1024, 1024)}, 1));
  P.dispatches.push_back(dispatch(1, 1, {SC(0, 8), SC(1, 8), SC(2, 1), SC(3, 4)},
                                  16, {VB(0, 1024, 1024), VB(1, 512, 64),
                                       VB(0, 0, 1024)},
                                  1));
  P.dispatches.push_back(dispatch(2, -1, {SC(0, 64), SC(1, 1), SC(2, 1)}, 0,
                                  {VB(0, 0, 1024), VB(3, 0, 1024)}, 4));
  for (int32_t T : {1, 4, 6}) {
    auto Pl = std::make_unique<fb::VulkanTensorPlaceT>();
    Pl->tensor = T;
    P.places.push_back(std::move(Pl));
  }
  M.payload.Set(std::move(P));

  // Lay the segments out after the FlatBuffer as the writer does: each at a
  // multiple of 64, then 64 zero bytes. Offsets are ulong fields written
  // even when zero, so they do not change the FlatBuffer's size.
  flatbuffers::FlatBufferBuilder B;
  B.ForceDefaults(true);
  B.Finish(fb::Model::Pack(B, &M), fb::ModelIdentifier());
  VulkanFile F;
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

/// Key of O as a number or a string; a sentinel when absent or of another
/// type, so that a missing key fails the comparison.
int64_t num(const llvm::json::Object *O, llvm::StringRef Key) {
  auto V = O ? O->getInteger(Key) : llvm::None;
  return V ? *V : INT64_MIN;
}
std::string str(const llvm::json::Object *O, llvm::StringRef Key) {
  auto V = O ? O->getString(Key) : llvm::None;
  return V ? V->str() : "<absent>";
}

bool hasLine(const std::string &Text, const std::string &Line) {
  for (const std::string &L : lines(Text))
    if (L == Line)
      return true;
  return false;
}

} // namespace

TEST_CASE("the Vulkan section lists kernels, dispatches, buffers and totals",
          "[tooling][inspect][vulkan]") {
  VulkanFile F = vulkanModel();
  std::string Text = vulkanTextSection(F.Model, /*Detail=*/false);
  INFO(Text);
  CHECK(hasLine(Text, "vulkan:"));
  CHECK(hasLine(Text, "fp16: no"));
  CHECK(hasLine(Text, "features: storageBuffer16BitAccess"));
  // 5 + 12 + 7 = 24 words of 4 bytes.
  CHECK(hasLine(Text, "kernels: 3 (96 B of SPIR-V)"));
  CHECK(hasLine(Text, "nchw_to_c4 20 B 1 dispatch"));
  CHECK(hasLine(Text, "conv2d_c4 48 B 2 dispatches"));
  CHECK(hasLine(Text, "c4_to_nchw 28 B 1 dispatch"));
  CHECK(hasLine(Text, "dispatches: 4"));
  CHECK(hasLine(Text, "# shader operator groups workgroup spec push bindings"));
  CHECK(hasLine(Text, "0 nchw_to_c4 - [3,1,1] [64,1,1] - 8 B "
                      "buf#2[0, +768] buf#0[0, +1024]"));
  CHECK(hasLine(Text, "1 conv2d_c4 conv_0 [1,1,1] [8,8,1] 3=3 4=1 16 B "
                      "buf#0[0, +1024] buf#1[0, +64] buf#1[256, +16] "
                      "buf#0[1024, +1024]"));
  CHECK(hasLine(Text, "2 conv2d_c4 conv_1 [1,1,1] [8,8,1] 3=4 16 B "
                      "buf#0[1024, +1024] buf#1[512, +64] buf#0[0, +1024]"));
  CHECK(hasLine(Text, "3 c4_to_nchw - [4,1,1] [64,1,1] - 0 B "
                      "buf#0[0, +1024] buf#3[0, +1024]"));
  CHECK(hasLine(Text, "buffers: 4"));
  CHECK(hasLine(Text, "buf#0 arena 2048 B"));
  // Segments of 64 + 16 + 64 bytes.
  CHECK(hasLine(Text, "buf#1 weights 768 B 3 uploads (144 B of segments)"));
  CHECK(hasLine(Text, "buf#2 input 768 B input 0 (x)"));
  CHECK(hasLine(Text, "buf#3 output 1024 B output 0 (y)"));
  CHECK(hasLine(Text, "places: 3 activations"));
  CHECK(hasLine(Text, "SPIR-V 96"));
  CHECK(hasLine(Text, "weights 768"));
  CHECK(hasLine(Text, "arena 2048"));
  CHECK(hasLine(Text, "inputs 768"));
  CHECK(hasLine(Text, "outputs 1024"));
}

TEST_CASE("a workgroup size the dispatch does not set prints as ?",
          "[tooling][inspect][vulkan]") {
  VulkanFile F = vulkanModel();
  auto &D = *F.Model.payload.AsVulkanPayload()->dispatches[3];
  D.spec_constants = {fb::VulkanSpecConstant(0, 32), fb::VulkanSpecConstant(7, 9)};
  std::string Text = vulkanTextSection(F.Model, false);
  INFO(Text);
  CHECK(hasLine(Text, "3 c4_to_nchw - [4,1,1] [32,?,?] 7=9 0 B "
                      "buf#0[0, +1024] buf#3[0, +1024]"));
}

TEST_CASE("many dispatches are listed only with the detail flag",
          "[tooling][inspect][vulkan]") {
  VulkanFile F = vulkanModel();
  auto &P = *F.Model.payload.AsVulkanPayload();
  while (P.dispatches.size() <= VulkanDispatchListLimit)
    P.dispatches.push_back(dispatch(2, -1, {}, 0, {}, 1));
  size_t N = P.dispatches.size();
  std::string Short = vulkanTextSection(F.Model, false);
  CHECK(hasLine(Short, "dispatches: " + std::to_string(N) +
                           " (--nodes lists them)"));
  CHECK_FALSE(hasLine(Short, "0 nchw_to_c4 - [3,1,1] [64,1,1] - 8 B "
                             "buf#2[0, +768] buf#0[0, +1024]"));
  std::string Long = vulkanTextSection(F.Model, true);
  CHECK(hasLine(Long, "dispatches: " + std::to_string(N)));
  CHECK(hasLine(Long, std::to_string(N - 1) + " c4_to_nchw - [1,1,1] [?,?,?] - 0 B -"));
  // c4_to_nchw: the original dispatch and every one added.
  CHECK(hasLine(Long, "c4_to_nchw 28 B " + std::to_string(N - 3) + " dispatches"));
}

TEST_CASE("a kernel's fp16-arithmetic twin shows beside it",
          "[tooling][inspect][vulkan]") {
  VulkanFile F = vulkanModel();
  auto &P = *F.Model.payload.AsVulkanPayload();
  P.shaders[1]->name = "conv2d_c4_f16";
  P.shaders.push_back(shader("conv2d_c4_f16math", 10));
  P.shaders[1]->fp16_math_variant = 3;
  std::string Text = vulkanTextSection(F.Model, false);
  INFO(Text);
  CHECK(hasLine(Text, "kernels: 4 (136 B of SPIR-V)"));
  CHECK(hasLine(Text, "conv2d_c4_f16 48 B 2 dispatches (fp16 arithmetic: "
                      "conv2d_c4_f16math)"));
  CHECK(hasLine(Text, "conv2d_c4_f16math 40 B 0 dispatches"));
  CHECK(hasLine(Text, "nchw_to_c4 20 B 1 dispatch"));

  llvm::json::Value V = vulkanJsonSection(F.Model);
  const llvm::json::Array *K = V.getAsObject()->getArray("kernels");
  REQUIRE(K);
  REQUIRE(K->size() == 4);
  CHECK(str((*K)[1].getAsObject(), "fp16_math_variant") == "conv2d_c4_f16math");
  CHECK(str((*K)[3].getAsObject(), "fp16_math_variant") == "<absent>");
}

TEST_CASE("the Vulkan JSON holds the same data as numbers",
          "[tooling][inspect][vulkan]") {
  VulkanFile F = vulkanModel();
  llvm::json::Value V = vulkanJsonSection(F.Model);
  INFO(llvm::formatv("{0:2}", V).str());
  const llvm::json::Object *O = V.getAsObject();
  REQUIRE(O);
  CHECK(O->getBoolean("fp16") == llvm::Optional<bool>(false));
  REQUIRE(O->getArray("required_features"));
  CHECK(O->getArray("required_features")->size() == 1);

  const llvm::json::Array *K = O->getArray("kernels");
  REQUIRE(K);
  REQUIRE(K->size() == 3);
  const llvm::json::Object *K1 = (*K)[1].getAsObject();
  CHECK(str(K1, "name") == "conv2d_c4");
  CHECK(num(K1, "spirv_bytes") == 48);
  CHECK(num(K1, "dispatches") == 2);

  CHECK(num(O, "dispatch_count") == 4);
  const llvm::json::Array *D = O->getArray("dispatches");
  REQUIRE(D);
  REQUIRE(D->size() == 4);
  const llvm::json::Object *D1 = (*D)[1].getAsObject();
  CHECK(num(D1, "index") == 1);
  CHECK(num(D1, "shader") == 1);
  CHECK(str(D1, "shader_name") == "conv2d_c4");
  CHECK(num(D1, "operator") == 0);
  CHECK(str(D1, "operator_name") == "conv_0");
  CHECK(*D1->getArray("group_count") == llvm::json::Array{1, 1, 1});
  CHECK(*D1->getArray("workgroup_size") == llvm::json::Array{8, 8, 1});
  CHECK(*D1->getArray("spec_constants") ==
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

  const llvm::json::Array *Bufs = O->getArray("buffers");
  REQUIRE(Bufs);
  REQUIRE(Bufs->size() == 4);
  const llvm::json::Object *W = (*Bufs)[1].getAsObject();
  CHECK(str(W, "kind") == "weights");
  CHECK(num(W, "size") == 768);
  CHECK(num(W, "uploads") == 3);
  CHECK(num(W, "upload_bytes") == 144);
  const llvm::json::Object *Out = (*Bufs)[3].getAsObject();
  CHECK(str(Out, "kind") == "output");
  CHECK(num(Out, "io_index") == 0);
  CHECK(num(O, "places") == 3);

  const llvm::json::Object *Bytes = O->getObject("bytes");
  REQUIRE(Bytes);
  CHECK(num(Bytes, "spirv") == 96);
  CHECK(num(Bytes, "weights") == 768);
  CHECK(num(Bytes, "uploaded") == 144);
  CHECK(num(Bytes, "arena") == 2048);
  CHECK(num(Bytes, "inputs") == 768);
  CHECK(num(Bytes, "outputs") == 1024);
}

TEST_CASE("a Vulkan file's stats: vulkan engine, logical counts, SPIR-V as "
          "target blobs",
          "[tooling][inspect][vulkan]") {
  VulkanFile F = vulkanModel();
  KilnFileStats S = kilnFileStatsOf(F.Model, "v.kiln", F.FileBytes);
  // Operator.engine is left at ANY by the Vulkan compiler.
  REQUIRE(S.OpHistogram.count("CONV_2D"));
  CHECK(S.OpHistogram.at("CONV_2D").size() == 1);
  CHECK(S.OpHistogram.at("CONV_2D").at("vulkan") == 2);
  // Logical shapes, not segment bytes: 12 + 4 + 16 elements; the bytes are
  // the segments as stored (64 + 16 + 64, the PACKED ones padded).
  CHECK(S.ParamsByType.at("f32") == std::make_pair(int64_t(32), int64_t(144)));
  CHECK(S.Operators[0].Params == 16);
  CHECK(S.Operators[1].Params == 16);
  // C4 outputs count as their NHWC dims: 8*8*4 outputs of 3 and 4 MACs.
  CHECK(S.Operators[0].Macs == 768);
  CHECK(S.Operators[1].Macs == 1024);
  CHECK(S.TotalMacs == 1792);

  const KilnSizeBreakdown &Z = S.Size;
  CHECK(Z.TargetBlobBytes == 96);
  CHECK(Z.FlatBufferBytes == F.FlatBufferBytes - 96);
  CHECK(Z.SegmentBytes == 144);
  CHECK(Z.SegmentCount == 3);
  CHECK(Z.TailBytes == 64);
  CHECK(Z.FlatBufferBytes + Z.TargetBlobBytes + Z.SegmentBytes + Z.PaddingBytes +
            Z.TailBytes ==
        F.FileBytes);

  std::string Text = kilnTextReport(S, false);
  INFO(Text);
  CHECK(hasLine(Text, "model: v.kiln (.kiln schema " +
                          std::to_string(fb::SchemaMajor) + "." +
                          std::to_string(fb::SchemaMinor) + ", target vulkan)"));
  CHECK(hasLine(Text, "CONV_2D 2 (2 vulkan)"));
  CHECK(hasLine(Text, "target blobs 96"));
  CHECK(hasLine(Text, "MACs: 1.8 K (1792)"));
  CHECK(hasLine(Text, "weight layouts: 2 tensors packed for the vulkan kernels"));
  // The Vulkan section comes after the size breakdown.
  size_t Size = Text.find("target blobs"), Vk = Text.find("\nvulkan:\n");
  REQUIRE(Vk != std::string::npos);
  CHECK(Size < Vk);

  llvm::json::Value J = kilnJsonReport(S, false);
  const llvm::json::Object *O = J.getAsObject();
  REQUIRE(O);
  CHECK(str(O, "payload") == "VulkanPayload");
  CHECK(num(O->getObject("size"), "target_blobs") == 96);
  CHECK(num(O, "packed_weights") == 2);
  REQUIRE(O->getObject("vulkan"));
  CHECK(num(O->getObject("vulkan")->getObject("bytes"), "spirv") == 96);
  CHECK(num(O->getObject("ops")->getObject("CONV_2D"), "vulkan") == 2);
}

TEST_CASE("a CPU file has no Vulkan section and no target blobs",
          "[tooling][inspect][vulkan]") {
  VulkanFile F = vulkanModel();
  F.Model.target = fb::Target::CPU;
  F.Model.payload.Set(fb::CpuPayloadT());
  for (auto &Op : F.Model.operators)
    Op->engine = fb::Engine::XNNPACK;
  KilnFileStats S = kilnFileStatsOf(F.Model, "c.kiln", F.FileBytes);
  CHECK(S.Size.TargetBlobBytes == 0);
  CHECK(S.OpHistogram.at("CONV_2D").at("xnnpack") == 2);
  CHECK(vulkanTextSection(S.Model, true).empty());
  std::string Text = kilnTextReport(S, true);
  CHECK(Text.find("\nvulkan:") == std::string::npos);
  CHECK(Text.find("vulkan)") == std::string::npos); // the target in the header
  CHECK(kilnJsonReport(S, true).getAsObject()->get("vulkan") == nullptr);
}

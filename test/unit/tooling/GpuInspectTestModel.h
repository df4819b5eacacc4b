// The model the Vulkan and Metal inspect tests (VulkanInspectTest.cpp,
// MetalInspectTest.cpp) build in memory with the object API, and the
// helpers both read their output with. Both targets lower the same way, so
// one graph, buffer plan and dispatch list serves both; each test adds its
// own kernels and dispatch records. Every value is small enough to work
// the expected output out by hand:
//
// x f32[1,3,8,8] NCHW -> nchw_to_c4 -> t1 C4 [1,8,8,3]
//   -> conv_0 (1x1, 3->4, PACKED weight of 12 elements in a 64-byte
//      segment, bias 4) -> t2 C4 [1,8,8,4]
//   -> conv_1 (1x1, 4->4, PACKED weight of 16 elements, 64 bytes) -> t3 C4
//   -> c4_to_nchw -> y f32[1,4,8,8] NCHW
// Kernels: 0 nchw_to_c4, 1 conv2d_c4 (both convs), 2 c4_to_nchw.
#pragma once

#include "Tooling/KilnFileStats.h"
#include "Tooling/KilnInspect.h"
#include "schema/KilnSchemaVersion.h"
#include "schema/kiln_generated.h"

#include "llvm/Support/JSON.h"

#include <catch2/catch.hpp>

#include <climits>
#include <cstdint>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace kiln::test {

inline std::unique_ptr<fb::TensorT> tensor(std::string Name,
                                           std::vector<int64_t> Shape,
                                           fb::Layout Layout,
                                           int32_t Buffer = -1) {
  auto T = std::make_unique<fb::TensorT>();
  T->name = std::move(Name);
  T->dtype = fb::DType::F32;
  T->shape = std::move(Shape);
  T->layout = Layout;
  T->buffer = Buffer;
  return T;
}

inline std::unique_ptr<fb::OperatorT> conv1x1(std::string Name,
                                              std::vector<int32_t> In,
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

inline std::unique_ptr<fb::VulkanBufferT>
gpuBuffer(fb::VulkanBufferKind Kind, uint64_t Size, int32_t Io = -1) {
  auto B = std::make_unique<fb::VulkanBufferT>();
  B->kind = Kind;
  B->size = Size;
  B->io_index = Io;
  return B;
}

inline uint64_t alignUp(uint64_t X) { return (X + 63) / 64 * 64; }

/// The graph above, for Target: tensors, the two convolutions, three weight
/// segments (64 + 16 + 64 bytes).
inline fb::ModelT convGraph(fb::Target Target, const std::string &TargetName) {
  fb::ModelT M;
  M.schema_major = fb::SchemaMajor;
  M.schema_minor = fb::SchemaMinor;
  M.target = Target;
  M.metadata = std::make_unique<fb::MetadataT>();
  M.metadata->producer = "kiln";
  M.metadata->target = TargetName;
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
  return M;
}

/// The buffer plan: buf#0 arena 2048, buf#1 weights 768 (the three
/// segments at 0, 256, 512), buf#2 input 0 768, buf#3 output 0 1024.
inline std::vector<std::unique_ptr<fb::VulkanBufferT>> gpuBufferPlan() {
  std::vector<std::unique_ptr<fb::VulkanBufferT>> R;
  R.push_back(gpuBuffer(fb::VulkanBufferKind::ARENA, 2048));
  auto W = gpuBuffer(fb::VulkanBufferKind::WEIGHTS, 768);
  W->uploads = {fb::VulkanUpload(0, 0), fb::VulkanUpload(1, 256),
                fb::VulkanUpload(2, 512)};
  R.push_back(std::move(W));
  R.push_back(gpuBuffer(fb::VulkanBufferKind::INPUT, 768, 0));
  R.push_back(gpuBuffer(fb::VulkanBufferKind::OUTPUT, 1024, 0));
  return R;
}

/// The three C4 activations' places.
inline std::vector<std::unique_ptr<fb::VulkanTensorPlaceT>> gpuPlaces() {
  std::vector<std::unique_ptr<fb::VulkanTensorPlaceT>> R;
  for (int32_t T : {1, 4, 6}) {
    auto Pl = std::make_unique<fb::VulkanTensorPlaceT>();
    Pl->tensor = T;
    R.push_back(std::move(Pl));
  }
  return R;
}

/// One dispatch of the plan, before a target records it.
struct GpuDispatchSpec {
  uint32_t Kernel;
  int32_t Op;
  std::vector<fb::VulkanSpecConstant> Constants; // 0..2: the workgroup size
  size_t PushBytes;
  std::vector<fb::VulkanBinding> Bindings;
  uint32_t GroupsX;
};

/// nchw_to_c4 [3,1,1] x [64,1,1]; conv2d_c4 for conv_0 and conv_1, [1,1,1]
/// x [8,8,1] with constants 3 and 4; c4_to_nchw [4,1,1] x [64,1,1].
inline std::vector<GpuDispatchSpec> gpuDispatchPlan() {
  using SC = fb::VulkanSpecConstant;
  using VB = fb::VulkanBinding;
  return {
      {0, -1, {SC(0, 64), SC(1, 1), SC(2, 1)}, 8, {VB(2, 0, 768), VB(0, 0, 1024)}, 3},
      {1, 0, {SC(0, 8), SC(1, 8), SC(2, 1), SC(3, 3), SC(4, 1)}, 16,
       {VB(0, 0, 1024), VB(1, 0, 64), VB(1, 256, 16), VB(0, 1024, 1024)}, 1},
      {1, 1, {SC(0, 8), SC(1, 8), SC(2, 1), SC(3, 4)}, 16,
       {VB(0, 1024, 1024), VB(1, 512, 64), VB(0, 0, 1024)}, 1},
      {2, -1, {SC(0, 64), SC(1, 1), SC(2, 1)}, 0, {VB(0, 0, 1024), VB(3, 0, 1024)}, 4},
  };
}

struct FileLayout {
  uint64_t FlatBufferBytes = 0; // the packed FlatBuffer, blobs included
  uint64_t FileBytes = 0;
};

/// Lays M's segments out after its FlatBuffer as the writer does: each at
/// a multiple of 64, then 64 zero bytes. Offsets are ulong fields written
/// even when zero, so they do not change the FlatBuffer's size.
inline FileLayout layOut(fb::ModelT &M) {
  flatbuffers::FlatBufferBuilder B;
  B.ForceDefaults(true);
  B.Finish(fb::Model::Pack(B, &M), fb::ModelIdentifier());
  FileLayout F;
  F.FlatBufferBytes = B.GetSize();
  uint64_t At = alignUp(F.FlatBufferBytes);
  for (auto &Seg : M.buffers) {
    Seg->offset = At;
    At = alignUp(At + Seg->size);
  }
  F.FileBytes = At + 64;
  return F;
}

struct GpuFile : FileLayout {
  fb::ModelT Model;
};

/// M with payload P (VulkanPayloadT, MetalPayloadT), P given the buffer
/// plan and places, laid out.
template <typename PayloadT> GpuFile gpuFile(fb::ModelT M, PayloadT P) {
  P.buffers = gpuBufferPlan();
  P.places = gpuPlaces();
  M.payload.Set(std::move(P));
  GpuFile F;
  static_cast<FileLayout &>(F) = layOut(M);
  F.Model = std::move(M);
  return F;
}

/// The lines of Text with runs of spaces collapsed and the ends trimmed.
inline std::vector<std::string> lines(const std::string &Text) {
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

inline bool hasLine(const std::string &Text, const std::string &Line) {
  for (const std::string &L : lines(Text))
    if (L == Line)
      return true;
  return false;
}

/// Key of O as a number or a string; a sentinel when absent or of another
/// type, so that a missing key fails the comparison.
inline int64_t num(const llvm::json::Object *O, llvm::StringRef Key) {
  auto V = O ? O->getInteger(Key) : llvm::None;
  return V ? *V : INT64_MIN;
}
inline std::string str(const llvm::json::Object *O, llvm::StringRef Key) {
  auto V = O ? O->getString(Key) : llvm::None;
  return V ? V->str() : "<absent>";
}

/// The dispatch plan's rows in a section's text: #, kernel, operator, group
/// counts, workgroup size, constants, push bytes, bindings. Vulkan lists the
/// constants beyond the workgroup size; Metal (Sizes) every function
/// constant, the workgroup size's (0, 1, 2) first.
inline void checkGpuDispatchRows(const std::string &Text, bool Sizes = false) {
  auto Row = [&](const char *Head, const char *SizeConstants,
                 const char *Others, const char *Tail) {
    std::string C = Sizes ? std::string(SizeConstants) +
                                (*Others ? std::string(" ") + Others : "")
                          : std::string(*Others ? Others : "-");
    return std::string(Head) + " " + C + " " + Tail;
  };
  CHECK(hasLine(Text, Row("0 nchw_to_c4 - [3,1,1] [64,1,1]", "0=64 1=1 2=1",
                          "", "8 B buf#2[0, +768] buf#0[0, +1024]")));
  CHECK(hasLine(Text, Row("1 conv2d_c4 conv_0 [1,1,1] [8,8,1]", "0=8 1=8 2=1",
                          "3=3 4=1",
                          "16 B buf#0[0, +1024] buf#1[0, +64] "
                          "buf#1[256, +16] buf#0[1024, +1024]")));
  CHECK(hasLine(Text, Row("2 conv2d_c4 conv_1 [1,1,1] [8,8,1]", "0=8 1=8 2=1",
                          "3=4",
                          "16 B buf#0[1024, +1024] buf#1[512, +64] "
                          "buf#0[0, +1024]")));
  CHECK(hasLine(Text, Row("3 c4_to_nchw - [4,1,1] [64,1,1]", "0=64 1=1 2=1",
                          "", "0 B buf#0[0, +1024] buf#3[0, +1024]")));
}

/// The dispatch plan in a section's JSON (O): the target names the kernel
/// (KernelKey, KernelKey + "_name"), the group counts (GroupsKey), the
/// workgroup size (ThreadsKey) and the constants beyond it (ConstantsKey).
inline void checkGpuDispatchesJson(const llvm::json::Object &O,
                                   const std::string &KernelKey,
                                   llvm::StringRef GroupsKey,
                                   llvm::StringRef ThreadsKey,
                                   llvm::StringRef ConstantsKey,
                                   bool Sizes = false) {
  CHECK(num(&O, "dispatch_count") == 4);
  const llvm::json::Array *D = O.getArray("dispatches");
  REQUIRE(D);
  REQUIRE(D->size() == 4);
  const llvm::json::Object *D1 = (*D)[1].getAsObject();
  REQUIRE(D1);
  CHECK(num(D1, "index") == 1);
  CHECK(num(D1, KernelKey) == 1);
  CHECK(str(D1, KernelKey + "_name") == "conv2d_c4");
  CHECK(num(D1, "operator") == 0);
  CHECK(str(D1, "operator_name") == "conv_0");
  REQUIRE(D1->getArray(GroupsKey));
  CHECK(*D1->getArray(GroupsKey) == llvm::json::Array{1, 1, 1});
  REQUIRE(D1->getArray(ThreadsKey));
  CHECK(*D1->getArray(ThreadsKey) == llvm::json::Array{8, 8, 1});
  REQUIRE(D1->getArray(ConstantsKey));
  llvm::json::Array Constants;
  if (Sizes) // Metal: the workgroup size's function constants too
    for (int64_t Id = 0; Id < 3; ++Id)
      Constants.push_back(
          llvm::json::Object{{"id", Id}, {"value", Id == 2 ? 1 : 8}});
  Constants.push_back(llvm::json::Object{{"id", 3}, {"value", 3}});
  Constants.push_back(llvm::json::Object{{"id", 4}, {"value", 1}});
  CHECK(*D1->getArray(ConstantsKey) == Constants);
  CHECK(num(D1, "push_constant_bytes") == 16);
  const llvm::json::Array *B1 = D1->getArray("bindings");
  REQUIRE(B1);
  REQUIRE(B1->size() == 4);
  CHECK((*B1)[2] == llvm::json::Value(llvm::json::Object{
                        {"buffer", 1}, {"offset", 256}, {"size", 16}}));
  const llvm::json::Object *D0 = (*D)[0].getAsObject();
  REQUIRE(D0);
  CHECK(num(D0, "operator") == -1);
  CHECK(D0->get("operator_name")->getAsNull());
  CHECK(*D0->getArray(GroupsKey) == llvm::json::Array{3, 1, 1});
}

/// The buffer plan's lines in a section's text, and the totals but for the
/// kernels' bytes.
inline void checkGpuBufferPlanText(const std::string &Text) {
  CHECK(hasLine(Text, "buffers: 4"));
  CHECK(hasLine(Text, "buf#0 arena 2048 B"));
  // Segments of 64 + 16 + 64 bytes.
  CHECK(hasLine(Text, "buf#1 weights 768 B 3 uploads (144 B of segments)"));
  CHECK(hasLine(Text, "buf#2 input 768 B input 0 (x)"));
  CHECK(hasLine(Text, "buf#3 output 1024 B output 0 (y)"));
  CHECK(hasLine(Text, "places: 3 activations"));
  CHECK(hasLine(Text, "weights 768"));
  CHECK(hasLine(Text, "arena 2048"));
  CHECK(hasLine(Text, "inputs 768"));
  CHECK(hasLine(Text, "outputs 1024"));
}

/// The same in a section's JSON (O), with the kernels' bytes under
/// KernelKey.
inline void checkGpuBufferPlanJson(const llvm::json::Object &O,
                                   llvm::StringRef KernelKey,
                                   int64_t KernelBytes) {
  const llvm::json::Array *Bufs = O.getArray("buffers");
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
  CHECK(num(&O, "places") == 3);

  const llvm::json::Object *Bytes = O.getObject("bytes");
  REQUIRE(Bytes);
  CHECK(num(Bytes, KernelKey) == KernelBytes);
  CHECK(num(Bytes, "weights") == 768);
  CHECK(num(Bytes, "uploaded") == 144);
  CHECK(num(Bytes, "arena") == 2048);
  CHECK(num(Bytes, "inputs") == 768);
  CHECK(num(Bytes, "outputs") == 1024);
}

/// What `kiln inspect` reports of F as a whole for a GPU target (Target as
/// --target spells it; its section is Target + ":" and JSON key Target):
/// the operators on the target's engine, the kernels' bytes (BlobBytes,
/// under KernelKey in the section's JSON) as target blobs that, with the
/// rest, add up to the file, and the section after the size breakdown.
inline void checkGpuFileReport(const GpuFile &F, const std::string &Target,
                               uint64_t BlobBytes, llvm::StringRef KernelKey) {
  KilnFileStats S = kilnFileStatsOf(F.Model, "g.kiln", F.FileBytes);
  REQUIRE(S.OpHistogram.count("CONV_2D"));
  CHECK(S.OpHistogram.at("CONV_2D").size() == 1);
  CHECK(S.OpHistogram.at("CONV_2D").at(Target) == 2);
  const KilnSizeBreakdown &Z = S.Size;
  CHECK(Z.TargetBlobBytes == BlobBytes);
  CHECK(Z.FlatBufferBytes == F.FlatBufferBytes - BlobBytes);
  CHECK(Z.SegmentBytes == 144);
  CHECK(Z.SegmentCount == 3);
  CHECK(Z.TailBytes == 64);
  CHECK(Z.FlatBufferBytes + Z.TargetBlobBytes + Z.SegmentBytes + Z.PaddingBytes +
            Z.TailBytes ==
        F.FileBytes);

  std::string Text = kilnTextReport(S, false);
  INFO(Text);
  CHECK(hasLine(Text, "model: g.kiln (.kiln schema " +
                          std::to_string(fb::SchemaMajor) + "." +
                          std::to_string(fb::SchemaMinor) + ", target " +
                          Target + ")"));
  CHECK(hasLine(Text, "CONV_2D 2 (2 " + Target + ")"));
  CHECK(hasLine(Text, "target blobs " + std::to_string(BlobBytes)));
  CHECK(hasLine(Text, "weight layouts: 2 tensors packed for the " + Target +
                          " kernels"));
  size_t Size = Text.find("target blobs"),
         Section = Text.find("\n" + Target + ":\n");
  REQUIRE(Section != std::string::npos);
  CHECK(Size < Section);

  llvm::json::Value J = kilnJsonReport(S, false);
  const llvm::json::Object *O = J.getAsObject();
  REQUIRE(O);
  CHECK(num(O->getObject("size"), "target_blobs") == int64_t(BlobBytes));
  CHECK(num(O, "packed_weights") == 2);
  CHECK(num(O->getObject("ops")->getObject("CONV_2D"), Target) == 2);
  REQUIRE(O->getObject(Target));
  CHECK(num(O->getObject(Target)->getObject("bytes"), KernelKey) ==
        int64_t(BlobBytes));
}

} // namespace kiln::test

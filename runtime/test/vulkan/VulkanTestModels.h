// Small Vulkan .kiln files for the executor's and the loader's tests, built
// with the schema's object API and a tiny writer of their own (the runtime's
// tests do not link the compiler): the FlatBuffer, then each weight segment
// at the next 64-byte boundary. The kernels are the test kernels compiled at
// build time (TestKernels.h).
#pragma once

#include "TestKernels.h" // generated: kiln::testkernels::*

#include "schema/KilnSchemaVersion.h"
#include "schema/kiln_generated.h"

#include <cstring>
#include <string>
#include <vector>

namespace kiln::vktest {

/// A model under construction plus the bytes of its weight segments.
struct VulkanModel {
  fb::ModelT Model;
  std::vector<std::vector<uint8_t>> Segments;

  fb::VulkanPayloadT &payload() { return *Model.payload.AsVulkanPayload(); }

  VulkanModel() {
    Model.schema_major = fb::SchemaMajor;
    Model.schema_minor = fb::SchemaMinor;
    Model.target = fb::Target::VULKAN;
    Model.payload.Set(fb::VulkanPayloadT());
  }

  int32_t tensor(std::string Name, std::vector<int64_t> Shape,
                 fb::Layout Layout = fb::Layout::PLAIN) {
    auto T = std::make_unique<fb::TensorT>();
    T->name = std::move(Name);
    T->dtype = fb::DType::F32;
    T->shape = std::move(Shape);
    T->layout = Layout;
    T->buffer = -1;
    Model.tensors.push_back(std::move(T));
    return int32_t(Model.tensors.size() - 1);
  }
  /// A weight segment of Values; returns its index in Model.buffers.
  uint32_t segment(const std::vector<float> &Values) {
    std::vector<uint8_t> Bytes(Values.size() * 4);
    std::memcpy(Bytes.data(), Values.data(), Bytes.size());
    Segments.push_back(std::move(Bytes));
    auto B = std::make_unique<fb::BufferT>();
    B->size = Segments.back().size();
    Model.buffers.push_back(std::move(B));
    return uint32_t(Segments.size() - 1);
  }
  /// A descriptive operator (the executor never reads its kind).
  int32_t op(std::vector<int32_t> In, std::vector<int32_t> Out) {
    auto O = std::make_unique<fb::OperatorT>();
    O->kind = fb::OpKind::UNARY;
    O->options.Set(fb::UnaryOptionsT());
    O->inputs = std::move(In);
    O->outputs = std::move(Out);
    O->name = "op" + std::to_string(Model.operators.size());
    Model.operators.push_back(std::move(O));
    return int32_t(Model.operators.size() - 1);
  }
  uint32_t shader(std::string Name, const uint32_t *Words, size_t Bytes) {
    auto S = std::make_unique<fb::VulkanShaderT>();
    S->name = std::move(Name);
    S->spirv.assign(Words, Words + Bytes / 4);
    payload().shaders.push_back(std::move(S));
    return uint32_t(payload().shaders.size() - 1);
  }
  uint32_t buffer(fb::VulkanBufferKind Kind, uint64_t Size, int32_t Io = -1) {
    auto B = std::make_unique<fb::VulkanBufferT>();
    B->kind = Kind;
    B->size = Size;
    B->io_index = Io;
    payload().buffers.push_back(std::move(B));
    return uint32_t(payload().buffers.size() - 1);
  }
  fb::VulkanDispatchT &dispatch(uint32_t Shader,
                                std::vector<fb::VulkanBinding> Bindings,
                                std::vector<uint32_t> Push, uint32_t Groups,
                                int32_t Op,
                                std::vector<fb::VulkanSpecConstant> Spec = {}) {
    auto D = std::make_unique<fb::VulkanDispatchT>();
    D->shader = Shader;
    D->bindings = std::move(Bindings);
    D->push_constants.resize(Push.size() * 4);
    std::memcpy(D->push_constants.data(), Push.data(), Push.size() * 4);
    D->group_count_x = Groups;
    D->operator_ = Op;
    D->spec_constants = std::move(Spec);
    payload().dispatches.push_back(std::move(D));
    return *payload().dispatches.back();
  }
  void place(int32_t Tensor, uint32_t Buffer, uint64_t Offset, uint64_t Size) {
    auto P = std::make_unique<fb::VulkanTensorPlaceT>();
    P->tensor = Tensor;
    P->buffer = Buffer;
    P->offset = Offset;
    P->size = Size;
    payload().places.push_back(std::move(P));
  }

  /// The file: the FlatBuffer (every field written, so that the segment
  /// offsets can be set in place), then the 64-byte aligned segments.
  std::string bytes() const {
    flatbuffers::FlatBufferBuilder B;
    B.ForceDefaults(true);
    B.Finish(fb::Model::Pack(B, &Model), fb::ModelIdentifier());
    std::string File(reinterpret_cast<const char *>(B.GetBufferPointer()),
                     B.GetSize());
    std::vector<uint64_t> Offsets;
    for (const std::vector<uint8_t> &S : Segments) {
      File.resize((File.size() + 63) / 64 * 64, '\0');
      Offsets.push_back(File.size());
      File.append(reinterpret_cast<const char *>(S.data()), S.size());
    }
    fb::Model *Root = fb::GetMutableModel(File.data());
    for (size_t I = 0; I < Offsets.size(); ++I)
      Root->mutable_buffers()->GetMutableObject(unsigned(I))->mutate_offset(
          Offsets[I]);
    return File;
  }
};

inline uint32_t floatBits(float F) {
  uint32_t U;
  std::memcpy(&U, &F, 4);
  return U;
}

/// x f32[6] -> (x * 2 + 1) into the arena -> (a * -1 + 0.5) -> y f32[6]:
/// two dispatches of scale_bias, with specialization and push constants,
/// an INPUT -> ARENA -> OUTPUT chain, and the arena's place at offset 256.
inline VulkanModel chainModel() {
  namespace k = kiln::testkernels;
  VulkanModel M;
  int32_t X = M.tensor("x", {6}), A = M.tensor("a", {6}), Y = M.tensor("y", {6});
  int32_t Op0 = M.op({X}, {A}), Op1 = M.op({A}, {Y});
  M.Model.inputs = {X};
  M.Model.outputs = {Y};
  uint32_t S = M.shader("scale_bias", k::scale_bias, sizeof(k::scale_bias));
  uint32_t In = M.buffer(fb::VulkanBufferKind::INPUT, 24, 0);
  uint32_t Arena = M.buffer(fb::VulkanBufferKind::ARENA, 512);
  uint32_t Out = M.buffer(fb::VulkanBufferKind::OUTPUT, 24, 0);
  M.dispatch(S, {{In, 0, 24}, {Arena, 256, 24}}, {6, floatBits(1.f)}, 1, Op0,
             {{0, 64}, {3, floatBits(2.f)}});
  M.dispatch(S, {{Arena, 256, 24}, {Out, 0, 24}}, {6, floatBits(0.5f)}, 1, Op1,
             {{0, 32}, {3, floatBits(-1.f)}});
  M.place(A, Arena, 256, 24);
  return M;
}

/// chainModel as kiln convert --quantize fp16 writes it: fp16, needing
/// only 16-bit storage, its scale_bias naming the fp16-arithmetic twin
/// scale_bias_f16math (shader 1, no dispatch names it), which rounds every
/// step to fp16.
inline VulkanModel twinModel() {
  namespace k = kiln::testkernels;
  VulkanModel M = chainModel();
  M.payload().fp16 = true;
  M.payload().required_features = {"storageBuffer16BitAccess"};
  uint32_t Twin = M.shader("scale_bias_f16math", k::scale_bias_f16math,
                           sizeof(k::scale_bias_f16math));
  M.payload().shaders[0]->fp16_math_variant = int32_t(Twin);
  return M;
}

/// y = (x + w1) + w2 over 6 floats with vector_add, w1 and w2 uploaded into
/// one WEIGHTS buffer at offsets 256 and 768 (the rest zero).
inline VulkanModel weightsModel() {
  namespace k = kiln::testkernels;
  VulkanModel M;
  int32_t X = M.tensor("x", {6}), A = M.tensor("a", {6}), Y = M.tensor("y", {6});
  int32_t Op0 = M.op({X}, {A}), Op1 = M.op({A}, {Y});
  M.Model.inputs = {X};
  M.Model.outputs = {Y};
  uint32_t S = M.shader("vector_add", k::vector_add, sizeof(k::vector_add));
  uint32_t Seg1 = M.segment({1, 2, 3, 4, 5, 6});
  uint32_t Seg2 = M.segment({100, 200, 300, 400, 500, 600});
  uint32_t In = M.buffer(fb::VulkanBufferKind::INPUT, 24, 0);
  uint32_t W = M.buffer(fb::VulkanBufferKind::WEIGHTS, 1024);
  M.payload().buffers[W]->uploads = {{Seg1, 256}, {Seg2, 768}};
  uint32_t Arena = M.buffer(fb::VulkanBufferKind::ARENA, 256);
  uint32_t Out = M.buffer(fb::VulkanBufferKind::OUTPUT, 24, 0);
  M.dispatch(S, {{In, 0, 24}, {W, 256, 24}, {Arena, 0, 24}}, {6}, 1, Op0);
  M.dispatch(S, {{Arena, 0, 24}, {W, 768, 24}, {Out, 0, 24}}, {6}, 1, Op1);
  M.place(A, Arena, 0, 24);
  return M;
}

/// x f32[1,1,2,3] (NHWC) -> C4 activation c [1][1][1][2][4] in the arena
/// (nhwc_to_c4) -> its 8 floats copied to y f32[8] (scale_bias, scale 1).
inline VulkanModel c4Model() {
  namespace k = kiln::testkernels;
  VulkanModel M;
  int32_t X = M.tensor("x", {1, 1, 2, 3}, fb::Layout::NHWC);
  int32_t C = M.tensor("c", {1, 1, 2, 3}, fb::Layout::C4);
  int32_t Y = M.tensor("y", {8});
  int32_t Op0 = M.op({X}, {C}), Op1 = M.op({C}, {Y});
  M.Model.inputs = {X};
  M.Model.outputs = {Y};
  uint32_t ToC4 = M.shader("nhwc_to_c4", k::nhwc_to_c4, sizeof(k::nhwc_to_c4));
  uint32_t Copy = M.shader("scale_bias", k::scale_bias, sizeof(k::scale_bias));
  uint32_t In = M.buffer(fb::VulkanBufferKind::INPUT, 24, 0);
  uint32_t Arena = M.buffer(fb::VulkanBufferKind::ARENA, 32);
  uint32_t Out = M.buffer(fb::VulkanBufferKind::OUTPUT, 32, 0);
  M.dispatch(ToC4, {{In, 0, 24}, {Arena, 0, 32}}, {2, 3}, 1, Op0);
  M.dispatch(Copy, {{Arena, 0, 32}, {Out, 0, 32}}, {8, floatBits(0.f)}, 1, Op1,
             {{0, 64}});
  M.place(C, Arena, 0, 32);
  return M;
}

/// chainModel with reshapes that alias instead of dispatching, as the
/// compiler lowers a RESHAPE between tensors of the same bytes: x -> r
/// (alias of the INPUT buffer) -> a (scale_bias into the arena) -> b (alias
/// of a's place) -> y (scale_bias). u is a second output of b's operator
/// with no place at all: it has no host bytes.
inline VulkanModel aliasModel() {
  namespace k = kiln::testkernels;
  VulkanModel M;
  int32_t X = M.tensor("x", {6}), R = M.tensor("r", {2, 3}),
          A = M.tensor("a", {6}), B = M.tensor("b", {3, 2}),
          U = M.tensor("u", {6}), Y = M.tensor("y", {6});
  M.op({X}, {R});
  int32_t Op1 = M.op({R}, {A});
  M.op({A}, {B, U});
  int32_t Op3 = M.op({B}, {Y});
  M.Model.inputs = {X};
  M.Model.outputs = {Y};
  uint32_t S = M.shader("scale_bias", k::scale_bias, sizeof(k::scale_bias));
  uint32_t In = M.buffer(fb::VulkanBufferKind::INPUT, 24, 0);
  uint32_t Arena = M.buffer(fb::VulkanBufferKind::ARENA, 512);
  uint32_t Out = M.buffer(fb::VulkanBufferKind::OUTPUT, 24, 0);
  M.dispatch(S, {{In, 0, 24}, {Arena, 256, 24}}, {6, floatBits(1.f)}, 1, Op1,
             {{0, 64}, {3, floatBits(2.f)}});
  M.dispatch(S, {{Arena, 256, 24}, {Out, 0, 24}}, {6, floatBits(0.5f)}, 1, Op3,
             {{0, 32}, {3, floatBits(-1.f)}});
  M.place(R, In, 0, 24);
  M.place(A, Arena, 256, 24);
  M.place(B, Arena, 256, 24);
  return M;
}

} // namespace kiln::vktest

// Small NNAPI .kiln files for the loader's and the executor's tests, built
// with the schema's object API and the tests' own writer (TestKilnWriter.h):
// the FlatBuffer, then each weight segment at the next 64-byte boundary.
#pragma once

#include "../TestKilnWriter.h"
#include "schema/nnapi/NeuralNetworksApi.h"
#include "schema/KilnSchemaVersion.h"
#include "schema/kiln_generated.h"

#include <cstring>
#include <string>
#include <vector>

namespace kiln::nntest {

namespace nn = kiln::nnapi;

struct NnapiModel {
  fb::ModelT Model;
  std::vector<std::vector<uint8_t>> Segments;

  fb::NnapiPayloadT &payload() { return *Model.payload.AsNnapiPayload(); }
  fb::NnapiOperandT &operand(size_t I) { return *payload().operands[I]; }
  fb::NnapiOperationT &operation(size_t I) { return *payload().operations[I]; }

  NnapiModel() {
    Model.schema_major = fb::SchemaMajor;
    Model.schema_minor = fb::SchemaMinor;
    Model.target = fb::Target::NNAPI;
    Model.payload.Set(fb::NnapiPayloadT());
    payload().feature_level = 27;
  }

  int32_t tensor(std::string Name, std::vector<int64_t> Shape,
                 fb::DType DType = fb::DType::F32,
                 fb::Layout Layout = fb::Layout::PLAIN) {
    auto T = std::make_unique<fb::TensorT>();
    T->name = std::move(Name);
    T->dtype = DType;
    T->shape = std::move(Shape);
    T->layout = Layout;
    T->buffer = -1;
    Model.tensors.push_back(std::move(T));
    return int32_t(Model.tensors.size() - 1);
  }
  uint32_t segment(const void *Data, size_t Bytes) {
    const auto *P = static_cast<const uint8_t *>(Data);
    Segments.emplace_back(P, P + Bytes);
    auto B = std::make_unique<fb::BufferT>();
    B->size = Bytes;
    Model.buffers.push_back(std::move(B));
    return uint32_t(Segments.size() - 1);
  }
  /// A descriptive kiln operator (the NNAPI payload runs, not it).
  int32_t op(std::vector<int32_t> In, std::vector<int32_t> Out) {
    auto O = std::make_unique<fb::OperatorT>();
    O->kind = fb::OpKind::UNARY;
    O->options.Set(fb::UnaryOptionsT());
    O->inputs = std::move(In);
    O->outputs = std::move(Out);
    Model.operators.push_back(std::move(O));
    return int32_t(Model.operators.size() - 1);
  }
  uint32_t operand(int32_t Type, std::vector<uint32_t> Dims,
                   int32_t Tensor = -1) {
    auto O = std::make_unique<fb::NnapiOperandT>();
    O->type = Type;
    O->dimensions = std::move(Dims);
    O->tensor = Tensor;
    payload().operands.push_back(std::move(O));
    return uint32_t(payload().operands.size() - 1);
  }
  /// An INT32 scalar with an inline value.
  uint32_t scalar(int32_t V) {
    uint32_t I = operand(nn::INT32, {});
    operand(I).source = fb::NnapiValueSource::INLINE;
    operand(I).value.resize(4);
    std::memcpy(operand(I).value.data(), &V, 4);
    return I;
  }
  /// A TENSOR_FLOAT32 constant in a weight segment.
  uint32_t weights(std::vector<uint32_t> Dims, const std::vector<float> &V) {
    uint32_t I = operand(nn::TENSOR_FLOAT32, std::move(Dims));
    operand(I).source = fb::NnapiValueSource::SEGMENT;
    operand(I).segment = int32_t(segment(V.data(), V.size() * 4));
    return I;
  }
  void operation(int32_t Type, std::vector<uint32_t> In,
                 std::vector<uint32_t> Out, int32_t Op = -1) {
    auto O = std::make_unique<fb::NnapiOperationT>();
    O->type = Type;
    O->inputs = std::move(In);
    O->outputs = std::move(Out);
    O->operator_ = Op;
    payload().operations.push_back(std::move(O));
  }

  std::string bytes() const {
    return testwriter::kilnBytes(Model, Segments);
  }
};

/// x f32[1,4,4,2] (NHWC) -> CONV_2D 1x1, 3 filters, SAME, stride 1 -> y
/// f32[1,4,4,3]. Operands: 0 x, 1 filter (segment 0), 2 bias (segment 1),
/// 3-6 padding scheme, strides, activation (inline), 7 y.
inline NnapiModel convModel() {
  NnapiModel M;
  int32_t X = M.tensor("x", {1, 4, 4, 2}, fb::DType::F32, fb::Layout::NHWC);
  int32_t Y = M.tensor("y", {1, 4, 4, 3}, fb::DType::F32, fb::Layout::NHWC);
  int32_t Op = M.op({X}, {Y});
  M.Model.inputs = {X};
  M.Model.outputs = {Y};
  uint32_t In = M.operand(nn::TENSOR_FLOAT32, {1, 4, 4, 2}, X);
  uint32_t W = M.weights({3, 1, 1, 2}, {1, 0, 0, 1, 1, 1});
  uint32_t B = M.weights({3}, {0.5f, -0.5f, 2});
  uint32_t Pad = M.scalar(1), Sw = M.scalar(1), Sh = M.scalar(1);
  uint32_t Act = M.scalar(nn::FUSED_NONE);
  uint32_t Out = M.operand(nn::TENSOR_FLOAT32, {1, 4, 4, 3}, Y);
  M.operation(nn::CONV_2D, {In, W, B, Pad, Sw, Sh, Act}, {Out}, Op);
  M.payload().inputs = {In};
  M.payload().outputs = {Out};
  return M;
}

} // namespace kiln::nntest

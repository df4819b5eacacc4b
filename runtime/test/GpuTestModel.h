// A small GPU .kiln file under construction, shared by the Vulkan and Metal
// tests: the graph (tensors, descriptive operators, weight segments), the
// payload's buffers and places (VulkanBuffer and VulkanTensorPlace in both
// payloads), written by the tests' own writer (TestKilnWriter.h).
#pragma once

#include "kiln/kiln.h"

#include "TestKilnWriter.h"
#include "schema/KilnSchemaVersion.h"
#include "schema/kiln_generated.h"

#include <cstring>
#include <string>
#include <vector>

namespace kiln::gputest {

/// The tests' kernels (SPIR-V and MSL) are not kiln's kernel catalog: the
/// tests that run them load them as a kernel developer would, with
/// KILN_GPU_KERNELS_ANY_VALID (VulkanTestModels.h and MetalTestModels.h
/// set it when their test program starts). The catalog's own tests restore
/// the default for their duration.
struct CatalogPolicy {
  CatalogPolicy() { kiln_set_gpu_kernel_policy(KILN_GPU_KERNELS_CATALOG); }
  ~CatalogPolicy() { kiln_set_gpu_kernel_policy(KILN_GPU_KERNELS_ANY_VALID); }
  CatalogPolicy(const CatalogPolicy &) = delete;
  CatalogPolicy &operator=(const CatalogPolicy &) = delete;
};

/// A model for Target whose payload is a PayloadT (fb::VulkanPayloadT,
/// fb::MetalPayloadT), plus the bytes of its weight segments.
template <typename PayloadT> struct GpuModel {
  fb::ModelT Model;
  std::vector<std::vector<uint8_t>> Segments;

  PayloadT &payload() { return *static_cast<PayloadT *>(Model.payload.value); }

  explicit GpuModel(fb::Target Target) {
    Model.schema_major = fb::SchemaMajor;
    Model.schema_minor = fb::SchemaMinor;
    Model.target = Target;
    Model.payload.Set(PayloadT());
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
  /// A descriptive operator (the executors never read its kind).
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
  uint32_t buffer(fb::VulkanBufferKind Kind, uint64_t Size, int32_t Io = -1) {
    auto B = std::make_unique<fb::VulkanBufferT>();
    B->kind = Kind;
    B->size = Size;
    B->io_index = Io;
    payload().buffers.push_back(std::move(B));
    return uint32_t(payload().buffers.size() - 1);
  }
  void place(int32_t Tensor, uint32_t Buffer, uint64_t Offset, uint64_t Size) {
    auto P = std::make_unique<fb::VulkanTensorPlaceT>();
    P->tensor = Tensor;
    P->buffer = Buffer;
    P->offset = Offset;
    P->size = Size;
    payload().places.push_back(std::move(P));
  }

  /// The file: the FlatBuffer, then the 64-byte aligned segments.
  std::string bytes() const {
    return testwriter::kilnBytes(Model, Segments);
  }
};

inline uint32_t floatBits(float F) {
  uint32_t U;
  std::memcpy(&U, &F, 4);
  return U;
}

} // namespace kiln::gputest

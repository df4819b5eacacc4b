// Small .kiln models for the runtime's tests, built with the schema's object
// API and written by the real writer, plus helpers to corrupt them.
#pragma once

#include "backends/common/KilnWriter.h"

#include "kiln/kiln.h"

#include "llvm/Support/Error.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace kiln::testmodels {

inline int32_t addTensor(KilnModule &M, std::string Name, fb::DType T,
                         std::vector<int64_t> Shape,
                         fb::Layout Layout = fb::Layout::PLAIN) {
  auto X = std::make_unique<fb::TensorT>();
  X->name = std::move(Name);
  X->dtype = T;
  X->shape = std::move(Shape);
  X->layout = Layout;
  X->buffer = -1;
  M.Model.tensors.push_back(std::move(X));
  return int32_t(M.Model.tensors.size() - 1);
}

inline int32_t addFloats(KilnModule &M, std::string Name,
                         std::vector<int64_t> Shape, std::vector<float> Values,
                         fb::Layout Layout = fb::Layout::PLAIN) {
  int32_t T = addTensor(M, std::move(Name), fb::DType::F32, std::move(Shape),
                        Layout);
  std::vector<uint8_t> Bytes(Values.size() * 4);
  std::memcpy(Bytes.data(), Values.data(), Bytes.size());
  M.Model.tensors[size_t(T)]->buffer = M.addSegment(Buffer::own(std::move(Bytes)));
  return T;
}

template <typename Options>
void addOp(KilnModule &M, fb::OpKind Kind, std::vector<int32_t> In,
           std::vector<int32_t> Out, Options O,
           fb::Engine E = fb::Engine::ANY) {
  auto Op = std::make_unique<fb::OperatorT>();
  Op->kind = Kind;
  Op->inputs = std::move(In);
  Op->outputs = std::move(Out);
  Op->options.Set(std::move(O));
  Op->engine = E;
  Op->name = fb::EnumNameOpKind(Kind);
  M.Model.operators.push_back(std::move(Op));
}

/// y = x + [1, 2, 3] for x f32[2, 3], then z = relu-clamped y * 2:
///   x -> BINARY(ADD, c) -> y -> BINARY(MUL, two) -> z
inline KilnModule addMulModule() {
  KilnModule M;
  int32_t X = addTensor(M, "x", fb::DType::F32, {2, 3});
  int32_t C = addFloats(M, "c", {3}, {1, 2, 3});
  int32_t Two = addFloats(M, "two", {1}, {2});
  int32_t Y = addTensor(M, "y", fb::DType::F32, {2, 3});
  int32_t Z = addTensor(M, "z", fb::DType::F32, {2, 3});
  fb::BinaryOptionsT Add;
  Add.op = fb::BinaryOp::ADD;
  addOp(M, fb::OpKind::BINARY, {X, C}, {Y}, Add);
  fb::BinaryOptionsT Mul;
  Mul.op = fb::BinaryOp::MUL;
  Mul.output_min = 0;
  addOp(M, fb::OpKind::BINARY, {Y, Two}, {Z}, Mul);
  M.Model.inputs = {X};
  M.Model.outputs = {Z};
  return M;
}

/// A 3x3 convolution, NHWC [1,4,4,2] -> [1,4,4,3], padding 1, with bias.
inline KilnModule convModule() {
  KilnModule M;
  int32_t X = addTensor(M, "x", fb::DType::F32, {1, 4, 4, 2}, fb::Layout::NHWC);
  std::vector<float> W(3 * 3 * 3 * 2);
  for (size_t I = 0; I < W.size(); ++I)
    W[I] = float(int(I % 7) - 3) * 0.25f;
  int32_t Wt = addFloats(M, "w", {3, 3, 3, 2}, W, fb::Layout::OHWI);
  int32_t B = addFloats(M, "b", {3}, {0.5f, -0.5f, 0.25f});
  int32_t Y = addTensor(M, "y", fb::DType::F32, {1, 4, 4, 3}, fb::Layout::NHWC);
  fb::Conv2DOptionsT O;
  O.padding_top = O.padding_left = O.padding_bottom = O.padding_right = 1;
  O.kernel_height = O.kernel_width = 3;
  O.groups = 1;
  O.group_input_channels = 2;
  O.group_output_channels = 3;
  addOp(M, fb::OpKind::CONV_2D, {X, Wt, B}, {Y}, O);
  M.Model.inputs = {X};
  M.Model.outputs = {Y};
  return M;
}

/// The file bytes of M as it is (a writer error throws, failing the test).
inline std::string rawBytesOf(KilnModule M) {
  auto Bytes = serializeKilnModule(M);
  if (!Bytes)
    throw std::runtime_error(llvm::toString(Bytes.takeError()));
  return std::move(*Bytes);
}

/// The file bytes of M as a CPU file (the target every model here is for,
/// unless it names another).
inline std::string bytesOf(KilnModule M) {
  if (M.Model.target == fb::Target::UNKNOWN) {
    M.Model.target = fb::Target::CPU;
    M.Model.payload.Set(fb::CpuPayloadT());
  }
  return rawBytesOf(M);
}

/// The mutable root of serialized bytes (for corrupting offsets in place).
inline fb::Model *mutableRoot(std::string &Bytes) {
  return fb::GetMutableModel(Bytes.data());
}

/// Loads Bytes; returns the status and leaves the message in Error.
inline kiln_status tryLoad(const std::string &Bytes, std::string &Error,
                           kiln_model **Out = nullptr) {
  kiln_model *M = nullptr;
  kiln_status S = kiln_model_load_buffer(Bytes.data(), Bytes.size(), &M);
  Error = S == KILN_OK ? "" : kiln_last_error();
  if (Out)
    *Out = M;
  else
    kiln_model_destroy(M);
  return S;
}

/// Expects Bytes to be rejected when loaded, with Code and a message
/// containing Text.
inline void requireRejected(const std::string &Bytes, kiln_status Code,
                            const std::string &Text) {
  std::string Error;
  kiln_status S = tryLoad(Bytes, Error);
  INFO("message: " << Error);
  REQUIRE(S == Code);
  REQUIRE(Error.find(Text) != std::string::npos);
}

} // namespace kiln::testmodels

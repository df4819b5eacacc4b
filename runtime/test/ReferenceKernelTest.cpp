// Reference kernels with hand-computed results where XNNPACK has no say:
// integer division by zero, slicing backwards, reflect padding, gather with
// a bad index (a run-time error, not a crash) and reductions.
#include "RuntimeTestModels.h"

#include <catch2/catch.hpp>

using namespace kiln;
using namespace kiln::testmodels;

namespace {

template <typename T>
int32_t addConstant(KilnModule &M, fb::DType DT, std::vector<int64_t> Shape,
                    std::vector<T> Values) {
  int32_t Index = addTensor(M, "c", DT, std::move(Shape));
  std::vector<uint8_t> Bytes(Values.size() * sizeof(T));
  std::memcpy(Bytes.data(), Values.data(), Bytes.size());
  M.Model.tensors[size_t(Index)]->buffer = M.addSegment(Buffer::own(Bytes));
  return Index;
}

/// Runs a one-input model on In; returns the status and fills Out.
template <typename T, typename U>
kiln_status run(KilnModule M, const std::vector<T> &In, std::vector<U> &Out,
                std::string &Error) {
  std::string Bytes = bytesOf(std::move(M));
  kiln_model *Model = nullptr;
  REQUIRE(kiln_model_load_buffer(Bytes.data(), Bytes.size(), &Model) == KILN_OK);
  kiln_session *S = nullptr;
  REQUIRE(kiln_session_create(Model, nullptr, &S) == KILN_OK);
  REQUIRE(kiln_session_set_input(S, 0, In.data(), In.size() * sizeof(T)) ==
          KILN_OK);
  kiln_status Status = kiln_session_run(S);
  Error = Status == KILN_OK ? "" : kiln_last_error();
  if (Status == KILN_OK) {
    const void *Data;
    size_t Size;
    REQUIRE(kiln_session_get_output(S, 0, &Data, &Size) == KILN_OK);
    Out.resize(Size / sizeof(U));
    std::memcpy(Out.data(), Data, Size);
  }
  kiln_session_destroy(S);
  kiln_model_destroy(Model);
  return Status;
}

} // namespace

TEST_CASE("integer division truncates and never traps", "[reference]") {
  KilnModule M;
  int32_t X = addTensor(M, "x", fb::DType::I32, {5});
  int32_t D = addConstant<int32_t>(M, fb::DType::I32, {5}, {2, 0, -1, 3, -2});
  int32_t Y = addTensor(M, "y", fb::DType::I32, {5});
  fb::BinaryOptionsT O;
  O.op = fb::BinaryOp::DIV;
  addOp(M, fb::OpKind::BINARY, {X, D}, {Y}, O);
  M.Model.inputs = {X};
  M.Model.outputs = {Y};
  std::vector<int32_t> Out;
  std::string Error;
  REQUIRE(run(std::move(M), std::vector<int32_t>{7, 5, INT32_MIN, -7, 9}, Out,
              Error) == KILN_OK);
  REQUIRE(Out == std::vector<int32_t>{3, 0, INT32_MIN, -2, -4});
}

TEST_CASE("slice with a negative step", "[reference]") {
  KilnModule M;
  int32_t X = addTensor(M, "x", fb::DType::F32, {2, 4});
  int32_t Y = addTensor(M, "y", fb::DType::F32, {2, 2});
  fb::SliceOptionsT O;
  O.starts = {0, 3};
  O.steps = {1, -2}; // columns 3 and 1
  addOp(M, fb::OpKind::SLICE, {X}, {Y}, O);
  M.Model.inputs = {X};
  M.Model.outputs = {Y};
  std::vector<float> Out;
  std::string Error;
  REQUIRE(run(std::move(M), std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7}, Out,
              Error) == KILN_OK);
  REQUIRE(Out == std::vector<float>{3, 1, 7, 5});
}

TEST_CASE("reflect and edge padding", "[reference]") {
  for (auto [Mode, Want] :
       {std::pair{fb::PadMode::REFLECT, std::vector<float>{3, 2, 1, 2, 3, 2}},
        std::pair{fb::PadMode::EDGE, std::vector<float>{1, 1, 1, 2, 3, 3}},
        std::pair{fb::PadMode::CONSTANT,
                  std::vector<float>{9, 9, 1, 2, 3, 9}}}) {
    KilnModule M;
    int32_t X = addTensor(M, "x", fb::DType::F32, {3});
    int32_t Y = addTensor(M, "y", fb::DType::F32, {6});
    fb::PadOptionsT O;
    O.pads = {2, 1};
    O.mode = Mode;
    O.value = 9;
    addOp(M, fb::OpKind::PAD, {X}, {Y}, O);
    M.Model.inputs = {X};
    M.Model.outputs = {Y};
    std::vector<float> Out;
    std::string Error;
    REQUIRE(run(std::move(M), std::vector<float>{1, 2, 3}, Out, Error) ==
            KILN_OK);
    REQUIRE(Out == Want);
  }
}

TEST_CASE("a gather index out of range is a run-time error", "[reference]") {
  KilnModule M;
  int32_t X = addTensor(M, "x", fb::DType::I64, {2});
  int32_t Data = addConstant<float>(M, fb::DType::F32, {3}, {10, 20, 30});
  int32_t Y = addTensor(M, "y", fb::DType::F32, {2});
  fb::GatherOptionsT O;
  addOp(M, fb::OpKind::GATHER, {Data, X}, {Y}, O);
  M.Model.inputs = {X};
  M.Model.outputs = {Y};
  std::vector<float> Out;
  std::string Error;
  REQUIRE(run(KilnModule(std::move(M)), std::vector<int64_t>{-1, 0}, Out,
              Error) == KILN_OK);
  REQUIRE(Out == std::vector<float>{30, 10});
}

TEST_CASE("gather reports a bad index", "[reference]") {
  KilnModule M;
  int32_t X = addTensor(M, "x", fb::DType::I64, {1});
  int32_t Data = addConstant<float>(M, fb::DType::F32, {3}, {10, 20, 30});
  int32_t Y = addTensor(M, "y", fb::DType::F32, {1});
  addOp(M, fb::OpKind::GATHER, {Data, X}, {Y}, fb::GatherOptionsT());
  M.Model.inputs = {X};
  M.Model.outputs = {Y};
  std::vector<float> Out;
  std::string Error;
  REQUIRE(run(std::move(M), std::vector<int64_t>{3}, Out, Error) ==
          KILN_ERROR_RUNTIME);
  REQUIRE(Error == "operator 0 (GATHER 'GATHER'): gather index 3 is out of "
                   "range for an axis of size 3");
}

TEST_CASE("reductions over chosen axes", "[reference]") {
  for (auto [Op, Want] :
       {std::pair{fb::ReduceOp::SUM, std::vector<float>{6, 15}},
        std::pair{fb::ReduceOp::MEAN, std::vector<float>{2, 5}},
        std::pair{fb::ReduceOp::MAXIMUM, std::vector<float>{3, 6}},
        std::pair{fb::ReduceOp::MINIMUM, std::vector<float>{1, 4}}}) {
    KilnModule M;
    int32_t X = addTensor(M, "x", fb::DType::F32, {2, 3});
    int32_t Y = addTensor(M, "y", fb::DType::F32, {2, 1});
    fb::ReduceOptionsT O;
    O.op = Op;
    O.axes = {1};
    addOp(M, fb::OpKind::REDUCE, {X}, {Y}, O);
    M.Model.inputs = {X};
    M.Model.outputs = {Y};
    std::vector<float> Out;
    std::string Error;
    REQUIRE(run(std::move(M), std::vector<float>{1, 2, 3, 6, 5, 4}, Out,
                Error) == KILN_OK);
    REQUIRE(Out == Want);
  }
}

TEST_CASE("transpose moves bytes of any element type", "[reference]") {
  KilnModule M;
  int32_t X = addTensor(M, "x", fb::DType::I64, {2, 3});
  int32_t Y = addTensor(M, "y", fb::DType::I64, {3, 2});
  fb::TransposeOptionsT O;
  O.perm = {1, 0};
  addOp(M, fb::OpKind::TRANSPOSE, {X}, {Y}, O);
  M.Model.inputs = {X};
  M.Model.outputs = {Y};
  std::vector<int64_t> Out;
  std::string Error;
  REQUIRE(run(std::move(M), std::vector<int64_t>{1, 2, 3, 4, 5, 6}, Out,
              Error) == KILN_OK);
  REQUIRE(Out == std::vector<int64_t>{1, 4, 2, 5, 3, 6});
}

TEST_CASE("4-D transposes match the definition", "[reference]") {
  // y[i0][i1][i2][i3] = x[...] with y dim k = x dim perm[k], for the layout
  // changes (the few-rows path for 2-4 channels, the tiled path above), a
  // pure reshape, and a general permutation.
  for (std::vector<int64_t> Shape :
       {std::vector<int64_t>{2, 3, 1, 5}, std::vector<int64_t>{1, 2, 4, 3},
        std::vector<int64_t>{1, 4, 3, 3}, std::vector<int64_t>{2, 6, 2, 5}})
    for (std::vector<int32_t> Perm : {std::vector<int32_t>{0, 2, 3, 1},
                                      std::vector<int32_t>{0, 3, 1, 2},
                                      std::vector<int32_t>{2, 0, 1, 3},
                                      std::vector<int32_t>{3, 1, 0, 2}}) {
      std::vector<int64_t> OutShape;
      for (int32_t P : Perm)
        OutShape.push_back(Shape[size_t(P)]);
      KilnModule M;
      int32_t X = addTensor(M, "x", fb::DType::F32, Shape);
      int32_t Y = addTensor(M, "y", fb::DType::F32, OutShape);
      fb::TransposeOptionsT O;
      O.perm = Perm;
      addOp(M, fb::OpKind::TRANSPOSE, {X}, {Y}, O);
      M.Model.inputs = {X};
      M.Model.outputs = {Y};
      std::vector<float> In(size_t(Shape[0] * Shape[1] * Shape[2] * Shape[3]));
      for (size_t I = 0; I < In.size(); ++I)
        In[I] = float(I);
      std::vector<float> Out;
      std::string Error;
      REQUIRE(run(std::move(M), In, Out, Error) == KILN_OK);
      REQUIRE(Out.size() == In.size());
      std::vector<int64_t> Strides = {Shape[1] * Shape[2] * Shape[3],
                                      Shape[2] * Shape[3], Shape[3], 1}; // of x
      size_t K = 0;
      for (int64_t A = 0; A < OutShape[0]; ++A)
        for (int64_t B = 0; B < OutShape[1]; ++B)
          for (int64_t C = 0; C < OutShape[2]; ++C)
            for (int64_t D = 0; D < OutShape[3]; ++D) {
              int64_t Index[4] = {A, B, C, D}, Src = 0;
              for (int Dim = 0; Dim < 4; ++Dim)
                Src += Index[Dim] * Strides[size_t(Perm[size_t(Dim)])];
              INFO("shape " << Shape[0] << "x" << Shape[1] << "x" << Shape[2]
                            << "x" << Shape[3] << " perm " << Perm[0] << Perm[1]
                            << Perm[2] << Perm[3] << " at " << K);
              REQUIRE(Out[K++] == In[size_t(Src)]);
            }
    }
}

TEST_CASE("an int8 image goes from NCHW to NHWC", "[reference]") {
  // 3 channels of 2x5 pixels: the few-rows path with 1-byte elements.
  KilnModule M;
  int32_t X = addTensor(M, "x", fb::DType::I8, {1, 3, 2, 5});
  int32_t Y = addTensor(M, "y", fb::DType::I8, {1, 2, 5, 3});
  fb::TransposeOptionsT O;
  O.perm = {0, 2, 3, 1};
  addOp(M, fb::OpKind::TRANSPOSE, {X}, {Y}, O);
  M.Model.inputs = {X};
  M.Model.outputs = {Y};
  std::vector<int8_t> In(30);
  for (size_t I = 0; I < In.size(); ++I)
    In[I] = int8_t(int(I) - 15); // channel c, pixel p: 10c + p - 15
  std::vector<int8_t> Out;
  std::string Error;
  REQUIRE(run(std::move(M), In, Out, Error) == KILN_OK);
  std::vector<int8_t> Expected;
  for (int P = 0; P < 10; ++P)
    for (int C = 0; C < 3; ++C)
      Expected.push_back(int8_t(10 * C + P - 15));
  REQUIRE(Out == Expected);
}

TEST_CASE("cast truncates, saturates and maps NaN to 0", "[reference]") {
  KilnModule M;
  int32_t X = addTensor(M, "x", fb::DType::F32, {6});
  int32_t Y = addTensor(M, "y", fb::DType::I8, {6});
  addOp(M, fb::OpKind::CAST, {X}, {Y}, fb::CastOptionsT());
  M.Model.inputs = {X};
  M.Model.outputs = {Y};
  std::vector<int8_t> Out;
  std::string Error;
  REQUIRE(run(std::move(M),
              std::vector<float>{1.9f, -1.9f, 300.0f, -300.0f, NAN, 0.0f}, Out,
              Error) == KILN_OK);
  REQUIRE(Out == std::vector<int8_t>{1, -1, 127, -128, 0, 0});
}

TEST_CASE("cast to f16 rounds to nearest even", "[reference]") {
  KilnModule M;
  int32_t X = addTensor(M, "x", fb::DType::F32, {3});
  int32_t Y = addTensor(M, "y", fb::DType::F16, {3});
  addOp(M, fb::OpKind::CAST, {X}, {Y}, fb::CastOptionsT());
  M.Model.inputs = {X};
  M.Model.outputs = {Y};
  std::vector<uint16_t> Out;
  std::string Error;
  // 1 + 2^-11 is halfway between 1 and the next half (1 + 2^-10): even wins.
  REQUIRE(run(std::move(M), std::vector<float>{1.0f, 1.0f + 1.0f / 2048, 65536.0f},
              Out, Error) == KILN_OK);
  REQUIRE(Out == std::vector<uint16_t>{0x3c00, 0x3c00, 0x7c00});
}

TEST_CASE("select with broadcasting and comparisons", "[reference]") {
  // y = (x > c) ? x : c, i.e. max(x, c), with c broadcast.
  KilnModule M;
  int32_t X = addTensor(M, "x", fb::DType::F32, {2, 2});
  int32_t C = addFloats(M, "c", {2}, {0.5f, 1.5f});
  int32_t G = addTensor(M, "g", fb::DType::BOOL, {2, 2});
  int32_t Y = addTensor(M, "y", fb::DType::F32, {2, 2});
  fb::BinaryOptionsT Gt;
  Gt.op = fb::BinaryOp::GREATER;
  addOp(M, fb::OpKind::BINARY, {X, C}, {G}, Gt);
  addOp(M, fb::OpKind::SELECT, {G, X, C}, {Y}, fb::SelectOptionsT());
  M.Model.inputs = {X};
  M.Model.outputs = {Y};
  std::vector<float> Out;
  std::string Error;
  REQUIRE(run(std::move(M), std::vector<float>{0, 2, 1, 1}, Out, Error) ==
          KILN_OK);
  REQUIRE(Out == std::vector<float>{0.5f, 2, 1, 1.5f});
}

TEST_CASE("arg-reduce ties and NaN", "[reference]") {
  for (auto [Last, Want] : {std::pair{false, std::vector<int64_t>{1, 0}},
                            std::pair{true, std::vector<int64_t>{2, 0}}}) {
    KilnModule M;
    int32_t X = addTensor(M, "x", fb::DType::F32, {2, 3});
    int32_t Y = addTensor(M, "y", fb::DType::I64, {2});
    fb::ArgReduceOptionsT O;
    O.axis = 1;
    O.select_last_index = Last;
    addOp(M, fb::OpKind::ARG_REDUCE, {X}, {Y}, O);
    M.Model.inputs = {X};
    M.Model.outputs = {Y};
    std::vector<int64_t> Out;
    std::string Error;
    REQUIRE(run(std::move(M), std::vector<float>{1, 5, 5, NAN, 9, NAN}, Out,
                Error) == KILN_OK);
    REQUIRE(Out == Want);
  }
}

TEST_CASE("layer norm over the last axis", "[reference]") {
  KilnModule M;
  int32_t X = addTensor(M, "x", fb::DType::F32, {2, 2});
  int32_t S = addFloats(M, "scale", {2}, {2, 1});
  int32_t B = addFloats(M, "bias", {1}, {0.5f});
  int32_t Y = addTensor(M, "y", fb::DType::F32, {2, 2});
  fb::LayerNormOptionsT O;
  O.axis = 1;
  O.epsilon = 0;
  addOp(M, fb::OpKind::LAYER_NORM, {X, S, B}, {Y}, O);
  M.Model.inputs = {X};
  M.Model.outputs = {Y};
  std::vector<float> Out;
  std::string Error;
  // Row [1, 3]: mean 2, std 1 -> [-1, 1] -> [-2, 1] + 0.5.
  REQUIRE(run(std::move(M), std::vector<float>{1, 3, 5, 5}, Out, Error) ==
          KILN_OK);
  REQUIRE(Out[0] == Approx(-1.5f));
  REQUIRE(Out[1] == Approx(1.5f));
  REQUIRE(std::isnan(Out[2])); // zero variance with epsilon 0
}

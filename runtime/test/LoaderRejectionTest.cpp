// The loader rejects every broken model before using it, with a message
// that names the problem: FlatBuffers-level damage, schema versions,
// segment bounds (with overflow), sizes, indices, order (cycles), and
// operator contracts.
#include "RuntimeTestModels.h"
#include "schema/KilnSchemaVersion.h"

#include <catch2/catch.hpp>

#include <cstring>

#include <fstream>
#include <iterator>

using namespace kiln;
using namespace kiln::testmodels;

TEST_CASE("a valid model loads", "[loader]") {
  std::string Error;
  REQUIRE(tryLoad(bytesOf(addMulModule()), Error) == KILN_OK);
  REQUIRE(tryLoad(bytesOf(convModule()), Error) == KILN_OK);
}

TEST_CASE("bytes that are not a .kiln file", "[loader]") {
  requireRejected("hello, this is not a model", KILN_ERROR_INVALID_MODEL,
                  "not a .kiln file (no \"KILN\" identifier)");
  requireRejected(std::string(3, 'K'), KILN_ERROR_INVALID_MODEL,
                  "not a .kiln file");
}

TEST_CASE("a truncated FlatBuffer fails verification", "[loader]") {
  std::string Bytes = bytesOf(addMulModule());
  // Where the header places the root table (its first 4 bytes, LE).
  uint32_t Root = 0;
  std::memcpy(&Root, Bytes.data(), sizeof Root);
  REQUIRE(Root > 8);
  // Cut before its root table: said as such.
  requireRejected(Bytes.substr(0, Root), KILN_ERROR_INVALID_MODEL,
                  "is " + std::to_string(Root) +
                      " bytes, too short for the root table");
  // Cut after it: the FlatBuffers verifier finds what is missing.
  requireRejected(Bytes.substr(0, Root + 20), KILN_ERROR_INVALID_MODEL,
                  "the file is corrupt (FlatBuffers verification failed)");
}

TEST_CASE("another schema major version is rejected", "[loader]") {
  std::string Bytes = bytesOf(addMulModule());
  REQUIRE(mutableRoot(Bytes)->mutate_schema_minor(0));
  REQUIRE(mutableRoot(Bytes)->mutate_schema_major(2));
  requireRejected(Bytes, KILN_ERROR_UNSUPPORTED,
                  "schema 2.0 is newer than this runtime's 1.x; update the "
                  "kiln runtime");
  REQUIRE(mutableRoot(Bytes)->mutate_schema_major(0));
  requireRejected(Bytes, KILN_ERROR_UNSUPPORTED,
                  "schema 0.0 is older than this runtime's 1.x; convert the "
                  "model again");
}

TEST_CASE("a newer minor version loads", "[loader]") {
  std::string Bytes = bytesOf(addMulModule());
  REQUIRE(mutableRoot(Bytes)->mutate_schema_minor(fb::SchemaMinor + 1));
  std::string Error;
  REQUIRE(tryLoad(Bytes, Error) == KILN_OK);
}

TEST_CASE("segments must lie inside the file", "[loader]") {
  std::string Bytes = bytesOf(addMulModule());
  auto *Buffers = mutableRoot(Bytes)->mutable_buffers();
  uint64_t Size = Bytes.size();

  SECTION("past the end") {
    REQUIRE(Buffers->GetMutableObject(0)->mutate_offset(Size));
    requireRejected(Bytes, KILN_ERROR_INVALID_MODEL,
                    "extends past the end of the file");
  }
  SECTION("offset + size overflows 64 bits") {
    REQUIRE(Buffers->GetMutableObject(0)->mutate_offset(UINT64_MAX - 63));
    REQUIRE(Buffers->GetMutableObject(0)->mutate_size(128));
    requireRejected(Bytes, KILN_ERROR_INVALID_MODEL,
                    "extends past the end of the file");
  }
  SECTION("a huge size") {
    REQUIRE(Buffers->GetMutableObject(1)->mutate_size(UINT64_MAX));
    requireRejected(Bytes, KILN_ERROR_INVALID_MODEL,
                    "buffer 1 (offset");
  }
  SECTION("not 64-byte aligned") {
    uint64_t Offset = Buffers->Get(0)->offset();
    REQUIRE(Buffers->GetMutableObject(0)->mutate_offset(Offset + 4));
    requireRejected(Bytes, KILN_ERROR_INVALID_MODEL, "not a multiple of 64");
  }
}

TEST_CASE("shape times element size must equal the segment size",
          "[loader]") {
  KilnModule M = addMulModule();
  M.Model.tensors[1]->shape = {4}; // c holds 3 floats
  requireRejected(bytesOf(std::move(M)), KILN_ERROR_INVALID_MODEL,
                  "tensor 1 'c' is f32[4] (16 bytes) but buffer 0 holds 12 "
                  "bytes");
}

TEST_CASE("tensor descriptions are checked", "[loader]") {
  KilnModule M = addMulModule();
  SECTION("negative dim") {
    M.Model.tensors[0]->shape = {2, -3};
    requireRejected(bytesOf(std::move(M)), KILN_ERROR_INVALID_MODEL,
                    "tensor 0 'x' has a negative dim -3");
  }
  SECTION("element count overflow") {
    M.Model.tensors[0]->shape = {1LL << 40, 1LL << 40};
    requireRejected(bytesOf(std::move(M)), KILN_ERROR_INVALID_MODEL,
                    "tensor 0 'x' is too large");
  }
  SECTION("rank above the limit") {
    M.Model.tensors[0]->shape.assign(9, 1);
    requireRejected(bytesOf(std::move(M)), KILN_ERROR_INVALID_MODEL,
                    "tensor 0 'x' has rank 9 (at most 8)");
  }
  SECTION("unknown element type") {
    M.Model.tensors[0]->dtype = static_cast<fb::DType>(42);
    requireRejected(bytesOf(std::move(M)), KILN_ERROR_INVALID_MODEL,
                    "tensor 0 'x' has an unknown element type 42");
  }
  SECTION("buffer index out of range") {
    // The writer refuses such a module, so the index is patched afterwards.
    std::string Bytes = bytesOf(std::move(M));
    REQUIRE(mutableRoot(Bytes)->mutable_tensors()->GetMutableObject(1)->mutate_buffer(9));
    requireRejected(Bytes, KILN_ERROR_INVALID_MODEL,
                    "tensor 1 'c' names buffer 9 of 2");
  }
}

TEST_CASE("indices must be in range", "[loader]") {
  KilnModule M = addMulModule();
  SECTION("operator input") {
    M.Model.operators[0]->inputs[1] = 17;
    requireRejected(bytesOf(std::move(M)), KILN_ERROR_INVALID_MODEL,
                    "operator 0 (BINARY 'BINARY'): input names tensor 17 of 5");
  }
  SECTION("operator output") {
    M.Model.operators[1]->outputs[0] = -5;
    requireRejected(bytesOf(std::move(M)), KILN_ERROR_INVALID_MODEL,
                    "operator 1 (BINARY 'BINARY'): output names tensor -5 of 5");
  }
  SECTION("graph input") {
    M.Model.inputs = {5};
    requireRejected(bytesOf(std::move(M)), KILN_ERROR_INVALID_MODEL,
                    "a graph input names tensor 5 of 5");
  }
  SECTION("graph output") {
    M.Model.outputs = {-1};
    requireRejected(bytesOf(std::move(M)), KILN_ERROR_INVALID_MODEL,
                    "a graph output names tensor -1 of 5");
  }
}

TEST_CASE("operators must come in dependency order (no cycles)",
          "[loader]") {
  KilnModule M = addMulModule();
  SECTION("swapped") {
    std::swap(M.Model.operators[0], M.Model.operators[1]);
    requireRejected(bytesOf(std::move(M)), KILN_ERROR_INVALID_MODEL,
                    "input tensor 3 'y' is not computed before it is used "
                    "(operators out of order, or a cycle)");
  }
  SECTION("a two-operator cycle") {
    M.Model.operators[0]->inputs[0] = 4; // y = z + c, z = y * 2
    requireRejected(bytesOf(std::move(M)), KILN_ERROR_INVALID_MODEL,
                    "input tensor 4 'z' is not computed before it is used");
  }
  SECTION("an operator reading its own output") {
    M.Model.operators[1]->inputs[0] = 4;
    requireRejected(bytesOf(std::move(M)), KILN_ERROR_INVALID_MODEL,
                    "input tensor 4 'z' is not computed before it is used");
  }
}

TEST_CASE("each tensor has one writer", "[loader]") {
  KilnModule M = addMulModule();
  SECTION("two operators write y") {
    M.Model.operators[1]->outputs[0] = 3;
    M.Model.operators[1]->inputs[0] = 0;
    requireRejected(bytesOf(std::move(M)), KILN_ERROR_INVALID_MODEL,
                    "output tensor 3 'y' already has a value");
  }
  SECTION("an operator writes a constant") {
    M.Model.operators[1]->outputs[0] = 2;
    requireRejected(bytesOf(std::move(M)), KILN_ERROR_INVALID_MODEL,
                    "output tensor 2 'two' already has a value");
  }
  SECTION("an operator writes a graph input") {
    M.Model.operators[0]->outputs[0] = 0;
    requireRejected(bytesOf(std::move(M)), KILN_ERROR_INVALID_MODEL,
                    "output tensor 0 'x' already has a value");
  }
}

TEST_CASE("graph outputs must be computed", "[loader]") {
  KilnModule M = addMulModule();
  M.Model.operators.pop_back();
  requireRejected(bytesOf(std::move(M)), KILN_ERROR_INVALID_MODEL,
                  "graph output tensor 4 'z' is never computed");
}

TEST_CASE("operator contracts are checked", "[loader]") {
  SECTION("unknown kind") {
    KilnModule M = addMulModule();
    M.Model.operators[0]->kind = static_cast<fb::OpKind>(999);
    requireRejected(bytesOf(std::move(M)), KILN_ERROR_UNSUPPORTED,
                    "operator 0 (kind(999) 'BINARY'): unknown operator kind "
                    "999; the file may need a newer kiln runtime");
  }
  SECTION("wrong options table") {
    KilnModule M = addMulModule();
    M.Model.operators[0]->options.Set(fb::SoftmaxOptionsT());
    requireRejected(bytesOf(std::move(M)), KILN_ERROR_INVALID_MODEL,
                    "operator 0 (BINARY 'BINARY'): wrong options table");
  }
  SECTION("shapes that do not broadcast") {
    KilnModule M = addMulModule();
    M.Model.tensors[1]->shape = {1, 3};
    M.Model.tensors[3]->shape = {2, 4};
    requireRejected(bytesOf(std::move(M)), KILN_ERROR_INVALID_MODEL,
                    "output 'y' has shape [2,4], expected [2,3]");
  }
  SECTION("a convolution weight that does not match the options") {
    KilnModule M = convModule();
    M.Model.operators[0]->options.AsConv2DOptions()->kernel_height = 2;
    requireRejected(bytesOf(std::move(M)), KILN_ERROR_INVALID_MODEL,
                    "weight 'w' has shape [3,3,3,2], expected [3,2,3,2]");
  }
  SECTION("a convolution output of the wrong size") {
    KilnModule M = convModule();
    M.Model.operators[0]->options.AsConv2DOptions()->stride_height = 2;
    requireRejected(bytesOf(std::move(M)), KILN_ERROR_INVALID_MODEL,
                    "output 'y' has shape [1,4,4,3], expected [1,2,4,3]");
  }
  SECTION("channel groups that do not cover the input") {
    KilnModule M = convModule();
    M.Model.operators[0]->options.AsConv2DOptions()->groups = 3;
    requireRejected(bytesOf(std::move(M)), KILN_ERROR_INVALID_MODEL,
                    "groups 3 x 2 input channels per group != 2 input "
                    "channels");
  }
  SECTION("an absurd stride") {
    KilnModule M = convModule();
    M.Model.operators[0]->options.AsConv2DOptions()->stride_width = 1u << 30;
    requireRejected(bytesOf(std::move(M)), KILN_ERROR_INVALID_MODEL,
                    "stride_width is 1073741824, expected 1 to 16777216");
  }
  SECTION("an inverted clamp range") {
    KilnModule M = addMulModule();
    M.Model.operators[1]->options.AsBinaryOptions()->output_max = -1;
    requireRejected(bytesOf(std::move(M)), KILN_ERROR_INVALID_MODEL,
                    "bad output range [0, -1]");
  }
  SECTION("a missing required input") {
    KilnModule M = convModule();
    M.Model.operators[0]->inputs[1] = -1;
    requireRejected(bytesOf(std::move(M)), KILN_ERROR_INVALID_MODEL,
                    "input 1 is required");
  }
}

/// A pooling of x [1,8,8,3] with kernel K x K, stride 1, no padding. The
/// output is declared [1,1,1,3] whatever K is: the window check comes first.
static KilnModule poolModule(fb::OpKind Kind, uint32_t K,
                             std::vector<int64_t> In = {1, 8, 8, 3}) {
  KilnModule M;
  int32_t X = addTensor(M, "x", fb::DType::F32, In, fb::Layout::NHWC);
  int32_t Y = addTensor(M, "y", fb::DType::F32, {1, 1, 1, 3},
                        fb::Layout::NHWC);
  fb::Pool2DOptionsT O;
  O.kernel_height = O.kernel_width = K;
  addOp(M, Kind, {X}, {Y}, O);
  M.Model.inputs = {X};
  M.Model.outputs = {Y};
  return M;
}

// XNNPACK asserts (op->compute.range[1] != 0) on these instead of failing,
// so the loader must catch them even in a file kiln wrote.
TEST_CASE("windows that leave no output are rejected", "[loader]") {
  SECTION("a max pool window larger than the input") {
    requireRejected(bytesOf(poolModule(fb::OpKind::MAX_POOL_2D, 16)),
                    KILN_ERROR_INVALID_MODEL,
                    "the window is larger than the padded input (output 0x0)");
  }
  SECTION("an average pool window larger than the input") {
    requireRejected(bytesOf(poolModule(fb::OpKind::AVERAGE_POOL_2D, 9)),
                    KILN_ERROR_INVALID_MODEL,
                    "the window is larger than the padded input (output 0x0)");
  }
  SECTION("a window that fits loads") {
    std::string Error;
    REQUIRE(tryLoad(bytesOf(poolModule(fb::OpKind::MAX_POOL_2D, 8)), Error) ==
            KILN_OK);
  }
  SECTION("a pool over an empty input") {
    requireRejected(
        bytesOf(poolModule(fb::OpKind::MAX_POOL_2D, 1, {1, 0, 8, 3})),
        KILN_ERROR_INVALID_MODEL, "input 'x' is empty");
  }
  SECTION("a zero pool stride") {
    KilnModule M = poolModule(fb::OpKind::MAX_POOL_2D, 2);
    M.Model.operators[0]->options.AsPool2DOptions()->stride_width = 0;
    requireRejected(bytesOf(std::move(M)), KILN_ERROR_INVALID_MODEL,
                    "stride_width is 0, expected 1 to 16777216");
  }
  SECTION("a dilated convolution kernel larger than the padded input") {
    KilnModule M = convModule();
    M.Model.operators[0]->options.AsConv2DOptions()->dilation_height = 4;
    requireRejected(bytesOf(std::move(M)), KILN_ERROR_INVALID_MODEL,
                    "the window is larger than the padded input (output 0x4)");
  }
}

TEST_CASE("inputs the fuzzer found are rejected", "[loader]") {
  // FlatBuffers 2.0 verifies the alignment of a vector's length, not of its
  // 8-byte elements; and a union may name its type without its table.
  const std::pair<const char *, const char *> Cases[] = {
      {"misaligned-shape.kiln",
       "tensor 3 'y.nchw': the shape is not 8-byte aligned"},
      {"missing-options-table.kiln",
       "operator 0 (REDUCE 'ReduceMean_0'): the options table is missing"},
      // An empty tensor whose other dims multiply past 64 bits.
      {"huge-dims-beside-zero.kiln",
       "tensor 0 '' is too large [0,5963776,125842541772800]"}};
  for (auto [File, Message] : Cases) {
    std::ifstream In(std::string(KILN_SOURCE_DIR "/test/fuzz/regressions/") + File,
                     std::ios::binary);
    std::string Bytes((std::istreambuf_iterator<char>(In)),
                      std::istreambuf_iterator<char>());
    REQUIRE(!Bytes.empty());
    requireRejected(Bytes, KILN_ERROR_INVALID_MODEL, Message);
  }
}

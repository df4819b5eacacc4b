// stripLargeRawData (OnnxRawData.h): which initializers it cuts, that the
// ranges it returns are their raw_data bytes, that everything else survives
// (the model re-serializes identically once the bytes are put back), that
// malformed wire data gives None, and that an imported model's large
// constants alias the mapped file with the right values.
#include "frontends/onnx/OnnxImporter.h"
#include "frontends/onnx/OnnxRawData.h"

#include "Support/FileSystem.h"

#include "llvm/Support/FileSystem.h"

#include <catch2/catch.hpp>
#include <onnx/onnx_pb.h>

#include <cstring>

using namespace kiln;
using namespace kiln::onnx_import;

namespace {

constexpr uint64_t MinBytes = 64 * 1024;

std::string floatBytes(size_t Count, float Base) {
  std::string S(Count * sizeof(float), '\0');
  for (size_t I = 0; I < Count; ++I) {
    float V = Base + float(I % 97);
    std::memcpy(&S[I * sizeof(float)], &V, sizeof(float));
  }
  return S;
}

void addInitializer(onnx::GraphProto &G, const std::string &Name, int Type,
                    std::vector<int64_t> Dims, std::string Raw) {
  onnx::TensorProto *T = G.add_initializer();
  T->set_name(Name);
  T->set_data_type(Type);
  for (int64_t D : Dims)
    T->add_dims(D);
  T->set_raw_data(std::move(Raw));
}

/// y = big2 + 0: a model whose main graph holds, in order, a 64 KiB FLOAT
/// initializer (cut), a 16-byte FLOAT one and a 128 KiB INT64 one (kept),
/// and an 80 KB FLOAT one (cut).
onnx::ModelProto testModel() {
  onnx::ModelProto M;
  M.set_ir_version(8);
  M.set_producer_name("kiln-test");
  M.add_opset_import()->set_version(13);
  onnx::GraphProto &G = *M.mutable_graph();
  G.set_name("raw");
  addInitializer(G, "big", onnx::TensorProto::FLOAT, {128, 128},
                 floatBytes(128 * 128, 1));
  addInitializer(G, "small", onnx::TensorProto::FLOAT, {4}, floatBytes(4, 2));
  addInitializer(G, "ints", onnx::TensorProto::INT64, {16384},
                 std::string(16384 * 8, '\x01'));
  addInitializer(G, "big2", onnx::TensorProto::FLOAT, {20000},
                 floatBytes(20000, 3));
  onnx::NodeProto &N = *G.add_node();
  N.set_op_type("Add");
  N.add_input("big2");
  N.add_input("big2");
  N.add_output("y");
  onnx::ValueInfoProto &Y = *G.add_output();
  Y.set_name("y");
  auto *TT = Y.mutable_type()->mutable_tensor_type();
  TT->set_elem_type(onnx::TensorProto::FLOAT);
  TT->mutable_shape()->add_dim()->set_dim_value(20000);
  return M;
}

llvm::StringRef str(llvm::ArrayRef<uint8_t> A) {
  return {reinterpret_cast<const char *>(A.data()), A.size()};
}

} // namespace

TEST_CASE("large FLOAT raw_data is cut and located", "[onnx][rawdata]") {
  const onnx::ModelProto M = testModel();
  const std::string Bytes = M.SerializeAsString();
  auto S = stripLargeRawData(Bytes, MinBytes);
  REQUIRE(S);
  REQUIRE(S->RawData.size() == 4);
  REQUIRE(S->RawData[0]);
  CHECK(!S->RawData[1]); // below MinBytes
  CHECK(!S->RawData[2]); // INT64: shape inference may read its values
  REQUIRE(S->RawData[3]);
  for (size_t I : {0, 3}) {
    llvm::ArrayRef<uint8_t> R = *S->RawData[I];
    CHECK(str(R) == M.graph().initializer(int(I)).raw_data());
    // A view into the original bytes, not a copy.
    CHECK(R.data() >= reinterpret_cast<const uint8_t *>(Bytes.data()));
    CHECK(R.end() <= reinterpret_cast<const uint8_t *>(Bytes.data()) + Bytes.size());
  }
  CHECK(S->Bytes.size() < Bytes.size() - 64 * 1024 - 80000 + 1024);

  onnx::ModelProto P;
  REQUIRE(P.ParseFromString(S->Bytes));
  CHECK(P.graph().initializer(0).raw_data() == std::string(1, '\0'));
  CHECK(P.graph().initializer(3).raw_data() == std::string(1, '\0'));
  CHECK(P.graph().initializer(1).raw_data() == M.graph().initializer(1).raw_data());
  CHECK(P.graph().initializer(2).raw_data() == M.graph().initializer(2).raw_data());
  // Everything else is untouched: with the bytes back, the same message.
  for (int I : {0, 3})
    P.mutable_graph()->mutable_initializer(I)->set_raw_data(
        str(*S->RawData[size_t(I)]).str());
  CHECK(P.SerializeAsString() == Bytes);
}

TEST_CASE("nothing large, or malformed wire data: None", "[onnx][rawdata]") {
  const std::string Bytes = testModel().SerializeAsString();
  CHECK(!stripLargeRawData(Bytes, 1 << 20)); // nothing that large
  // Cut inside big2's raw_data: a length past the end.
  CHECK(!stripLargeRawData(llvm::StringRef(Bytes).drop_back(100), MinBytes));
  // A varint that never ends, and a group (wire type 3).
  CHECK(!stripLargeRawData(std::string(12, '\xff'), MinBytes));
  CHECK(!stripLargeRawData(std::string("\x0b\x0c", 2), MinBytes));
}

TEST_CASE("an imported model's large constants alias the file",
          "[onnx][rawdata]") {
  llvm::SmallString<128> Path;
  REQUIRE(!llvm::sys::fs::createTemporaryFile("kiln-rawdata", "onnx", Path));
  REQUIRE(!writeFileAtomically(Path, testModel().SerializeAsString()));
  auto G = importOnnxFile(Path);
  llvm::sys::fs::remove(Path);
  if (!G)
    FAIL(llvm::toString(G.takeError()));
  const Value *W = nullptr;
  for (const Node &N : (*G)->nodes())
    if (N.isOp("add"))
      W = N.operand(0);
  REQUIRE(W);
  REQUIRE(W->constant());
  const Tensor &T = *W->constant();
  CHECK(T.buffer().isAlias());
  REQUIRE(T.numElements() == 20000);
  for (int64_t I : {0, 1, 96, 97, 19999})
    CHECK(T.at<float>(I) == 3.0f + float(I % 97));
}

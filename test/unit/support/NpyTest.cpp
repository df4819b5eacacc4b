// .npy/.npz: files written by numpy read back with the right values, our
// writer round-trips, and every file of the malformed corpus
// (test/npy-malformed, made by generate.py there) is rejected with a message
// that names the problem.
#include "Support/Npy.h"

#include "LlvmErrorChecks.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <catch2/catch.hpp>

#include <cstring>

using namespace kiln;

static std::string corpus(const char *Name) {
  return std::string(KILN_SOURCE_DIR) + "/test/npy-malformed/" + Name;
}

template <typename T> static T elem(const NpyArray &A, size_t I) {
  T V;
  std::memcpy(&V, A.Data + I * sizeof(T), sizeof(T));
  return V;
}

TEST_CASE("arrays written by numpy read back", "[support][npy]") {
  NpyArray A = requireValue(readNpyFile(corpus("good-f32.npy")));
  CHECK(A.DType == NpyDType::F32);
  CHECK(A.Shape == std::vector<int64_t>{2, 3});
  CHECK(elem<float>(A, 0) == 1.5f);
  CHECK(elem<float>(A, 5) == -0.5f);

  NpyArray S = requireValue(readNpyFile(corpus("good-i64-scalar.npy")));
  CHECK(S.Shape.empty());
  CHECK(elem<int64_t>(S, 0) == 7);

  NpyArray B = requireValue(readNpyFile(corpus("good-bool.npy")));
  CHECK(B.DType == NpyDType::Bool);
  CHECK(B.Size == 3);
  CHECK(B.Data[1] == 0);

  auto Members = requireValue(readNpzFile(corpus("good-compressed.npz")));
  REQUIRE(Members.size() == 2);
  CHECK(Members[0].first == "first");
  CHECK(Members[0].second.DType == NpyDType::I32);
  CHECK(elem<int32_t>(Members[0].second, 3) == 3);
  CHECK(Members[1].first == "second/name:0"); // names kept exactly
  CHECK(elem<double>(Members[1].second, 3) == 1.0);
}

TEST_CASE("our .npy and .npz writers round-trip", "[support][npy]") {
  float Data[] = {1, 2, 3, 4, 5, 6};
  llvm::StringRef Bytes(reinterpret_cast<const char *>(Data), sizeof(Data));
  std::string File = serializeNpy(NpyDType::F32, {3, 2}, Bytes);
  CHECK(File.size() % 64 == 24); // data starts 64-byte aligned
  NpyArray A = requireValue(parseNpy(File, "mem", nullptr));
  CHECK(A.Shape == std::vector<int64_t>{3, 2});
  CHECK(elem<float>(A, 5) == 6.0f);
  std::string One = serializeNpy(NpyDType::U8, {4}, "abcd");
  CHECK(One.find("'shape': (4,)") != std::string::npos); // 1-tuple syntax

  llvm::SmallString<128> Dir;
  REQUIRE_FALSE(llvm::sys::fs::createUniqueDirectory("kiln-npz", Dir));
  std::string Path = (Dir + "/out.npz").str();
  REQUIRE_NO_ERROR(writeNpzFile(Path, {{"logits", File}, {"a/b", One}}));
  auto Back = requireValue(readNpzFile(Path));
  REQUIRE(Back.size() == 2);
  CHECK(Back[0].first == "logits");
  CHECK(Back[1].first == "a/b");
  CHECK(elem<float>(Back[0].second, 2) == 3.0f);
  // Deterministic: the same content gives the same bytes.
  std::string Path2 = (Dir + "/again.npz").str();
  REQUIRE_NO_ERROR(writeNpzFile(Path2, {{"logits", File}, {"a/b", One}}));
  auto B1 = llvm::MemoryBuffer::getFile(Path), B2 = llvm::MemoryBuffer::getFile(Path2);
  REQUIRE(B1);
  REQUIRE(B2);
  CHECK((*B1)->getBuffer() == (*B2)->getBuffer());
  llvm::sys::fs::remove_directories(Dir);
}

TEST_CASE("the malformed .npy/.npz corpus is rejected", "[support][npy]") {
  struct Case {
    const char *File;
    const char *Message;
  };
  const Case Cases[] = {
      {"lying-shape.npy", "header declares 8 elements of <f4 (32 bytes) but "
                          "the file holds 24 data bytes"},
      {"short-data.npy", "header declares 6 elements of <f4 (24 bytes) but the "
                         "file holds 21 data bytes"},
      {"long-data.npy", "but the file holds 28 data bytes"},
      {"pickled-object.npy", "dtype '|O' holds Python objects (pickle)"},
      {"big-endian.npy", "dtype '>f4' is big-endian"},
      {"fortran-order.npy", "Fortran-ordered arrays are not supported"},
      {"overflow-shape.npy", "shape has more elements than the limit"},
      {"huge-header.npy", "header of 1073741824 bytes is above the 65536-byte limit"},
      {"header-past-end.npy", "header says 500 bytes but the file ends first"},
      {"bad-magic.npy", "not a .npy file (bad magic)"},
      {"truncated.npy", "truncated .npy header"},
      {"not-a-dict.npy", "invalid .npy header: header is not a dict"},
      {"negative-dim.npy", "shape entries must be non-negative integers"},
      {"string-dtype.npy", "unsupported dtype '<U4'"},
      {"missing-shape.npy", "header lacks descr, fortran_order or shape"},
      {"empty.npy", "not a .npy file (bad magic)"},
  };
  for (const Case &C : Cases) {
    INFO(C.File);
    auto R = readNpyFile(corpus(C.File));
    REQUIRE_FALSE(bool(R));
    std::string Msg = toString(R.takeError());
    CHECK(Msg.find(C.File) != std::string::npos); // names the file
    CHECK(Msg.find(C.Message) != std::string::npos);
  }
  const Case Archives[] = {
      {"truncated.npz", "not a valid .npz (zip) archive"},
      {"non-npy-member.npz", "entry 'x.txt' is not an .npy array"},
      {"lying-member.npz", "header declares 9 elements"},
      {"bad-crc.npz", "entry 'x.npy' is corrupt"},
      {"garbage.npz", "not a valid .npz (zip) archive"},
  };
  for (const Case &C : Archives) {
    INFO(C.File);
    auto R = readNpzFile(corpus(C.File));
    REQUIRE_FALSE(bool(R));
    std::string Msg = toString(R.takeError());
    CHECK(Msg.find(C.Message) != std::string::npos);
  }
}

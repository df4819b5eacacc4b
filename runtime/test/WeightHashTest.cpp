// verify_weight_hashes: the runtime's xxHash64 against xxhsum's values, a
// file from the real writer passing, and a flipped weight bit or a renamed
// tensor refused by a session that asks for the check (and run by one that
// does not).
#include "RuntimeTestModels.h"

#include "loader/WeightHashes.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

using namespace kiln;
using namespace kiln::testmodels;

namespace {

/// Creates a session on Bytes with verify_weight_hashes set to Verify;
/// returns the status, and the message in Error.
kiln_status createSession(const std::string &Bytes, bool Verify,
                          std::string &Error) {
  kiln_model *Model = nullptr;
  REQUIRE(kiln_model_load_buffer(Bytes.data(), Bytes.size(), &Model) == KILN_OK);
  kiln_session_options O;
  kiln_session_options_init(&O);
  O.num_threads = 1;
  O.verify_weight_hashes = Verify;
  kiln_session *Session = nullptr;
  kiln_status S = kiln_session_create(Model, &O, &Session);
  Error = S == KILN_OK ? "" : kiln_last_error();
  kiln_session_destroy(Session);
  kiln_model_destroy(Model);
  return S;
}

std::string hex(uint64_t V) {
  char Text[17];
  std::snprintf(Text, sizeof Text, "%016llx", static_cast<unsigned long long>(V));
  return Text;
}

} // namespace

TEST_CASE("the runtime's weight hash is xxHash64 with seed 0", "[hash]") {
  // The values `printf '' | xxhsum -H1` and `printf abc | xxhsum -H1` print.
  REQUIRE(rt::weightHash("", 0) == 0xef46db3751d8e999ULL);
  REQUIRE(rt::weightHash("abc", 3) == 0x44bc2cf5ad770999ULL);
}

TEST_CASE("verify_weight_hashes accepts the writer's file and names a "
          "damaged segment", "[hash]") {
  std::string Bytes = bytesOf(addMulModule());
  std::string Error;
  REQUIRE(createSession(Bytes, true, Error) == KILN_OK);

  // Every segment records the hash of its bytes, as the runtime computes it.
  const fb::Model &Root = *fb::GetModel(Bytes.data());
  REQUIRE(Root.buffers());
  REQUIRE(Root.buffers()->size() == 2);
  uint32_t Constant = 0; // the segment of tensor "c" = [1, 2, 3]
  for (const fb::Tensor *T : *Root.tensors())
    if (T->name()->str() == "c")
      Constant = uint32_t(T->buffer());
  const fb::Buffer &B = *Root.buffers()->Get(Constant);
  REQUIRE(B.size() == 12);
  float Expected[3] = {1, 2, 3};
  REQUIRE(B.xxhash64() == rt::weightHash(Expected, sizeof Expected));

  // 2.0f -> 2.0000002f: the structure is intact, the weights are not.
  std::string Flipped = Bytes;
  Flipped[B.offset() + 4] ^= 1;
  float Changed[3] = {1, 2, 3};
  std::memcpy(Changed, Flipped.data() + B.offset(), sizeof Changed);
  REQUIRE(createSession(Flipped, false, Error) == KILN_OK);
  REQUIRE(createSession(Flipped, true, Error) == KILN_ERROR_INVALID_MODEL);
  REQUIRE(Error == "segment " + std::to_string(Constant) +
                       " (12 bytes at offset " + std::to_string(B.offset()) +
                       "; c) is damaged: its xxHash64 is " +
                       hex(rt::weightHash(Changed, sizeof Changed)) +
                       ", the file records " + hex(B.xxhash64()));

  // The FlatBuffer records its own size and hash.
  REQUIRE(Root.flatbuffer_bytes() > 0);
  REQUIRE(Root.flatbuffer_bytes() <= B.offset());
  REQUIRE(Root.flatbuffer_xxhash64() != 0);

  // Damage to the structure that the loader cannot see: the constant's
  // name, "c" -> "b". The hash of the FlatBuffer finds it.
  std::string Renamed = Bytes;
  size_t NameAt = 0;
  for (const fb::Tensor *T : *Root.tensors())
    if (T->name()->str() == "c")
      NameAt = size_t(reinterpret_cast<const char *>(T->name()->data()) -
                      Bytes.data());
  REQUIRE(Renamed[NameAt] == 'c');
  Renamed[NameAt] = 'b';
  REQUIRE(createSession(Renamed, false, Error) == KILN_OK);
  REQUIRE(createSession(Renamed, true, Error) == KILN_ERROR_INVALID_MODEL);
  REQUIRE(Error.find("the FlatBuffer (" + std::to_string(Root.flatbuffer_bytes()) +
                     " bytes: the file's structure, operators and options) "
                     "is damaged: its xxHash64 is ") == 0);

  // A file that records no hash (as before schema 1.7) cannot be checked.
  std::string Unrecorded = Bytes;
  REQUIRE(mutableRoot(Unrecorded)->mutate_flatbuffer_xxhash64(0));
  REQUIRE(createSession(Unrecorded, false, Error) == KILN_OK);
  REQUIRE(createSession(Unrecorded, true, Error) == KILN_ERROR_INVALID_MODEL);
  REQUIRE(Error == "the file records no hash of its FlatBuffer (the file was "
                   "written before schema 1.7), so verify_weight_hashes "
                   "cannot check it");
}

TEST_CASE("kiln_verify_hashes lists every damaged part and counts what it "
          "hashed", "[hash]") {
  std::string Bytes = bytesOf(addMulModule());
  const fb::Model &Root = *fb::GetModel(Bytes.data());
  kiln_hash_report R{};
  R.struct_size = sizeof R;
  REQUIRE(kiln_verify_hashes(Bytes.data(), Bytes.size(), &R) == KILN_OK);
  CHECK(R.structure_hashed == 1);
  CHECK(R.segments_hashed == 2);
  uint64_t SegmentBytes = 0;
  for (const fb::Buffer *B : *Root.buffers())
    SegmentBytes += B->size();
  CHECK(R.bytes_hashed == SegmentBytes);
  CHECK(R.segments_without_hash == 0);
  CHECK(R.problems == 0);

  // Both segments damaged, and the FlatBuffer: three lines, structure first.
  std::string Damaged = Bytes;
  for (const fb::Buffer *B : *Root.buffers())
    Damaged[B->offset()] ^= 0x40;
  size_t NameAt = size_t(reinterpret_cast<const char *>(
                             Root.tensors()->Get(0)->name()->data()) -
                         Bytes.data());
  Damaged[NameAt] ^= 0x01;
  REQUIRE(kiln_verify_hashes(Damaged.data(), Damaged.size(), &R) ==
          KILN_ERROR_INVALID_MODEL);
  CHECK(R.problems == 3);
  std::string Lines = kiln_last_error();
  CHECK(std::count(Lines.begin(), Lines.end(), '\n') == 2);
  CHECK(Lines.find("the FlatBuffer (") == 0);
  CHECK(Lines.find("\nsegment 0 (") != std::string::npos);
  CHECK(Lines.find("\nsegment 1 (") != std::string::npos);

  // A file of schema 1.7 that records no hash for a segment: damage (a
  // zeroed field), named, where a file before 1.7 is merely unchecked.
  std::string Zeroed = Bytes;
  REQUIRE(mutableRoot(Zeroed)->mutable_buffers()->GetMutableObject(1)->mutate_xxhash64(0));
  // The FlatBuffer's own hash now differs too; restore it to isolate the
  // segment's missing hash.
  {
    std::string Flat = Zeroed.substr(0, Root.flatbuffer_bytes());
    const auto &Table = reinterpret_cast<const flatbuffers::Table &>(
        *fb::GetModel(Zeroed.data()));
    size_t At = size_t(Table.GetAddressOf(fb::Model::VT_FLATBUFFER_XXHASH64) -
                       reinterpret_cast<const uint8_t *>(Zeroed.data()));
    std::memset(&Flat[At], 0, 8);
    REQUIRE(mutableRoot(Zeroed)->mutate_flatbuffer_xxhash64(
        rt::weightHash(Flat.data(), Flat.size())));
  }
  REQUIRE(kiln_verify_hashes(Zeroed.data(), Zeroed.size(), &R) ==
          KILN_ERROR_INVALID_MODEL);
  CHECK(R.problems == 1);
  CHECK(R.segments_without_hash == 1);
  CHECK(R.segments_hashed == 1);
  CHECK(std::string(kiln_last_error()).find(
            "segment 1 (") == 0);
  CHECK(std::string(kiln_last_error()).find(
            ") carries no weight hash, which every file of schema 1.7 or "
            "later records") != std::string::npos);

  // A structure the loader refuses is the loader's message, with no report
  // of problems; a report too small for this runtime's fields is refused.
  REQUIRE(kiln_verify_hashes(Bytes.data(), 16, &R) == KILN_ERROR_INVALID_MODEL);
  CHECK(R.problems == 0);
  kiln_hash_report Small{};
  Small.struct_size = sizeof(size_t);
  CHECK(kiln_verify_hashes(Bytes.data(), Bytes.size(), &Small) ==
        KILN_ERROR_INVALID_ARGUMENT);
}

// The writer: byte-identical output for the same module, 64-byte aligned
// segments after the FlatBuffer with zero padding, the schema version and
// identifier, atomic replacement, a source hash filled in late, and an
// internal error for a module that names a missing segment.
#include "backends/common/KilnWriter.h"
#include "backends/kilnops/KilnOps.h"
#include "schema/KilnSchemaVersion.h"

#include "IR/Parser.h"
#include "LlvmErrorChecks.h"
#include "Support/Error.h"
#include "passes/PassManager.h"
#include "passes/Pipelines.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <catch2/catch.hpp>

#include <cstring>

using namespace kiln;

namespace {

/// A small CNN (examples/tiny_cnn.kir at batch 2, without its batch_norm),
/// optimized at -O2 and compiled for the CPU target: a fresh module on every
/// call.
KilnModule tinyCnnModule() {
  std::unique_ptr<Graph> Fixed = requireValue(parseGraph(
      R"(graph @g(%x: f32[2,3,8,8]) -> (%y: f32[2,4]) {
  %w0 = const f32[4,3,1,1] dense[0.5, -0.25, 1.0, 0.125, 0.75, -0.5, 0.25, 1.5, -1.0, 2.0, 0.0, 0.5]
  %b0 = const f32[4] dense[0.0, 0.1, -0.1, 0.2]
  %conv = conv(%x, %w0, %b0) {strides=[1,1], pads=[0,0,0,0], group=1} : f32[2,4,8,8]
  %act = clip(%conv) {min=0.0, max=6.0} : f32[2,4,8,8]
  %pool = global_avg_pool(%act) : f32[2,4,1,1]
  %flat = flatten(%pool) {axis=1} : f32[2,4]
  %fc_w = const f32[4,4] dense[1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0]
  %y = linear(%flat, %fc_w) : f32[2,4]
  return %y
})",
      "tiny.kir"));
  PassManager PM;
  for (const std::string &P : pipelineForLevel(2))
    REQUIRE_NO_ERROR(PM.add(P));
  REQUIRE_NO_ERROR(PM.run(*Fixed));
  return requireValue(lowerToKilnOps(*Fixed)).Module;
}

/// One 3x3 convolution, W[o][i][y][x] = 10*o + 100*i + 3*y + x, compiled
/// for the CPU target: its weight is packed (OHWI) as the file is written.
KilnModule conv3x3Module() {
  std::unique_ptr<Graph> G = requireValue(parseGraph(
      R"(graph @g(%x: f32[1,2,4,4]) -> (%y: f32[1,2,2,2]) {
  %w = const f32[2,2,3,3] dense[0, 1, 2, 3, 4, 5, 6, 7, 8, 100, 101, 102, 103, 104, 105, 106, 107, 108, 10, 11, 12, 13, 14, 15, 16, 17, 18, 110, 111, 112, 113, 114, 115, 116, 117, 118]
  %y = conv(%x, %w) {strides=[1,1], pads=[0,0,0,0], group=1} : f32[1,2,2,2]
  return %y
})",
      "conv3x3.kir"));
  return requireValue(lowerToKilnOps(*G)).Module;
}

} // namespace

TEST_CASE("the same module gives byte-identical files", "[writer]") {
  KilnModule A = tinyCnnModule(), B = tinyCnnModule();
  std::string BytesA = requireValue(serializeKilnModule(A));
  std::string BytesB = requireValue(serializeKilnModule(B));
  REQUIRE(BytesA == BytesB);
  // Serializing the same module again changes nothing either.
  REQUIRE(requireValue(serializeKilnModule(A)) == BytesA);
}

TEST_CASE("the file layout", "[writer]") {
  KilnModule M = tinyCnnModule();
  std::string Bytes = requireValue(serializeKilnModule(M));
  REQUIRE(Bytes.substr(4, 4) == "KILN");
  REQUIRE(fb::ModelBufferHasIdentifier(Bytes.data()));
  const fb::Model *Root = fb::GetModel(Bytes.data());
  REQUIRE(Root->schema_major() == 1);
  REQUIRE(Root->schema_minor() == fb::StaticFileMinor);
  REQUIRE(Root->buffers()->size() == M.Segments.size());
  REQUIRE(M.Segments.size() >= 2);
  uint64_t Previous = 0;
  for (unsigned I = 0; I < Root->buffers()->size(); ++I) {
    const fb::Buffer *B = Root->buffers()->Get(I);
    REQUIRE(B->offset() % 64 == 0);
    REQUIRE(B->offset() >= Previous);
    REQUIRE(B->size() == M.Segments[I].size());
    REQUIRE(Bytes.compare(B->offset(), B->size(), M.Segments[I].bytes().str().str()) == 0);
    // Padding between the end of the previous segment and this one is zero.
    for (uint64_t P = Previous; P < B->offset(); ++P)
      if (I > 0)
        REQUIRE(Bytes[P] == '\0');
    Previous = B->offset() + B->size();
  }
  // After the last segment: zeros to a multiple of 64, then 64 more.
  REQUIRE(Bytes.size() % 64 == 0);
  REQUIRE(Bytes.size() >= Previous + 64);
  REQUIRE(Bytes.size() < Previous + 128);
  for (uint64_t P = Previous; P < Bytes.size(); ++P)
    REQUIRE(Bytes[P] == '\0');
  // The first segment starts after the FlatBuffer: its offset is the
  // FlatBuffer's size rounded up, so nothing before it is weights.
  REQUIRE(Root->buffers()->Get(0)->offset() < 64 * 64);
}

TEST_CASE("writing replaces the file atomically", "[writer]") {
  llvm::SmallString<128> Dir;
  REQUIRE(!llvm::sys::fs::createUniqueDirectory("kiln-writer", Dir));
  std::string Path = (Dir + "/m.kiln").str();
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC);
    OS << "old contents";
  }
  KilnModule M = tinyCnnModule();
  REQUIRE_NO_ERROR(writeKilnFile(Path, M));
  auto Written = llvm::MemoryBuffer::getFile(Path);
  REQUIRE(Written);
  REQUIRE((*Written)->getBuffer() == requireValue(serializeKilnModule(M)));
  // Nothing else is left in the folder (no temporary files).
  std::error_code EC;
  int Entries = 0;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC))
    ++Entries;
  REQUIRE(Entries == 1);
  // A folder that does not exist: an error, and no file.
  std::string Bad = (Dir + "/missing/m.kiln").str();
  llvm::Error E = writeKilnFile(Bad, M);
  REQUIRE(static_cast<bool>(E));
  llvm::consumeError(std::move(E));
  REQUIRE(!llvm::sys::fs::exists(Bad));
  llvm::sys::fs::remove_directories(Dir);
}

TEST_CASE("a 3x3 weight is packed into the file as it is written",
          "[writer]") {
  // The OHWI bytes interleave the two input channels of each tap.
  KilnModule M = conv3x3Module();
  const fb::TensorT *W = nullptr;
  for (const auto &T : M.Model.tensors)
    if (T->layout == fb::Layout::OHWI)
      W = T.get();
  REQUIRE(W);
  REQUIRE(M.Segments[size_t(W->buffer)].isProduced());
  std::string Bytes = requireValue(serializeKilnModule(M));
  const fb::BufferT &B = *M.Model.buffers[size_t(W->buffer)];
  REQUIRE(B.size == 36 * sizeof(float));
  std::vector<float> Stored(36);
  std::memcpy(Stored.data(), Bytes.data() + B.offset, B.size);
  std::vector<float> Expected;
  for (int O = 0; O < 2; ++O)
    for (int Tap = 0; Tap < 9; ++Tap)
      for (int I = 0; I < 2; ++I)
        Expected.push_back(float(10 * O + 100 * I + Tap));
  REQUIRE(Stored == Expected);

  // The file written piece by piece is the same bytes.
  llvm::SmallString<128> Dir;
  REQUIRE(!llvm::sys::fs::createUniqueDirectory("kiln-writer", Dir));
  std::string Path = (Dir + "/conv.kiln").str();
  REQUIRE_NO_ERROR(writeKilnFile(Path, M));
  auto Written = llvm::MemoryBuffer::getFile(Path);
  REQUIRE(Written);
  REQUIRE((*Written)->getBuffer() == Bytes);
  llvm::sys::fs::remove_directories(Dir);
}

TEST_CASE("a late source hash is filled in as the file is written",
          "[writer]") {
  // Written with the hash given late: the same bytes as the module with the
  // hash set beforehand, for modules with and without produced segments.
  for (KilnModule (*Make)() : {&tinyCnnModule, &conv3x3Module}) {
    KilnModule Late = Make(), Early = Make();
    Early.Model.metadata->source_hash = "0123456789abcdef";
    std::string Expected = requireValue(serializeKilnModule(Early));
    REQUIRE(Expected.find("0123456789abcdef") != std::string::npos);

    llvm::SmallString<128> Dir;
    REQUIRE(!llvm::sys::fs::createUniqueDirectory("kiln-writer", Dir));
    std::string Path = (Dir + "/late.kiln").str();
    int Calls = 0;
    REQUIRE_NO_ERROR(writeKilnFile(Path, Late, nullptr, [&Calls] {
      ++Calls;
      return uint64_t(0x0123456789abcdefULL);
    }));
    REQUIRE(Calls == 1);
    auto Written = llvm::MemoryBuffer::getFile(Path);
    REQUIRE(Written);
    REQUIRE((*Written)->getBuffer() == Expected);
    llvm::sys::fs::remove_directories(Dir);
  }
  // Without metadata there is nowhere to put it: an internal error.
  KilnModule M = tinyCnnModule();
  M.Model.metadata.reset();
  llvm::Error E = writeKilnFile("never-written.kiln", M, nullptr,
                                [] { return uint64_t(1); });
  REQUIRE(diagnose(std::move(E)).Code == ExitCode::Internal);
  REQUIRE(!llvm::sys::fs::exists("never-written.kiln"));
}

TEST_CASE("a tensor naming a missing segment is an internal error",
          "[writer]") {
  KilnModule M = tinyCnnModule();
  M.Model.tensors[0]->buffer = 1000;
  auto Bytes = serializeKilnModule(M);
  REQUIRE(!Bytes);
  Diagnosis D = diagnose(Bytes.takeError());
  REQUIRE(D.Code == ExitCode::Internal);
  REQUIRE(D.Message.find("names segment 1000 of") != std::string::npos);
}

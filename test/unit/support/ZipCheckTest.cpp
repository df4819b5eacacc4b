// checkZipArchive: archives written by torch.jit.save and Python's zipfile
// pass; every file of the malformed corpus (test/torchscript-malformed, made
// by generate.py there) is rejected as bad input with the exact message; the
// limits are honoured; and no truncation or single-byte corruption of a real
// .pt file crashes the check (the sanitizer build runs this too).
#include "Support/ZipCheck.h"

#include "Support/Error.h"

#include "LlvmErrorChecks.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <catch2/catch.hpp>

using namespace kiln;

static std::string corpus(const char *Name) {
  return std::string(KILN_SOURCE_DIR) + "/test/torchscript-malformed/" + Name;
}

/// The diagnosis of checking Path, which must fail.
static Diagnosis rejection(const std::string &Path, const ZipLimits &L = {}) {
  llvm::Error E = checkZipArchive(Path, L);
  REQUIRE(bool(E));
  return diagnose(std::move(E));
}

TEST_CASE("archives written by torch and by Python's zipfile pass",
          "[support][zip]") {
  REQUIRE_NO_ERROR(checkZipArchive(corpus("good.pt")));       // torch.jit.save
  REQUIRE_NO_ERROR(checkZipArchive(corpus("good-small.pt"))); // generate.py
  REQUIRE_NO_ERROR(checkZipArchive(corpus("good-zip64.pt"))); // ZIP64 extras
  REQUIRE_NO_ERROR(checkZipArchive(corpus("good-streamed.pt"))); // descriptors
}

TEST_CASE("the malformed .pt corpus is rejected with a message naming the "
          "file and the entry",
          "[support][zip]") {
  struct Case {
    const char *File;
    const char *Message; // after "<path>: "
  };
  const Case Cases[] = {
      {"empty.pt", "file is empty, not a zip archive"},
      {"not-a-zip.pt",
       "not a zip archive (no end-of-central-directory record)"},
      {"truncated-half.pt",
       "truncated zip archive: the end-of-central-directory "
       "record is missing"},
      {"truncated-central-directory.pt",
       "truncated zip archive: the end-of-central-directory record is missing"},
      {"empty-archive.pt", "zip archive has no entries"},
      {"traversal-dotdot.pt",
       "entry 'archive/../../x' has a path-traversal name ('..' component)"},
      {"traversal-absolute.pt",
       "entry '/etc/x' has a path-traversal name (absolute path)"},
      {"traversal-backslash.pt",
       "entry 'archive\\..\\x' has a path-traversal name (backslash)"},
      {"nul-in-name.pt",
       "entry 'archive/a\\x00b' has a path-traversal name (NUL byte)"},
      {"empty-name.pt", "entry #0 has an empty name"},
      {"duplicate-names.pt", "entry 'archive/data.pkl' appears twice"},
      {"encrypted.pt", "entry 'archive/data.pkl' is encrypted"},
      {"bzip2.pt", "entry 'archive/data.pkl' uses compression method 12; only "
                   "stored (0) and deflate (8) are supported"},
      {"size-larger.pt", "entry 'archive/code/__torch__/torch/nn/modules/"
                         "linear.py' declares 450 bytes but holds only 350"},
      {"size-smaller.pt", "entry 'archive/code/__torch__/torch/nn/modules/"
                          "linear.py' holds more than the 250 bytes it "
                          "declares"},
      {"stored-size-mismatch.pt",
       "entry 'archive/data.pkl' is stored uncompressed but declares 6 "
       "compressed and 100 uncompressed bytes"},
      {"crc-mismatch.pt",
       "entry 'archive/data/0' fails its CRC check: the data "
       "does not match CRC 0xc667d7c1"},
      {"corrupt-deflate.pt",
       "entry 'archive/data.pkl' is corrupt: Zlib error: data error"},
      {"local-header-size.pt",
       "entry 'archive/data.pkl': the local header says uncompressed size 999 "
       "but the central directory says 6"},
      {"local-header-name.pt",
       "entry 'archive/data.pkl': the local header says name "
       "'archive/evil.pkl' but the central directory says 'archive/data.pkl'"},
      {"descriptor-mismatch.pt",
       "entry 'archive/data/0': the data descriptor says CRC 0xc667d7c0 but "
       "the central directory says 0xc667d7c1"},
      {"compressed-past-end.pt",
       "entry 'archive/data.pkl' declares 5000 compressed bytes at offset 46, "
       "past the start of the central directory (offset 54)"},
      {"overlapping.pt",
       "entries 'archive/outer' and 'archive/inner' overlap in the file"},
      {"bomb-entry.pt", "entry 'archive/data/0' declares 1099511627776 "
                        "uncompressed bytes, above the limit of 4294967296 per "
                        "entry"},
      {"bomb-total.pt", "entry 'archive/data/5' brings the declared "
                        "uncompressed total above the limit of 17179869184 "
                        "bytes"},
      {"zip64-missing-extra.pt",
       "entry 'archive/data.pkl' has ZIP64 size markers but no ZIP64 extra "
       "field holding the sizes"},
      {"zip64-entry-count.pt",
       "zip archive has 1099511627776 entries, above the limit of 100000"},
      {"zip64-disagrees.pt",
       "the ZIP64 end-of-central-directory record says central directory "
       "offset 7 but the end record says 2578"},
      {"zip64-locator-outside.pt",
       "the ZIP64 locator points at offset 4611686018427387904, outside the "
       "archive's records (which end at 3322)"},
  };
  for (const Case &C : Cases) {
    INFO(C.File);
    std::string Path = corpus(C.File);
    Diagnosis D = rejection(Path);
    CHECK(D.Code == ExitCode::BadInput);
    CHECK(D.Message == Path + ": " + C.Message);
  }
}

TEST_CASE("the limits are enforced", "[support][zip]") {
  std::string Good = corpus("good.pt");
  ZipLimits L;
  L.MaxEntries = 8; // good.pt has 9
  CHECK(rejection(Good, L).Message ==
        Good + ": zip archive has 9 entries, above the limit of 8");
  L = {};
  L.MaxEntryBytes = 300; // archive/data.pkl holds 367 bytes
  CHECK(rejection(Good, L).Message ==
        Good + ": entry 'archive/data.pkl' declares 367 uncompressed bytes, "
               "above the limit of 300 per entry");
  L = {};
  L.MaxTotalBytes = 32; // archive/data/0 (24) + archive/data/1 (8) fit exactly
  CHECK(rejection(Good, L).Message ==
        Good + ": entry 'archive/data.pkl' brings the declared uncompressed "
               "total above the limit of 32 bytes");
  L = {};
  L.MaxNameLength = 13; // "archive/data/0" is 14 bytes
  CHECK(rejection(Good, L).Message ==
        Good + ": entry #0 has a name of 14 bytes, above the limit of 13");
  L = {};
  L.MaxEntries = 9;
  L.MaxNameLength = 14 + 50; // all names fit
  REQUIRE_NO_ERROR(checkZipArchive(Good, L));
}

TEST_CASE("missing files and directories are bad input", "[support][zip]") {
  Diagnosis D = rejection(corpus("no-such-file.pt"));
  CHECK(D.Code == ExitCode::BadInput);
  CHECK(D.Message.find("no-such-file.pt: cannot open") != std::string::npos);
  D = rejection(std::string(KILN_SOURCE_DIR) + "/test/torchscript-malformed");
  CHECK(D.Code == ExitCode::BadInput);
  CHECK(D.Message.find("is a directory") != std::string::npos);
}

// Every strict prefix of a real .pt file is rejected, and no single-byte
// corruption crashes the check or makes it report anything but bad input.
TEST_CASE("truncated and corrupted copies of a real .pt never crash",
          "[support][zip]") {
  auto Buf = llvm::MemoryBuffer::getFile(corpus("good.pt"));
  REQUIRE(Buf);
  llvm::StringRef Good = (*Buf)->getBuffer();
  llvm::SmallString<128> Dir;
  REQUIRE_FALSE(llvm::sys::fs::createUniqueDirectory("kiln-zipcheck", Dir));
  std::string Path = (Dir + "/model.pt").str();
  auto writeFile = [&](llvm::StringRef Bytes) {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC);
    REQUIRE_FALSE(EC);
    OS << Bytes;
  };

  size_t Rejected = 0;
  for (size_t Len = 0; Len < Good.size(); ++Len) {
    writeFile(Good.take_front(Len));
    Diagnosis D = diagnose(checkZipArchive(Path));
    Rejected += D.Code == ExitCode::BadInput &&
                llvm::StringRef(D.Message).startswith(Path + ": ");
  }
  CHECK(Rejected == Good.size());

  size_t Corrupt = 0, Accepted = 0;
  std::string Copy = Good.str();
  for (size_t I = 0; I < Copy.size(); ++I) {
    Copy[I] = char(Copy[I] ^ 0x5A);
    writeFile(Copy);
    Diagnosis D = diagnose(checkZipArchive(Path));
    Copy[I] = Good[I];
    if (D.Code == ExitCode::Success) {
      ++Accepted;
      continue;
    }
    INFO(I << ": " << D.Message);
    CHECK(D.Code == ExitCode::BadInput);
    CHECK(llvm::StringRef(D.Message).startswith(Path + ": "));
    CHECK(D.Message.find('\n') == std::string::npos);
    ++Corrupt;
  }
  // The only bytes of good.pt whose corruption goes unnoticed are ones no
  // reader acts on: PyTorch's 'FB' alignment-padding fields, id and padding
  // bytes (345); version-made-by, version-needed and file attributes in the
  // central directory (90); the high bits of the flags in both headers (18);
  // the ZIP64 end record's version fields (4); and the padding bits after the
  // end of one deflate stream (1). Names, flags that matter, methods, sizes,
  // CRCs, offsets, timestamps (libzip compares them) and data may not change.
  CHECK(Accepted == 458);
  CHECK(Corrupt == Good.size() - 458);
  llvm::sys::fs::remove_directories(Dir);
}

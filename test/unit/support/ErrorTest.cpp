// Errors carry exit codes through joins and added context.
#include "Support/Error.h"

#include <catch2/catch.hpp>

using namespace kiln;

TEST_CASE("diagnose keeps the code and the message", "[support][error]") {
  Diagnosis D = diagnose(inputError("{0}: node '{1}' is bad", "m.onnx", "conv_1"));
  CHECK(D.Code == ExitCode::BadInput);
  CHECK(D.Message == "m.onnx: node 'conv_1' is bad");
  CHECK(diagnose(usageError("no")).Code == ExitCode::Usage);
  CHECK(diagnose(internalError("bug")).Code == ExitCode::Internal);
  CHECK(diagnose(llvm::Error::success()).Code == ExitCode::Success);
}

TEST_CASE("joined errors: one line each, the most severe code wins",
          "[support][error]") {
  llvm::Error E = llvm::joinErrors(inputError("first"), internalError("second"));
  Diagnosis D = diagnose(addContext(std::move(E), "file.kir"));
  CHECK(D.Code == ExitCode::Internal);
  CHECK(D.Message == "file.kir: first\nfile.kir: second");
}

TEST_CASE("foreign LLVM errors count as bad input", "[support][error]") {
  Diagnosis D = diagnose(llvm::createStringError(
      std::make_error_code(std::errc::invalid_argument), "llvm says no"));
  CHECK(D.Code == ExitCode::BadInput);
  CHECK(D.Message == "llvm says no");
}

#include "Driver/ConvertModel.h"

#include "Support/Error.h"
#include "Support/FileSystem.h"
#include "Support/Hash.h"

#include "kiln/kiln.h"

#include <future>

namespace kiln {

namespace {

/// The source model's hash (xxHash64 of its bytes), computed on another
/// thread while the model is imported, optimized and written: for a large
/// model it is a noticeable part of the conversion. value() may be called
/// from any thread; error() tells whether the file could be read.
class SourceHash {
public:
  explicit SourceHash(std::string Path)
      : Result(std::async(std::launch::async, [Path = std::move(Path)] {
                 auto Bytes = mapFile(Path);
                 if (!Bytes)
                   return Outcome{0, llvm::toString(Bytes.takeError())};
                 return Outcome{contentHash((*Bytes)->getBuffer()), ""};
               }).share()) {}
  uint64_t value() const { return Result.get().Hash; }
  llvm::Error error() const {
    if (Result.get().Error.empty())
      return llvm::Error::success();
    return inputError("{0}", Result.get().Error);
  }

private:
  struct Outcome {
    uint64_t Hash;
    std::string Error;
  };
  std::shared_future<Outcome> Result;
};

/// The runtime must accept what the writer produced; if not, it is a bug.
llvm::Error verifyWithRuntime(llvm::StringRef Bytes, llvm::StringRef Out) {
  if (kiln_verify_buffer(Bytes.data(), Bytes.size()) != KILN_OK)
    return internalError("{0}: the compiled model does not pass the runtime's "
                         "verifier ({1}); nothing was written",
                         Out, kiln_last_error());
  return llvm::Error::success();
}

} // namespace

llvm::Expected<std::unique_ptr<TargetReport>>
convertModel(const ConvertModelOptions &O) {
  const Target *T = findTarget(O.TargetName);
  if (!T)
    return unknownTargetError(O.TargetName);
  CompileGraphOptions CO = O.Compile;
  CO.ForTarget = T;
  if (llvm::Error E = checkCompileFlags(CO))
    return E;
  // A FIFO, device, symlink or the model itself as -o is refused now, not
  // after the whole conversion (the writer checks again before it renames).
  noteInputFile(CO.Input);
  if (llvm::Error E = checkOutputPath(O.Output))
    return E;
  auto Hash = std::make_shared<SourceHash>(CO.Input);
  auto C = compileGraph(CO);
  if (!C)
    return C.takeError();

  EmitRequest R;
  R.Input = CO.Input;
  R.Output = O.Output;
  R.ProducerVersion = O.ProducerVersion;
  R.Pipeline = CO.Pipeline.label();
  R.Passes = passSummaries(*C->Pipeline);
  R.QuantizePasses = passSummaries(*C->QuantizePasses);
  R.OpsBefore = C->OpsBefore;
  R.OpsAfter = C->OpsAfter;
  R.Quantize = &C->QuantizeResult;
  R.Options = O.TargetOptions;
  R.SourceHash = [Hash] { return Hash->value(); };
  R.SourceHashError = [Hash] { return Hash->error(); };
  std::string Out = O.Output;
  R.VerifyFile = [Out](llvm::StringRef Bytes) {
    return verifyWithRuntime(Bytes, Out);
  };
  return T->Emit(*C->G, R);
}

} // namespace kiln

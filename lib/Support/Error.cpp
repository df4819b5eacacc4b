#include "Support/Error.h"

namespace kiln {

char KilnError::ID = 0;

llvm::Error linesError(ExitCode Code, llvm::StringRef Prefix,
                       llvm::ArrayRef<std::string> Lines) {
  std::string Msg;
  for (const std::string &L : Lines)
    Msg += (Msg.empty() ? "" : "\n") + Prefix.str() + L;
  return llvm::make_error<KilnError>(Code, Msg);
}

llvm::Error addContext(llvm::Error E, llvm::StringRef Context) {
  if (!E)
    return E;
  llvm::Error Result = llvm::Error::success();
  llvm::handleAllErrors(
      std::move(E),
      [&](const KilnError &KE) {
        Result = llvm::joinErrors(
            std::move(Result),
            llvm::make_error<KilnError>(KE.code(),
                                        (Context + ": " + KE.text()).str(),
                                        KE.unsupported()));
      },
      [&](const llvm::ErrorInfoBase &Other) {
        Result = llvm::joinErrors(
            std::move(Result),
            llvm::make_error<KilnError>(ExitCode::BadInput,
                                        (Context + ": " + Other.message()).str()));
      });
  return Result;
}

static int severity(ExitCode C) {
  switch (C) {
  case ExitCode::Success: return 0;
  case ExitCode::BadInput: return 1;
  case ExitCode::GateFailed: return 2;
  case ExitCode::Usage: return 3;
  case ExitCode::Internal: return 4;
  }
  return 4;
}

Diagnosis diagnose(llvm::Error E) {
  Diagnosis D;
  bool AllUnsupported = true;
  auto Add = [&](ExitCode Code, const std::string &Msg,
                 bool Unsupported = false) {
    AllUnsupported &= Unsupported;
    if (severity(Code) > severity(D.Code))
      D.Code = Code;
    if (!D.Message.empty())
      D.Message += '\n';
    D.Message += Msg;
  };
  llvm::handleAllErrors(
      std::move(E),
      [&](const KilnError &KE) {
        Add(KE.code(), KE.text(), KE.unsupported());
      },
      [&](const llvm::ErrorInfoBase &Other) {
        Add(ExitCode::BadInput, Other.message());
      });
  D.Unsupported = D.Code == ExitCode::BadInput && AllUnsupported;
  return D;
}

} // namespace kiln

// kiln-conformance: runs the ONNX backend node suite (../shared/onnx-node-tests)
// through the ONNX importer and the reference interpreter.
//
//   kiln-conformance SUITE [--unsupported FILE] [--core-only] [--filter S]
//                    [--write-unsupported FILE] [--timeout SECONDS]
//
// Every test in SUITE/node and SUITE/simple runs in a forked child (so one
// crashing kernel is one failed test, with a time limit). Tests named in the
// --unsupported list (one per line, `#` comments give the reason) are skipped
// and reported; every other test must pass, and a listed test that passes is
// an error too, so the list stays honest. --core-only runs the tests of
// SUITE/core-tests.txt and ignores the list: all of them must pass.
#include "NodeTest.h"
#include "RunInChild.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

using namespace kiln::conformance;

namespace {

struct Args {
  std::string Suite;
  std::string Unsupported;
  std::string WriteUnsupported;
  std::string Filter;
  bool CoreOnly = false;
  unsigned Timeout = 120;
  Tolerance Tol;
};

/// Names from a list file: one per line, `#` starts a comment.
llvm::StringSet<> readNameList(const std::string &Path, bool &Ok) {
  llvm::StringSet<> Names;
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  Ok = bool(Buf);
  if (!Buf)
    return Names;
  llvm::StringRef Text = (*Buf)->getBuffer();
  while (!Text.empty()) {
    auto [Line, Rest] = Text.split('\n');
    Text = Rest;
    Line = Line.split('#').first.trim();
    if (!Line.empty())
      Names.insert(Line);
  }
  return Names;
}

std::vector<std::string> listTests(const std::string &Dir) {
  std::vector<std::string> Names;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC))
    if (llvm::sys::fs::is_directory(It->path()))
      Names.push_back(llvm::sys::path::filename(It->path()).str());
  std::sort(Names.begin(), Names.end());
  return Names;
}

/// Runs one test in a child process; "" on success, else the reason.
std::string runIsolated(const std::string &Folder, unsigned Timeout,
                        const Tolerance &Tol) {
  kiln::testing::ChildResult R = kiln::testing::runInChild(Timeout, [&] {
    std::string Why = runNodeTest(Folder, Tol);
    return Why.empty() ? std::string("PASS") : Why;
  });
  if (!R.Failure.empty())
    return R.Failure;
  if (R.Output == "PASS")
    return "";
  return R.Output.empty() ? "the test process exited without a result"
                          : R.Output;
}

bool parseArgs(int Argc, char **Argv, Args &A) {
  for (int I = 1; I < Argc; ++I) {
    std::string S = Argv[I];
    auto Next = [&]() -> std::string { return I + 1 < Argc ? Argv[++I] : ""; };
    if (S == "--unsupported")
      A.Unsupported = Next();
    else if (S == "--write-unsupported")
      A.WriteUnsupported = Next();
    else if (S == "--filter")
      A.Filter = Next();
    else if (S == "--timeout")
      A.Timeout = unsigned(std::max(1, std::atoi(Next().c_str())));
    else if (S == "--core-only")
      A.CoreOnly = true;

    else if (!S.empty() && S[0] != '-' && A.Suite.empty())
      A.Suite = S;
    else
      return false;
  }
  return !A.Suite.empty();
}

} // namespace

int main(int Argc, char **Argv) {
  Args A;
  if (!parseArgs(Argc, Argv, A)) {
    llvm::errs() << "usage: kiln-conformance SUITE [--unsupported FILE] "
                    "[--core-only] [--filter S] [--write-unsupported FILE] "
                    "[--timeout SECONDS]\n";
    return 2;
  }
  if (!llvm::sys::fs::is_directory(A.Suite + "/node")) {
    llvm::errs() << "kiln-conformance: " << A.Suite
                 << "/node not found; skipping\n";
    return 77; // ctest SKIP_RETURN_CODE
  }
  bool Ok = true;
  llvm::StringSet<> Core = readNameList(A.Suite + "/core-tests.txt", Ok);
  llvm::StringSet<> Unsupported;
  if (!A.Unsupported.empty() && !A.CoreOnly) {
    Unsupported = readNameList(A.Unsupported, Ok);
    if (!Ok) {
      llvm::errs() << "kiln-conformance: cannot read " << A.Unsupported << '\n';
      return 2;
    }
  }

  // (list name, folder): node tests by name, simple models as simple/NAME.
  std::vector<std::pair<std::string, std::string>> Tests;
  for (const std::string &T : listTests(A.Suite + "/node"))
    Tests.push_back({T, A.Suite + "/node/" + T});
  size_t NumNode = Tests.size();
  if (!A.CoreOnly)
    for (const std::string &T : listTests(A.Suite + "/simple"))
      Tests.push_back({"simple/" + T, A.Suite + "/simple/" + T});

  unsigned Passed = 0, Failed = 0, Skipped = 0, UnexpectedPass = 0;
  unsigned CorePassed = 0, CoreTotal = 0, NodePassed = 0, NodeRun = 0;
  std::map<std::string, std::string> FailReasons;
  for (size_t I = 0; I < Tests.size(); ++I) {
    const auto &[Name, Folder] = Tests[I];
    bool IsCore = Core.count(Name) != 0;
    if (A.CoreOnly && !IsCore)
      continue;
    if (!A.Filter.empty() && Name.find(A.Filter) == std::string::npos)
      continue;
    CoreTotal += IsCore;
    bool IsNode = !llvm::StringRef(Name).startswith("simple/");
    NodeRun += IsNode;
    std::string Why = runIsolated(Folder, A.Timeout, A.Tol);
    bool Listed = Unsupported.count(Name) != 0;
    if (Why.empty()) {
      CorePassed += IsCore;
      NodePassed += IsNode;
      if (Listed) {
        ++UnexpectedPass;
        llvm::outs() << "UNEXPECTED PASS " << Name
                     << " (listed as unsupported: remove it from the list)\n";
      } else {
        ++Passed;
      }
    } else if (Listed) {
      ++Skipped;
      llvm::outs() << "SKIP " << Name << " (unsupported): " << Why << '\n';
    } else {
      ++Failed;
      FailReasons[Name] = Why;
      llvm::outs() << "FAIL " << Name << ": " << Why << '\n';
    }
  }

  unsigned Total = unsigned(A.CoreOnly ? CoreTotal : Tests.size());
  llvm::outs() << Passed << " passed, " << Failed << " failed, " << Skipped
               << " skipped (unsupported)";
  if (UnexpectedPass)
    llvm::outs() << ", " << UnexpectedPass << " unexpectedly passed";
  llvm::outs() << " of " << Total << " (" << NumNode << " node tests"
               << (A.CoreOnly ? "" : " + simple models") << ")\n";
  llvm::outs() << "core: " << CorePassed << " of " << Core.size()
               << " core tests pass\n";
  if (!A.CoreOnly && A.Filter.empty())
    llvm::outs() << "node: " << NodePassed << " of " << NodeRun
                 << " node tests pass; simple: " << (Passed + UnexpectedPass - NodePassed)
                 << " of " << (Tests.size() - NodeRun) << " models\n";

  if (!A.WriteUnsupported.empty()) {
    std::error_code EC;
    llvm::raw_fd_ostream OS(A.WriteUnsupported, EC);
    if (EC) {
      llvm::errs() << "kiln-conformance: cannot write " << A.WriteUnsupported
                   << '\n';
      return 2;
    }
    OS << "# ONNX node tests kiln does not pass yet, one per line; the "
          "comment says why.\n# Regenerate with kiln-conformance SUITE "
          "--write-unsupported FILE.\n";
    for (const auto &[Name, Why] : FailReasons) {
      std::string Short = Why.substr(0, 160);
      std::replace(Short.begin(), Short.end(), '\n', ' ');
      OS << Name << "  # " << Short << '\n';
    }
  }
  return Failed == 0 && UnexpectedPass == 0 ? 0 : 1;
}

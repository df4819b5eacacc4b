#include "passes/PassManager.h"

#include "IR/Printer.h"
#include "IR/Verifier.h"
#include "Support/Error.h"
#include "Support/Logging.h"

#include <algorithm>

namespace kiln {

bool verifyEachByDefault() {
#ifdef NDEBUG
  return false;
#else
  return true;
#endif
}

llvm::Error PassManager::add(llvm::StringRef Name) {
  if (!findPass(Name)) {
    std::string Known;
    for (const PassInfo &P : allPasses())
      Known += (Known.empty() ? "" : ", ") + std::string(P.Name);
    return usageError("unknown pass '{0}' (known passes: {1})", Name, Known);
  }
  Names.push_back(Name.str());
  return llvm::Error::success();
}

llvm::Error PassManager::run(Graph &G) {
  for (const std::string &Name : Names)
    if (llvm::Error E = runOne(Name, G))
      return E;
  return llvm::Error::success();
}

llvm::Error PassManager::runPass(llvm::StringRef Name, Graph &G) {
  if (!findPass(Name))
    return usageError("unknown pass '{0}'", Name);
  return runOne(Name.str(), G);
}

llvm::Error PassManager::runOne(const std::string &Name, Graph &G) {
  llvm::raw_ostream &Out = Opts.PrintStream ? *Opts.PrintStream : llvm::errs();
  const PassInfo *Info = findPass(Name);
  std::unique_ptr<Pass> P = Info->Create();
  PassRunRecord Rec;
  Rec.Name = Name;
  auto Changed = P->run(G, Rec.Stats);
  if (!Changed)
    return addContext(Changed.takeError(), "pass '" + Name + "'");
  Rec.Changed = *Changed;
  KILN_DEBUG(Name, "{}: {}", Name, Rec.Changed ? "changed" : "no change");
  if (Opts.VerifyEach)
    if (llvm::Error E = verifyGraph(G))
      return internalError("the graph is invalid after pass '{0}':\n{1}",
                           Name, toString(std::move(E)));
  if (Opts.PrintAfterAll ||
      std::find(Opts.PrintAfter.begin(), Opts.PrintAfter.end(), Name) !=
          Opts.PrintAfter.end()) {
    Out << "// -----// IR after " << Name << " //----- //\n";
    printGraph(G, Out);
  }
  Records.push_back(std::move(Rec));
  return llvm::Error::success();
}

} // namespace kiln

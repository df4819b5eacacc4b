#include "passes/Pass.h"

namespace kiln {

#define PASS(NAME, CLASS, DESC) std::unique_ptr<Pass> create##CLASS();
#include "passes/Passes.def"

llvm::ArrayRef<PassInfo> allPasses() {
  static const PassInfo Infos[] = {
#define PASS(NAME, CLASS, DESC) {NAME, DESC, &create##CLASS},
#include "passes/Passes.def"
  };
  return Infos;
}

const PassInfo *findPass(llvm::StringRef Name) {
  for (const PassInfo &P : allPasses())
    if (Name == P.Name)
      return &P;
  return nullptr;
}

} // namespace kiln

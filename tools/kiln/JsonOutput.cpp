#include "Command.h"

#include "llvm/Support/raw_ostream.h"

namespace kiln {

void printJson(const llvm::json::Value &V) {
  llvm::outs() << llvm::formatv("{0:2}", V) << '\n';
  llvm::outs().flush();
}

} // namespace kiln

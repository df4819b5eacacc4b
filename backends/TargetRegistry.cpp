// The registry behind backends/Target.h: the entries of Targets.def, in
// order, built once.
#include "backends/Target.h"

#include "Support/Error.h"

#include "llvm/ADT/StringExtras.h"

namespace kiln {

#define TARGET(Id, Entry) Target Entry();
#include "backends/Targets.def"

llvm::StringRef targetStatusName(TargetStatus S) {
  switch (S) {
  case TargetStatus::Works:
    return "works";
  case TargetStatus::Planned:
    return "planned";
  }
  return "unknown";
}

llvm::ArrayRef<Target> allTargets() {
  static const std::vector<Target> Targets = {
#define TARGET(Id, Entry) Entry(),
#include "backends/Targets.def"
  };
  return Targets;
}

const Target *findTarget(llvm::StringRef Name) {
  for (const Target &T : allTargets())
    if (Name == T.Name)
      return &T;
  return nullptr;
}

const Target *findTargetOfFile(int FileTarget) {
  constexpr int Unknown = 0, Cpu = 1; // schema Target values
  if (FileTarget == Unknown)
    FileTarget = Cpu;
  for (const Target &T : allTargets())
    if (T.FileTarget == FileTarget)
      return &T;
  return nullptr;
}

llvm::Error unknownTargetError(llvm::StringRef Name) {
  std::vector<std::string> Known;
  for (const Target &T : allTargets())
    Known.push_back(T.Name);
  return usageError("--target {0}: unknown target; kiln builds for: {1}", Name,
                    llvm::join(Known, ", "));
}

} // namespace kiln

#include "Support/Json.h"

#include "Support/Error.h"

namespace kiln {

bool jsonNestingWithin(llvm::StringRef Text, int Limit) {
  int Depth = 0;
  bool InString = false;
  for (size_t I = 0; I < Text.size(); ++I) {
    char C = Text[I];
    if (InString) {
      if (C == '\\')
        ++I;
      else if (C == '"')
        InString = false;
    } else if (C == '"') {
      InString = true;
    } else if (C == '[' || C == '{') {
      if (++Depth > Limit)
        return false;
    } else if (C == ']' || C == '}') {
      --Depth;
    }
  }
  return true;
}

llvm::Expected<llvm::json::Value>
parseJsonFile(llvm::StringRef Text, llvm::StringRef Path, int MaxDepth) {
  if (!jsonNestingWithin(Text, MaxDepth))
    return inputError("{0}: not valid JSON here: it nests deeper than {1}",
                      Path, MaxDepth);
  auto V = llvm::json::parse(Text);
  if (!V)
    return inputError("{0}: not valid JSON: {1}", Path,
                      llvm::toString(V.takeError()));
  return V;
}

} // namespace kiln

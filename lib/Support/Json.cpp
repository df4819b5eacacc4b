#include "Support/Json.h"

#include "Support/Error.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

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

namespace {

void nullNonFinite(llvm::json::Value &V) {
  if (llvm::json::Object *O = V.getAsObject()) {
    for (auto &KV : *O)
      nullNonFinite(KV.second);
  } else if (llvm::json::Array *A = V.getAsArray()) {
    for (llvm::json::Value &E : *A)
      nullNonFinite(E);
  } else if (auto D = V.getAsNumber(); D && !std::isfinite(*D)) {
    V = nullptr;
  }
}

} // namespace

std::string formatJson(llvm::json::Value V) {
  nullNonFinite(V);
  return llvm::formatv("{0:2}", V).str();
}

} // namespace kiln

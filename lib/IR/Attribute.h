// Node attributes. Every attribute is checked against its op's schema, so a
// pass can read one with a plain getter and never sees a wrong kind.
#pragma once

#include "IR/Tensor.h"

#include "llvm/ADT/StringRef.h"

#include <map>
#include <string>
#include <variant>
#include <vector>

namespace kiln {

enum class AttrKind { Int, Float, String, Ints, Floats, Strings, Tensor };

llvm::StringRef attrKindName(AttrKind K);

using AttrValue = std::variant<int64_t, double, std::string, std::vector<int64_t>,
                               std::vector<double>, std::vector<std::string>,
                               Tensor>;

AttrKind kindOf(const AttrValue &V);
bool attrEquals(const AttrValue &A, const AttrValue &B);

/// Attributes of one node, ordered by name so iteration is deterministic.
using AttrMap = std::map<std::string, AttrValue, std::less<>>;

} // namespace kiln

// JSON from files kiln did not necessarily write (a pass record, kiln
// build's lock and stamps, a gate's report, a preprocessing config):
// llvm::json::parse recurses once per nesting level, so a file of a few
// hundred thousand '[' would overflow the stack. Nesting is counted first.
#pragma once

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

namespace kiln {

/// Whether no array or object in Text (strings skipped) nests deeper than
/// Limit. A linear scan; it does not check that Text is JSON.
bool jsonNestingWithin(llvm::StringRef Text, int Limit);

/// llvm::json::parse, after refusing Text nested deeper than MaxDepth.
/// Errors (bad input) name Path.
llvm::Expected<llvm::json::Value> parseJsonFile(llvm::StringRef Text,
                                                llvm::StringRef Path,
                                                int MaxDepth = 32);

/// V as indented JSON text (two spaces), with every NaN or infinite number
/// written as null: llvm::json prints them as nan and inf, which no JSON
/// reader takes. Writers that mean something by an infinity (an SQNR of
/// two equal tensors) put a string there first.
std::string formatJson(llvm::json::Value V);

} // namespace kiln

// Publishing a .kir and its weights sidecar as one unit.
#pragma once

#include "IR/Printer.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace kiln {

/// Writes Out (a .kir whose graph text is Text) and Sidecar, the weights its
/// blobs point into, so that other kiln writers and later readers always
/// find a loadable pair (a reader that opened the old .kir while a writer
/// replaced it may find the old sidecar gone: readers take no lock):
/// - the sidecar is named after its content (OUT.weights-HASH) and written
///   first, so writing it replaces nothing an existing .kir reads;
/// - the .kir, whose first line names the sidecar, is renamed over Out last
///   and commits the pair (an interruption leaves the old pair or the new);
/// - the writers of one folder take turns (an flock on the folder) from the
///   sidecar's write to the clean-up, so a writer never removes the sidecar
///   another has just published;
/// - the clean-up removes Out's old sidecars, but never one that a .kir in
///   the folder names (a copy of the .kir under another name still loads).
llvm::Error writeKirPair(llvm::StringRef Out, llvm::StringRef Text,
                         const WeightsSidecar &Sidecar);

} // namespace kiln

// The targets a .kiln file may name (fb::Target) and the ones this runtime
// build runs: the loader rejects a file for any other, naming both, before
// anything else reads it.
#pragma once

#include "Status.h"

#include <schema/kiln_generated.h>

#include <string>

namespace kiln::rt {

/// "cpu", "vulkan", ... ("unknown" outside the enum).
const char *targetName(fb::Target T);

/// Whether this build has an executor for T.
bool runtimeRuns(fb::Target T);

/// The target M is compiled for: its Model.target, or CPU for files before
/// schema 1.4 (all CPU files, written without one). Fails for a target this
/// runtime does not run, for a 1.4 file without a target, and for a payload
/// that belongs to another target.
Status resolveTarget(const fb::Model &M, fb::Target &Out);

} // namespace kiln::rt

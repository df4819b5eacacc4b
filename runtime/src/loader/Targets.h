// The targets a .kiln file may name (fb::Target), the ones every loader
// verifies (CPU, Vulkan, NNAPI and Metal: `kiln inspect` reads a Vulkan or
// Metal file on a CPU-only build) and the ones this runtime build runs: the loader rejects a file for
// a target it cannot verify, naming the targets it runs, before anything else
// reads it; creating a session for a target the build has no executor for
// fails (session/Executors.cpp).
#pragma once

#include "Status.h"

#include <schema/kiln_generated.h>

#include <string>

namespace kiln::rt {

/// "cpu", "vulkan", ... ("unknown" outside the enum).
const char *targetName(fb::Target T);

/// Whether this build has an executor for T (Vulkan: KILN_WITH_VULKAN,
/// NNAPI: KILN_WITH_NNAPI, Metal: KILN_WITH_METAL, Apple only).
bool runtimeRuns(fb::Target T);

/// Whether the loader checks T's files completely, in every build.
bool loaderVerifies(fb::Target T);

/// The target M is compiled for: its Model.target, or CPU for files before
/// schema 1.4 (all CPU files, written without one). Fails for a target this
/// loader does not verify, for a 1.4 file without a target, and for a payload
/// that belongs to another target.
Status resolveTarget(const fb::Model &M, fb::Target &Out);

} // namespace kiln::rt

// What the loader needs to know of a target, and nothing else: the payload
// its files carry, what its files may hold, and the check of that payload.
// Each target's entry (runtime/src/<target>/<Target>Target.cpp) fills one
// in its RuntimeTarget (target/RuntimeTarget.h); the registry
// (target/RuntimeTargets.cpp) hands the loader the table, so that the loader
// names no target.
#pragma once

#include "Status.h"

#include <schema/kiln_generated.h>

#include <string>
#include <vector>

namespace kiln::rt {

struct LoadedModel;

struct TargetRules {
  fb::Target Value = fb::Target::UNKNOWN;
  /// "cpu", "vulkan", ...: what messages and kiln_model_target say.
  const char *Name = "unknown";
  /// The payload its files carry (Model.payload, schema 1.4).
  fb::TargetPayload Payload = fb::TargetPayload::NONE;
  /// The payload runs, not the operators: they describe the graph for tools
  /// and get the structural checks only; the payload's verifier checks what
  /// runs (NNAPI's host steps included).
  bool PayloadRuns = false;
  /// Its files may hold the GPU layouts (C4 activations, PACKED constants).
  bool GpuLayouts = false;
  /// Its files may be batch-polymorphic (symbolic dims, schema 1.9).
  bool Polymorphic = false;
  /// Its files have no operators of their own: parts compute the graph
  /// outputs, which the payload's verifier checks (a partitioned file).
  bool PartsCompute = false;
  /// Checks the payload once the tensors, the graph and the operators are
  /// checked, and may keep what it learned in LM.Payload. Null: none.
  Status (*VerifyPayload)(const fb::Model &M, LoadedModel &LM) = nullptr;
};

/// The targets a loader verifies (every known one, in every build) and the
/// names of those this build runs, for messages ("cpu, vulkan").
struct TargetCatalog {
  std::vector<const TargetRules *> Targets;
  std::string Runnable;

  const TargetRules *find(fb::Target T) const {
    for (const TargetRules *R : Targets)
      if (R->Value == T)
        return R;
    return nullptr;
  }
};

} // namespace kiln::rt

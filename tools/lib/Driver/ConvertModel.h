// `kiln convert` as a library call: the target is looked up in the registry
// (backends/Target.h), the model goes through compileGraph, and the target
// lowers and writes it. The driver adds what no target should own: the
// source model's hash, computed on another thread while the model is
// compiled, and the kiln runtime's verifier, which every .kiln must pass
// before it replaces the output.
#pragma once

#include "Driver/CompileGraph.h"
#include "Driver/SelfTestBuild.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kiln {

struct ConvertModelOptions {
  CompileGraphOptions Compile;
  std::string Output;
  std::string TargetName = "cpu";
  std::string ProducerVersion;
  /// Target-specific knobs (EmitRequest::Options).
  std::map<std::string, std::string> TargetOptions;
  /// --fallback: "none" (a node the target cannot run refuses the model)
  /// or "cpu" (partitions, Placement.h).
  std::string Fallback = "none";
  /// --on-cpu globs over op kinds and node names; they need --fallback
  /// cpu.
  std::vector<std::string> OnCpu;
  /// --max-partitions (0: no gate).
  unsigned MaxPartitions = 0;
  /// --source-of: the model Compile.Input (a .kir) was imported from,
  /// recorded as the file's source (its name and hash), so that kiln
  /// build's one import per model gives the bytes a conversion of the
  /// original gives.
  std::string SourceOf;
  /// --placement: "costed" (default) or "greedy" (PlacementOptions::Costed).
  std::string Placement = "costed";
  /// --self-test and its sample and tolerance (SelfTestBuild.h).
  SelfTestFlags SelfTest;
};

/// Usage error (naming the known targets) for an unknown target; the
/// target's errors otherwise (every unsupported node in one message).
llvm::Expected<std::unique_ptr<TargetReport>>
convertModel(const ConvertModelOptions &O);

} // namespace kiln

#include "Driver/PipelineFlags.h"

#include "Support/Error.h"

#include <algorithm>

namespace kiln {

std::string PipelineFlags::label() const {
  return Disabled.empty() ? "-O" + std::to_string(level()) : "custom";
}

void addOptLevelFlag(CLI::App &Sub, PipelineFlags &F, const std::string &Help) {
  Sub.add_option("-O", F.OptLevel, Help)->check(CLI::Range(0, 2));
}

void addPassesFlag(CLI::App &Sub, PipelineFlags &F, const std::string &Help) {
  Sub.add_option("--passes", F.Passes, Help)
      ->allow_extra_args(false)
      ->delimiter(',');
}

void addDisablePassFlag(CLI::App &Sub, PipelineFlags &F) {
  Sub.add_option("--disable-pass", F.Disabled, "skip this pass (repeatable)")
      ->allow_extra_args(false);
}

llvm::Expected<std::unique_ptr<PassManager>>
buildPassManager(const PipelineFlags &F, const Target &T,
                 PassManagerOptions Opts,
                 const std::map<std::string, std::string> &TargetOptions) {
  if (F.OptLevel >= 0 && !F.Passes.empty())
    return usageError("give either -O<level> or --passes, not both");
  for (const std::string &D : F.Disabled)
    if (!findPass(D))
      return usageError("--disable-pass: unknown pass '{0}'", D);
  auto PM = std::make_unique<PassManager>(std::move(Opts));
  std::vector<std::string> Names =
      F.Passes.empty() ? T.Pipeline(F.level()) : F.Passes;
  std::vector<std::string> Skip = F.Disabled;
  if (F.Passes.empty() && T.PassesNotNeeded)
    for (const std::string &P : T.PassesNotNeeded(TargetOptions))
      Skip.push_back(P);
  std::map<std::string, std::string> Variants;
  if (F.Passes.empty() && T.PassVariants)
    Variants = T.PassVariants(TargetOptions);
  for (const std::string &Name : Names) {
    auto V = Variants.find(Name);
    const std::string &Run = V == Variants.end() ? Name : V->second;
    // --disable-pass names either the pass or the variant that runs.
    if (std::find(Skip.begin(), Skip.end(), Name) == Skip.end() &&
        std::find(Skip.begin(), Skip.end(), Run) == Skip.end())
      if (llvm::Error E = PM->add(Run))
        return E;
  }
  return PM;
}

void nameAsVariants(std::vector<PassSummary> &Passes, const Target &T,
                    const std::map<std::string, std::string> &TargetOptions) {
  if (!T.PassVariants)
    return;
  std::map<std::string, std::string> Variants = T.PassVariants(TargetOptions);
  for (PassSummary &P : Passes) {
    auto V = Variants.find(P.Name);
    if (V != Variants.end() && !P.Changed)
      P.Name = V->second;
  }
}

} // namespace kiln

#include "target/RuntimeTargets.h"

namespace kiln::rt {

#define KILN_RUNTIME_TARGET(Folder, Entry) const RuntimeTarget &Entry();
#include "Targets.def"

namespace {

const TargetCatalog &catalog() {
  static const TargetCatalog Catalog = [] {
    TargetCatalog C;
    for (const RuntimeTarget *T : runtimeTargets()) {
      C.Targets.push_back(&T->Loader);
      if (T->CreateExecutor)
        C.Runnable += (C.Runnable.empty() ? "" : ", ") +
                      std::string(T->Loader.Name);
    }
    return C;
  }();
  return Catalog;
}

} // namespace

const std::vector<const RuntimeTarget *> &runtimeTargets() {
  static const std::vector<const RuntimeTarget *> Targets = {
#define KILN_RUNTIME_TARGET(Folder, Entry) &Entry(),
#include "Targets.def"
  };
  return Targets;
}

const RuntimeTarget *findRuntimeTarget(fb::Target T) {
  for (const RuntimeTarget *R : runtimeTargets())
    if (R->Loader.Value == T)
      return R;
  return nullptr;
}

const char *targetName(fb::Target T) {
  const RuntimeTarget *R = findRuntimeTarget(T);
  return R ? R->Loader.Name : "unknown";
}

Status loadVerifiedModel(std::shared_ptr<ModelBytes> Bytes,
                         std::shared_ptr<const LoadedModel> &Out) {
  return verifyModel(catalog(), std::move(Bytes), nullptr, Out);
}

Status specializeModel(const LoadedModel &Model,
                       const std::vector<int64_t> &Sizes,
                       std::shared_ptr<const LoadedModel> &Out) {
  for (size_t K = 0; K < Sizes.size() && K < Model.Symbols.size(); ++K)
    if (Sizes[K] < 1)
      return invalidArgument("symbol '", Model.Symbols[K], "' = ", Sizes[K],
                             " (sizes are at least 1)");
  Status S = verifyModel(catalog(), Model.Bytes, &Sizes, Out);
  if (S.code() == KILN_ERROR_INVALID_MODEL) // the file loaded at size 1
    return invalidArgument(S.message());
  return S;
}

Status createExecutor(std::shared_ptr<const LoadedModel> Model,
                      const SessionOptions &Opts, std::unique_ptr<Executor> &Out,
                      Executor *Previous) {
  const RuntimeTarget *T = findRuntimeTarget(Model->Target);
  if (!T) // the loader admits only the registry's targets
    return unsupported("no executor for target ", unsigned(Model->Target));
  if (!T->CreateExecutor) // the loader verifies every target's files
    return unsupported("the file is for the ", T->Loader.Name,
                       " target, and this runtime was built without ",
                       T->BuildOption ? T->BuildOption : "it");
  return T->CreateExecutor(std::move(Model), Opts, Out, Previous);
}

Status readTargetOptions(const kiln_session_options &C, SessionOptions &Opts) {
  for (const RuntimeTarget *T : runtimeTargets())
    if (T->ReadOptions)
      if (Status S = T->ReadOptions(C, Opts))
        return S;
  return Status::ok();
}

} // namespace kiln::rt

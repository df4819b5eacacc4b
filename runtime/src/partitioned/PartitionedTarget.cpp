// The partitioned target's entry in the runtime's registry (Targets.def):
// files of schema 1.13 whose parts are files of the other targets
// (kiln convert --fallback cpu). The verifier is in every build; a session
// needs each part's own executor, which the registry makes.
#include "partitioned/PartitionedExecutor.h"
#include "target/RuntimeTarget.h"

namespace kiln::rt {

const RuntimeTarget &partitionedRuntimeTarget() {
  static const RuntimeTarget Entry = [] {
    RuntimeTarget T;
    T.Loader.Value = fb::Target::PARTITIONED;
    T.Loader.Name = "partitioned";
    T.Loader.Payload = fb::TargetPayload::PartitionedPayload;
    T.Loader.PartsCompute = true;
    T.Loader.VerifyPayload = verifyPartitionedPayload;
    T.CreateExecutor = createExecutorOf<PartitionedExecutor>;
    return T;
  }();
  return Entry;
}

} // namespace kiln::rt

#include "gpu/GpuReadbackPlan.h"

#include <algorithm>
#include <map>

namespace kiln::rt {

std::vector<PlannedRead>
planGpuReadback(const LoadedModel &Model, const GpuPlaces *Places,
                const GpuBuffers *Buffers,
                const std::vector<int32_t> &DispatchOperators,
                const std::function<bool(size_t Tensor)> &Skip) {
  std::vector<PlannedRead> Plan;
  if (!Places || !Buffers)
    return Plan;
  std::map<size_t, const fb::VulkanTensorPlace *> PlaceOf;
  for (const fb::VulkanTensorPlace *Pl : *Places)
    PlaceOf.emplace(size_t(Pl->tensor()), Pl);
  // When each operator's outputs are complete: after its last dispatch; an
  // operator with none after the last dispatch before it, since its bytes
  // are its input's, which are not overwritten before every reader of the
  // alias has run.
  size_t NumOps = Model.numOperators();
  std::vector<int64_t> LastOf(NumOps, -1);
  for (size_t D = 0; D < DispatchOperators.size(); ++D)
    if (int32_t Op = DispatchOperators[D]; Op >= 0 && size_t(Op) < NumOps)
      LastOf[size_t(Op)] = int64_t(D);
  std::vector<char> Planned(Model.Tensors.size(), 0);
  int64_t Ready = -1;
  for (size_t Op = 0; Op < NumOps; ++Op) {
    Ready = std::max(Ready, LastOf[Op]);
    const auto *Outs = Model.op(Op).outputs();
    if (!Outs)
      continue;
    for (int32_t T : *Outs) {
      auto It = PlaceOf.find(size_t(T));
      if (It == PlaceOf.end() || Skip(size_t(T)) || Planned[size_t(T)] ||
          It->second->buffer() >= Buffers->size())
        continue;
      Planned[size_t(T)] = 1;
      const fb::VulkanTensorPlace *Pl = It->second;
      bool Arena =
          Buffers->Get(Pl->buffer())->kind() == fb::VulkanBufferKind::ARENA;
      Plan.push_back({size_t(T), Pl, Arena, Ready});
    }
  }
  return Plan;
}

} // namespace kiln::rt

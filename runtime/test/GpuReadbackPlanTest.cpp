// The GPU targets' keep_intermediates plan (gpu/GpuReadbackPlan.h) on a
// payload without places or buffers: both are optional in the schema, and
// the plan is empty rather than a read through a null list. The plan on
// real payloads is checked end to end by the Vulkan executor's
// keep_intermediates tests (unit-vulkan, lit vulkan/diff.test).
#include "gpu/GpuReadbackPlan.h"

#include <catch2/catch.hpp>

using namespace kiln::rt;

TEST_CASE("a GPU payload without places or buffers plans no readback",
          "[gpu][readback]") {
  LoadedModel Model; // never read: nothing to plan
  auto Never = [](size_t) { return false; };
  CHECK(planGpuReadback(Model, nullptr, nullptr, {}, Never).empty());
  CHECK(planGpuReadback(Model, nullptr, nullptr, {0, 1, -1}, Never).empty());
}

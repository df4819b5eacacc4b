// The pass pipelines for each -O level.
#pragma once

#include <string>
#include <vector>

namespace kiln {

/// Pass names for -O0, -O1 or -O2 (the default), in order.
std::vector<std::string> pipelineForLevel(int OptLevel);

} // namespace kiln

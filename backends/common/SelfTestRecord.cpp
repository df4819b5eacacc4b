#include "backends/common/SelfTestRecord.h"

#include "backends/common/KilnModule.h"

#include <cstring>

namespace kiln {

void attachSelfTest(KilnModule &M, const SelfTestRecord &R) {
  auto T = std::make_unique<fb::SelfTestT>();
  for (const Buffer &In : R.Inputs)
    T->inputs.push_back(M.addSegment(Segment(In)));
  for (const SelfTestRecord::Output &Out : R.Outputs) {
    std::vector<uint8_t> Bytes(Out.Reference.size() * sizeof(float));
    if (!Bytes.empty())
      std::memcpy(Bytes.data(), Out.Reference.data(), Bytes.size());
    auto O = std::make_unique<fb::SelfTestOutputT>();
    O->reference = M.addSegment(Segment(Buffer::own(std::move(Bytes))));
    O->stride = Out.Stride;
    O->tolerance = Out.Tolerance;
    O->peak = Out.Peak;
    T->outputs.push_back(std::move(O));
  }
  T->reference = R.Description;
  M.Model.self_test = std::move(T);
}

} // namespace kiln

#include "loader/SelfTestCheck.h"

#include "loader/LoadedModel.h"

#include <cmath>

namespace kiln::rt {

namespace {

/// Buffer Index's size, or an error naming What.
Status segmentBytes(const fb::Model &M, int32_t Index, const std::string &What,
                    uint64_t &Out) {
  unsigned NumBuffers = M.buffers() ? M.buffers()->size() : 0;
  if (Index < 0 || unsigned(Index) >= NumBuffers)
    return invalidModel("self-test: ", What, " names buffer ", Index, " of ",
                        NumBuffers);
  Out = M.buffers()->Get(unsigned(Index))->size();
  return Status::ok();
}

bool finiteNonNegative(float V) { return std::isfinite(V) && V >= 0; }

} // namespace

Status checkSelfTest(const LoadedModel &LM) {
  const fb::SelfTest *T = LM.Root->self_test();
  if (!T)
    return Status::ok();
  if (LM.isPolymorphic())
    return invalidModel("self-test: a batch-polymorphic file carries none "
                        "(its samples have one size)");
  size_t NumIn = T->inputs() ? T->inputs()->size() : 0;
  size_t NumOut = T->outputs() ? T->outputs()->size() : 0;
  if (NumIn != LM.Inputs.size() || NumOut != LM.Outputs.size())
    return invalidModel("self-test: ", NumIn, " samples and ", NumOut,
                        " references for a model of ", LM.Inputs.size(),
                        " inputs and ", LM.Outputs.size(), " outputs");
  for (size_t I = 0; I < NumIn; ++I) {
    const TensorDesc &In = LM.Tensors[size_t(LM.Inputs[I])];
    std::string What = concat("the sample of input ", I, " '", In.Name, "'");
    uint64_t Bytes = 0;
    if (Status S = segmentBytes(*LM.Root, T->inputs()->Get(unsigned(I)), What,
                                Bytes))
      return S;
    if (Bytes != In.Bytes)
      return invalidModel("self-test: ", What, " has ", Bytes,
                          " bytes; the input has ", In.Bytes);
  }
  for (size_t I = 0; I < NumOut; ++I) {
    const TensorDesc &Out = LM.Tensors[size_t(LM.Outputs[I])];
    const fb::SelfTestOutput *R = T->outputs()->Get(unsigned(I));
    std::string What =
        concat("the reference of output ", I, " '", Out.Name, "'");
    if (R->stride() == 0)
      return invalidModel("self-test: ", What, " has stride 0");
    uint64_t Bytes = 0;
    if (Status S = segmentBytes(*LM.Root, R->reference(), What, Bytes))
      return S;
    // ceil(elements / stride) floats, without the overflow of
    // elements + stride - 1 for a stride near 2^64.
    uint64_t Want =
        Out.Elements ? ((Out.Elements - 1) / R->stride() + 1) * 4 : 0;
    if (Bytes != Want)
      return invalidModel("self-test: ", What, " has ", Bytes,
                          " bytes; every ", R->stride(), " of ", Out.Elements,
                          " elements as floats is ", Want);
    if (!finiteNonNegative(R->tolerance()) || !finiteNonNegative(R->peak()))
      return invalidModel("self-test: ", What, " has tolerance ",
                          R->tolerance(), " and peak ", R->peak(),
                          " (each must be finite and >= 0)");
  }
  return Status::ok();
}

} // namespace kiln::rt

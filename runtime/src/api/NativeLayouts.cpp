#include "kiln/native_layouts.h"

#include "cpu/CpuExecutor.h"
#include "loader/ModelBytes.h"
#include "target/RuntimeTargets.h"

namespace kiln::runtime {

bool nativeWeightLayouts(const void *Data, size_t Size,
                         std::vector<NativeWeight> &Out, std::string &Error) {
  std::shared_ptr<const rt::LoadedModel> Model;
  if (rt::Status S =
          rt::loadVerifiedModel(rt::ModelBytes::borrow(Data, Size), Model)) {
    Error = "the runtime rejects the compiled model: " + S.message();
    return false;
  }
  rt::SessionOptions Opts;
  Opts.Threads = 1; // the sessions that run oneDNN
  Opts.Cpu.LayoutOnly = true;
  std::unique_ptr<rt::CpuExecutor> Cpu;
  if (rt::Status S = rt::CpuExecutor::create(Model, Opts, Cpu)) {
    Error = "cannot create a session: " + S.message();
    return false;
  }
  Out.clear();
  for (auto &[Index, Packed] : Cpu->packedWeights()) {
    NativeWeight W;
    W.Tensor = Index;
    W.Layout = {Packed.Layout.Library, Packed.Layout.Isa,
                Packed.Layout.Order,   Packed.Layout.Padded,
                Packed.Layout.Strides, Packed.Layout.InnerBlocks,
                Packed.Layout.InnerDims};
    W.Bytes = Packed.Bytes;
    W.Pack = std::move(Packed.Pack);
    Out.push_back(std::move(W));
  }
  return true;
}

} // namespace kiln::runtime

// Reference pixels_to_tensor (lib/IR/ops/ImageOps.cpp): each pixel read
// through numerics/PixelFormats.h, as the runtime's kernel reads it.
#include "Interpreter/Kernel.h"
#include "Interpreter/kernels/NNKernels.h"

#include "numerics/PixelFormats.h"

namespace kiln {

namespace {

llvm::Error pixelsToTensorKernel(KernelContext &Ctx) {
  const Node &N = Ctx.N;
  using numerics::PixelFormat;
  PixelFormat F = numerics::parsePixelFormat(N.getString("format"));
  int64_t Channels = N.getInt("channels");
  bool Bgr = N.getString("channel_order") == "bgr";
  const std::vector<double> &Mean = N.getFloats("mean"),
                            &Scale = N.getFloats("scale");
  std::vector<int64_t> In = sizesOf(*Ctx.input(0));
  int64_t Batch = In[0], Rows = In[1], Width = In[2];
  int64_t Height = F == PixelFormat::Nv21 ? Rows / 3 * 2 : Rows;
  int64_t Stride = Width * numerics::pixelBytes(F);
  Tensor Out = makeTensor(ElementType::F32, {Batch, Channels, Height, Width});
  const uint8_t *X = dataAs<uint8_t>(*Ctx.input(0));
  float *Y = mutableData<float>(Out);
  auto perChannel = [](const std::vector<double> &V, int64_t C) {
    return float(V.size() == 1 ? V[0] : V[size_t(C)]);
  };
  for (int64_t B = 0; B < Batch; ++B) {
    const uint8_t *Frame = X + B * Rows * Stride;
    for (int64_t H = 0; H < Height; ++H)
      for (int64_t W = 0; W < Width; ++W) {
        float V[3];
        numerics::readModelPixel(Frame, F, Height, Stride, H, W, Channels, Bgr,
                                 V);
        for (int64_t C = 0; C < Channels; ++C)
          Y[((B * Channels + C) * Height + H) * Width + W] =
              (V[C] - perChannel(Mean, C)) * perChannel(Scale, C);
      }
  }
  Ctx.Outputs.push_back(std::move(Out));
  return llvm::Error::success();
}

} // namespace

void registerImageKernels() {
  registerKernel("pixels_to_tensor", pixelsToTensorKernel);
}

} // namespace kiln

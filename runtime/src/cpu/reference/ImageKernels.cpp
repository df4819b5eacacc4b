// PIXELS_TO_TENSOR: a u8 frame to the normalized f32 NHWC image, each pixel
// read through numerics/PixelFormats.h as the compiler's interpreter reads
// it. Rows are split over the session's threads.
#include "cpu/reference/PoolHandOff.h"
#include "cpu/reference/ReferenceKernels.h"

#include "numerics/PixelFormats.h"

namespace kiln::rt::ref {

namespace {

using numerics::PixelFormat;

struct PixelsTask {
  const uint8_t *Frame;
  float *Image;
  PixelFormat Format;
  int64_t Height, Width, Channels, FrameRows, Stride;
  bool Bgr;
  float Mean[3], Scale[3];
};

/// Image row Row (over the whole batch: Row = n * Height + h).
void convertRow(const PixelsTask &T, int64_t Row) {
  int64_t N = Row / T.Height, H = Row % T.Height;
  const uint8_t *Frame = T.Frame + N * T.FrameRows * T.Stride;
  float *Out = T.Image + Row * T.Width * T.Channels;
  for (int64_t W = 0; W < T.Width; ++W, Out += T.Channels) {
    float Rgb[3];
    if (T.Channels == 1)
      Rgb[0] = numerics::readLuma(Frame, T.Stride, H, W);
    else
      numerics::readRgb(Frame, T.Format, T.Height, T.Stride, H, W, Rgb);
    for (int64_t C = 0; C < T.Channels; ++C)
      Out[C] = (Rgb[T.Bgr ? 2 - C : C] - T.Mean[C]) * T.Scale[C];
  }
}

void convertRowTask(void *Context, size_t Row) {
  takeOver(Context);
  convertRow(*static_cast<const PixelsTask *>(Context), int64_t(Row));
  handOff(Context);
}

} // namespace

PooledRunFn pixelsToTensor(const KernelArgs &A) {
  const auto &O = *A.Op.options_as_PixelsToTensorOptions();
  PixelsTask T{};
  T.Frame = A.In[0].as<const uint8_t>();
  T.Image = A.Out[0].as<float>();
  T.Format = PixelFormat(O.format());
  T.Height = A.Out[0].dim(1);
  T.Width = A.Out[0].dim(2);
  T.Channels = A.Out[0].dim(3);
  T.FrameRows = A.In[0].dim(1);
  T.Stride = A.In[0].dim(2) * A.In[0].dim(3);
  T.Bgr = O.channel_bgr();
  for (int64_t C = 0; C < T.Channels; ++C) {
    T.Mean[C] = O.mean()->Get(O.mean()->size() == 1 ? 0 : uint32_t(C));
    T.Scale[C] = O.scale()->Get(O.scale()->size() == 1 ? 0 : uint32_t(C));
  }
  int64_t Rows = A.Out[0].dim(0) * T.Height;
  return [T, Rows](pthreadpool_t Pool) mutable {
    if (pthreadpool_get_threads_count(Pool) <= 1) {
      for (int64_t R = 0; R < Rows; ++R)
        convertRow(T, R);
      return Status::ok();
    }
    handOff(&T);
    pthreadpool_parallelize_1d(Pool, convertRowTask, &T, size_t(Rows),
                               /*flags=*/0);
    takeOver(&T);
    return Status::ok();
  };
}

} // namespace kiln::rt::ref

// PIXELS_TO_TENSOR on the CPU: image/PixelConversion.h's rows split over the
// session's threads.
#include "PoolHandOff.h"
#include "cpu/reference/ReferenceKernels.h"
#include "image/PixelConversion.h"

namespace kiln::rt::ref {

namespace {

struct PixelsTask {
  PixelConversion C;
  const uint8_t *Frame;
  void *Image; // float, or int8_t for an int8 image
};

void convertRowTask(void *Context, size_t Row) {
  takeOver(Context);
  const auto &T = *static_cast<const PixelsTask *>(Context);
  convertPixelRow(T.C, T.Frame, T.Image, int64_t(Row));
  handOff(Context);
}

} // namespace

PooledRunFn pixelsToTensor(const KernelArgs &A) {
  PixelsTask T{pixelConversionOf(A.Op, *A.In[0].Desc, *A.Out[0].Desc),
               A.In[0].as<const uint8_t>(), A.Out[0].as<void>()};
  int64_t Rows = T.C.rows(A.Out[0].dim(0));
  return [T, Rows](pthreadpool_t Pool) mutable {
    if (pthreadpool_get_threads_count(Pool) <= 1) {
      for (int64_t R = 0; R < Rows; ++R)
        convertPixelRow(T.C, T.Frame, T.Image, R);
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

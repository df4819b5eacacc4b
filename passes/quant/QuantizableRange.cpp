// whyNotQuantizable (CalibrationStats.h): what an observer's range says
// about int8, with no graph in sight, so that kiln_calib_file holds it.
#include "passes/quant/CalibrationStats.h"

#include "IR/FloatFormat.h"

#include <algorithm>
#include <limits>
#include <string>

namespace kiln {

std::string whyNotQuantizable(const TensorObserver &O) {
  if (O.nonFiniteCount() > 0)
    return std::to_string(O.nonFiniteCount()) +
           " NaN or infinite values were observed (an overflow in the model, "
           "or such values in the data); no int8 range holds them";
  if (O.count() == 0)
    return "";
  double Lo = std::min(double(O.min()), 0.0), Hi = std::max(double(O.max()), 0.0);
  double Width = Hi - Lo;
  std::string Range = "range [" + formatFloat(O.min()) + ", " + formatFloat(O.max()) + "]";
  if (Width > double(std::numeric_limits<float>::max()))
    return Range + " is wider than f32 holds; its int8 scale would overflow";
  if (Width > 0 && Width < double(std::numeric_limits<float>::min()))
    return Range + " is narrower than the smallest normal f32; its int8 "
                   "scale would be degenerate";
  return "";
}

} // namespace kiln

#include "IR/FloatFormat.h"

#include <charconv>
#include <cmath>

namespace kiln {

template <typename T> static std::string format(T V) {
  if (std::isnan(V))
    return std::signbit(V) ? "-nan" : "nan";
  if (std::isinf(V))
    return V < 0 ? "-inf" : "inf";
  char Buf[64];
  auto Res = std::to_chars(Buf, Buf + sizeof(Buf), V);
  std::string S(Buf, Res.ptr);
  if (S.find_first_of(".e") == std::string::npos)
    S += ".0";
  return S;
}

std::string formatFloat(float V) { return format(V); }
std::string formatDouble(double V) { return format(V); }

} // namespace kiln

// Shortest round-trip text for floating-point numbers, shared by the printer,
// type strings and reports: parse(formatFloat(x)) == x bit for bit.
#pragma once

#include <string>

namespace kiln {

/// "1.0", "0.1", "-2.5e-08", "nan", "inf", "-inf". Always contains '.', 'e',
/// or is a non-finite word, so it never reads back as an integer.
std::string formatFloat(float V);
std::string formatDouble(double V);

} // namespace kiln

// Finding calibration files: a folder (recursively), one file, or a text
// file listing them. Private to CalibrationDataset.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace kiln {

enum class CalibrationFileKind { Image, Npy, Npz };

struct CalibrationFile {
  std::string Path;
  CalibrationFileKind Kind;
};

/// The calibration files under Path, in a deterministic order. Errors name
/// the path (and the list file's line).
llvm::Expected<std::vector<CalibrationFile>>
listCalibrationFiles(llvm::StringRef Path);

} // namespace kiln

// The inside of CalibrationDataset, shared by CalibrationDataset.cpp (files,
// arrays, sampling) and CalibrationImages.cpp (images). Private.
#pragma once

#include "passes/quant/CalibrationDataset.h"
#include "passes/quant/CalibrationFiles.h"

#include "Support/Npy.h"

#include <algorithm>
#include <atomic>

namespace kiln {

namespace calibration_data {
/// One input's array in one file, cut into samples along axis 0.
struct ArrayPart {
  NpyArray Array;
  std::vector<int64_t> SampleShape;
  size_t SampleBytes = 0;
};

struct DataFile {
  CalibrationFile File;
  uint64_t Samples = 0;
  std::vector<ArrayPart> Parts; // one per graph input; empty for images
};

/// How images map onto the single image input.
struct ImageInput {
  int Channels = 3;
  int64_t Height = -1, Width = -1; // -1: not static
};

/// "a f32[1,3], b f32[N,4]": the inputs of G, for messages.
std::string listInputs(const Graph &G);
} // namespace calibration_data

struct CalibrationDataset::Impl {
  using ArrayPart = calibration_data::ArrayPart;
  using DataFile = calibration_data::DataFile;
  using ImageInput = calibration_data::ImageInput;

  std::vector<TensorType> InputTypes;
  std::vector<std::string> InputNames; // for messages
  CalibrationDataOptions Opts;
  std::vector<DataFile> Files;
  std::vector<uint64_t> Starts; // first global sample of each file
  uint64_t Total = 0;
  ImageInput Img;
  /// The first sample with extreme values was warned about (samples load
  /// on several threads; one warning per dataset).
  mutable std::atomic<bool> WarnedExtreme{false};

  llvm::Error addArrays(const Graph &G, DataFile &F);
  llvm::Error setUpImages(const Graph &G);
  llvm::Error checkImageSizes() const;
  llvm::Expected<std::vector<Tensor>> loadImage(const DataFile &F) const;
  /// File index and sample within it for global sample Global.
  std::pair<size_t, uint64_t> locate(uint64_t Global) const {
    size_t F = size_t(std::upper_bound(Starts.begin(), Starts.end(), Global) -
                      Starts.begin()) - 1;
    return {F, Global - Starts[F]};
  }
};

} // namespace kiln

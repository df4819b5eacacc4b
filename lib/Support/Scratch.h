// Scratch files: where conversion keeps bytes too large to hold in memory
// (weights a pass has made, the float model calibration runs), so that the
// resident memory of converting a model is bounded by its largest tensor,
// not by the sum of its weights, and a model larger than the free memory
// converts (issue "Models past 2 GB").
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <string>

namespace kiln {

/// The folder scratch files go to. The default is the system's temporary
/// folder; the CLI sets the output's folder, which must have room for the
/// output anyway and is on disk unless the user chose a RAM-backed one.
void setScratchDirectory(llvm::StringRef Dir);
std::string scratchDirectory();
/// setScratchDirectory to the folder of the file OutputPath names.
void setScratchBeside(llvm::StringRef OutputPath);

/// The threshold the converter uses: one weight of a small CNN stays in
/// memory, a layer of a large model goes to disk.
constexpr uint64_t DefaultSpillMinBytes = uint64_t(4) << 20;

/// From now on, spillBytes moves buffers of at least MinBytes to the spill
/// file (0 turns spilling off, the default: a library user who never asks
/// for it keeps every weight in memory).
void enableWeightSpill(uint64_t MinBytes);

/// Spilling on, with the scratch folder beside OutputPath (or the system's
/// temporary folder when OutputPath is empty), for one command; the
/// previous setting comes back when the scope ends, so a process that
/// converts once (the Python package) does not keep spilling.
class WeightSpillScope {
public:
  explicit WeightSpillScope(llvm::StringRef OutputPath,
                            uint64_t MinBytes = DefaultSpillMinBytes);
  ~WeightSpillScope();
  WeightSpillScope(const WeightSpillScope &) = delete;
  WeightSpillScope &operator=(const WeightSpillScope &) = delete;

private:
  uint64_t PreviousMin;
  std::string PreviousDirectory;
};


/// A read-only mapping of a copy of Bytes in the process's spill file (an
/// unlinked file in scratchDirectory() when it was first needed, or in the
/// current one once no spilled bytes are alive), or null when spilling is off, Bytes
/// is smaller than the threshold, or the copy failed (no space, no folder:
/// the caller keeps its bytes in memory; nothing is lost but memory). The
/// mapping's pages are page cache: they leave resident memory on
/// dropMappedPages and are written to disk under memory pressure. When the
/// mapping goes, its range of the file is freed (a punched hole).
std::shared_ptr<const llvm::MemoryBuffer>
spillBytes(llvm::ArrayRef<uint8_t> Bytes);

/// Bytes currently held in the spill file (for tests and reports).
uint64_t spilledBytes();

} // namespace kiln

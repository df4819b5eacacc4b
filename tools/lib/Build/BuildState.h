// What `kiln build` remembers between runs: for each job, a key (its
// commands with the output and manifest folders written as $OUT and
// $MANIFEST, kiln's version, and the content hash of everything it reads)
// and the hashes of what it wrote. A job whose key is unchanged and whose
// outputs still have their hashes is up to date. Each job's stamp is its own
// file under OUT/.kiln-build/stamps (so `--only` runs on several machines
// never write one file together); OUT/kiln.lock gathers them, with the
// artifacts' hashes, at the end of a build.
#pragma once

#include "Build/BuildPlan.h"

#include "llvm/Support/Error.h"

#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace kiln {

/// The content hash of a file, or of a folder (every regular file under
/// it, by path relative to it, in sorted order); bad input when missing.
llvm::Expected<std::string> hashPath(const std::string &Path);

struct JobStamp {
  std::string Key;
  std::map<std::string, std::string> Outputs; // path under OUT -> hash
  double Seconds = 0;                         // how long it took
};

class BuildState {
public:
  BuildState(const BuildPlan &P, std::string KilnVersion);

  /// J's key as things are now (its dependencies must have run).
  llvm::Expected<std::string> key(const BuildJob &J);
  /// Whether J's stamp has Key and its outputs are there, unchanged.
  bool upToDate(const BuildJob &J, const std::string &Key);
  /// Records that J ran with Key in Seconds (hashing its outputs).
  llvm::Error stamp(const BuildJob &J, const std::string &Key, double Seconds);
  /// J's stamp: its own file, else kiln.lock's record of it.
  std::optional<JobStamp> stampOf(const std::string &Id) const;
  /// The key kiln.lock recorded for a job when this build began ("" if
  /// none): a stamp with another key was made since, by `--only` runs.
  std::string lockedKey(const std::string &Id) const {
    auto It = Locked.find(Id);
    return It == Locked.end() ? "" : It->second.Key;
  }
  /// OUT/kiln.lock: every job's stamp and every artifact's hash.
  llvm::Error writeLock() const;

  const BuildPlan &plan() const { return P; }

private:
  std::string stampPath(const std::string &Id) const;
  std::string relative(const std::string &Path) const;
  std::string symbolic(const std::string &Arg) const;

  const BuildPlan &P;
  std::string Version;
  std::map<std::string, JobStamp> Locked; // kiln.lock as read
  mutable std::mutex Mutex;
  std::map<std::string, std::string> InputHashes; // paths outside OUT
};

} // namespace kiln

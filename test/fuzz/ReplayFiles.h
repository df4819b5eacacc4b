// What the replay drivers share: the files named on the command line, with
// folders walked recursively (hidden entries skipped), and their bytes.
#pragma once

#include <dirent.h>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace kiln::fuzz {

/// Appends Path if it is a file, or every file under it if it is a folder.
/// A path that does not exist adds nothing.
inline void collectFiles(const std::string &Path,
                         std::vector<std::string> &Files) {
  struct stat St;
  if (stat(Path.c_str(), &St) != 0)
    return;
  if (!S_ISDIR(St.st_mode)) {
    Files.push_back(Path);
    return;
  }
  if (DIR *D = opendir(Path.c_str())) {
    while (dirent *E = readdir(D))
      if (E->d_name[0] != '.')
        collectFiles(Path + "/" + E->d_name, Files);
    closedir(D);
  }
}

inline std::string readFileBytes(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(In)),
                     std::istreambuf_iterator<char>());
}

} // namespace kiln::fuzz

// Small reads of text files: kernel and sysfs facts (/proc/<pid>/stat, boot_id, cpufreq governors).
#pragma once

#include <fstream>
#include <string>

namespace commbench {

// The first line of the file at path, without its newline; "" where the file cannot be read or is empty.
inline std::string FirstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

}  // namespace commbench

// Small reads of text files: kernel and sysfs facts (/proc/<pid>/stat, boot_id, cpufreq governors).
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace commbench {

// The first line of the file at path, without its newline; "" where the file cannot be read or is empty.
inline std::string FirstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// The whole file at path (a /proc or /sys file, a cgroup's settings); "" where it cannot be read.
inline std::string WholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace commbench

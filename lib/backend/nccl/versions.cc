#include "lib/backend/nccl/versions.h"

#include <cctype>

namespace commbench::nccl {
namespace {

// A token of digits and dots with at least one dot, not starting or ending with a dot: "550.54.15".
bool LooksLikeVersion(std::string_view t) {
  if (t.empty() || t.front() == '.' || t.back() == '.') return false;
  bool dot = false;
  for (char c : t) {
    if (c == '.') {
      dot = true;
    } else if (!std::isdigit(static_cast<unsigned char>(c))) {
      return false;
    }
  }
  return dot;
}

}  // namespace

std::string NcclVersionString(int code) {
  if (code <= 0) return "";
  int major, minor, patch;
  if (code >= 10000) {
    major = code / 10000;
    minor = (code % 10000) / 100;
    patch = code % 100;
  } else {
    major = code / 1000;
    minor = (code % 1000) / 100;
    patch = code % 100;
  }
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

std::string CudaVersionString(int code) {
  if (code <= 0) return "";
  return std::to_string(code / 1000) + "." + std::to_string((code % 1000) / 10);
}

std::string ParseNvidiaDriverVersion(std::string_view text) {
  size_t eol = text.find('\n');
  std::string_view line = text.substr(0, eol);
  size_t module = line.find("Kernel Module");
  if (module == std::string_view::npos) return "";
  line.remove_prefix(module);
  while (!line.empty()) {
    size_t start = line.find_first_not_of(" \t");
    if (start == std::string_view::npos) break;
    line.remove_prefix(start);
    size_t end = line.find_first_of(" \t");
    std::string_view token = line.substr(0, end);
    if (LooksLikeVersion(token)) return std::string(token);
    if (end == std::string_view::npos) break;
    line.remove_prefix(end);
  }
  return "";
}

}  // namespace commbench::nccl

// Parsing of the list-valued flags every sweep axis uses:
//   integers  "1..8", "1,2,4,8", "1..16:x2", "2..8:+2"
//   sizes     "4..64M:x2", "400,4K,1M" (binary suffixes K, M, G, T; optional trailing B or iB)
//   names     "allreduce,allgather"
// Errors name the bad value and what is accepted; they are InvalidArgument (exit code 2 in the CLI).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lib/core/status.h"

namespace commbench {

// A range expands to at most this many values (a sweep axis with more is a typo, and "0..16G:+1" would not fit in
// memory).
inline constexpr size_t kMaxListValues = 100000;

struct IntBounds {
  int64_t min;
  int64_t max;
};

// `flag` names the option in messages ("--groups").
StatusOr<std::vector<int64_t>> ParseIntList(std::string_view text, std::string_view flag, IntBounds bounds);

// One byte count with an optional binary suffix: "400", "4K", "64MiB", "1G".
StatusOr<uint64_t> ParseByteSize(std::string_view text, std::string_view flag);

// A list of byte counts; ranges step geometrically (":x2", the default) or arithmetically (":+4K").
StatusOr<std::vector<uint64_t>> ParseSizeList(std::string_view text, std::string_view flag, uint64_t max_bytes);

// Comma-separated names, trimmed; empty items are an error.
StatusOr<std::vector<std::string>> ParseNameList(std::string_view text, std::string_view flag);

// "4K", "1.5M": the shortest exact-ish human form of a byte count, used in tables and reports.
std::string FormatBytes(uint64_t bytes);

// "0-1,4": the compact form of a CPU list.
std::string FormatCpuList(const std::vector<int>& cpus);
StatusOr<std::vector<int>> ParseCpuList(std::string_view text, std::string_view flag);

}  // namespace commbench

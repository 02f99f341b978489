#include "lib/core/ranges.h"

#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <limits>
#include <set>

namespace commbench {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    out.push_back(Trim(s.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start)));
    if (pos == std::string_view::npos) break;
    start = pos + 1;
  }
  return out;
}

Status Bad(std::string_view flag, std::string_view value, std::string_view accepted) {
  return InvalidArgument(std::string(flag) + ": invalid value '" + std::string(value) + "' (" + std::string(accepted) +
                         ")");
}

// Parses a non-negative decimal integer that must use the whole string.
bool ParseUnsigned(std::string_view s, uint64_t* out) {
  if (s.empty() || s.size() > 19) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  *out = v;
  return true;
}

constexpr std::string_view kIntAccepted = "accepted: N, A..B, A..B:xK, A..B:+K, or a comma list of these";
constexpr std::string_view kSizeAccepted =
    "accepted: bytes with optional suffix K, M, G, T (powers of 1024), e.g. 400, 4K, 1M; "
    "ranges A..B[:xK|:+S]; comma lists";

struct RangeItem {
  std::string_view lo, hi, step;  // hi and step empty for a single value
};

StatusOr<RangeItem> SplitRangeItem(std::string_view item, std::string_view flag, std::string_view accepted) {
  RangeItem r;
  size_t dots = item.find("..");
  if (dots == std::string_view::npos) {
    if (item.find(':') != std::string_view::npos) return Bad(flag, item, accepted);
    r.lo = item;
    return r;
  }
  r.lo = Trim(item.substr(0, dots));
  std::string_view rest = item.substr(dots + 2);
  size_t colon = rest.find(':');
  r.hi = Trim(rest.substr(0, colon));
  if (colon != std::string_view::npos) {
    r.step = Trim(rest.substr(colon + 1));
    if (r.step.size() < 2 || (r.step[0] != 'x' && r.step[0] != '+')) return Bad(flag, item, accepted);
  }
  if (r.lo.empty() || r.hi.empty()) return Bad(flag, item, accepted);
  return r;
}

// Expands lo..hi with a step "xK" or "+K" (default x2 for sizes, +1 for integers).
template <typename T, typename ParseFn>
StatusOr<std::vector<T>> ExpandList(std::string_view text, std::string_view flag, std::string_view accepted,
                                    std::string_view default_step, T min, T max, std::string_view unit,
                                    ParseFn parse_value) {
  text = Trim(text);
  if (text.empty()) return Bad(flag, text, accepted);
  std::vector<T> values;
  for (std::string_view item : Split(text, ',')) {
    if (item.empty()) return Bad(flag, text, accepted);
    ASSIGN_OR_RETURN(RangeItem r, SplitRangeItem(item, flag, accepted));
    ASSIGN_OR_RETURN(T lo, parse_value(r.lo, item));
    T hi = lo;
    if (!r.hi.empty()) {
      ASSIGN_OR_RETURN(hi, parse_value(r.hi, item));
    }
    for (T v : {lo, hi}) {
      if (v < min || v > max) {
        return InvalidArgument(std::string(flag) + ": value " + std::to_string(v) + std::string(unit) + " in '" +
                               std::string(item) + "' is out of range (accepted: " + std::to_string(min) + ".." +
                               std::to_string(max) + std::string(unit) + ")");
      }
    }
    if (hi < lo) {
      return InvalidArgument(std::string(flag) + ": range '" + std::string(item) +
                             "' is empty: its end is below its start (write A..B with A <= B)");
    }
    std::string_view step = r.step.empty() ? default_step : r.step;
    ASSIGN_OR_RETURN(T amount, parse_value(step.substr(1), item));
    bool geometric = step[0] == 'x';
    if ((geometric && amount < 2) || (!geometric && amount < 1)) {
      return Bad(flag, item, "a range step must be x2 or more, or +1 or more");
    }
    for (T v = lo;;) {
      values.push_back(v);
      if (values.size() > kMaxListValues) {
        return InvalidArgument(std::string(flag) + ": '" + std::string(item) + "' gives more than " +
                               std::to_string(kMaxListValues) + " values");
      }
      // The next value only while it stays within hi, checked before computing it: no overflow. hi - v fits in
      // 64 unsigned bits for any two values of T with v <= hi.
      const uint64_t room = static_cast<uint64_t>(hi) - static_cast<uint64_t>(v);
      if (geometric ? (v <= 0 || v > hi / amount) : static_cast<uint64_t>(amount) > room) break;
      v = geometric ? v * amount : v + amount;
    }
  }
  // Sorted and unique: the planner and the growth fits want each value once, in order.
  std::set<T> unique(values.begin(), values.end());
  return std::vector<T>(unique.begin(), unique.end());
}

}  // namespace

StatusOr<std::vector<int64_t>> ParseIntList(std::string_view text, std::string_view flag, IntBounds bounds) {
  auto parse = [&](std::string_view s, std::string_view item) -> StatusOr<int64_t> {
    uint64_t v;
    bool negative = !s.empty() && s[0] == '-';
    if (!ParseUnsigned(negative ? s.substr(1) : s, &v) ||
        v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return Bad(flag, item, kIntAccepted);
    }
    return negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
  };
  return ExpandList<int64_t>(text, flag, kIntAccepted, "+1", bounds.min, bounds.max, "", parse);
}

StatusOr<uint64_t> ParseByteSize(std::string_view text, std::string_view flag) {
  std::string_view s = Trim(text);
  size_t digits = 0;
  while (digits < s.size() && std::isdigit(static_cast<unsigned char>(s[digits]))) ++digits;
  uint64_t v;
  if (!ParseUnsigned(s.substr(0, digits), &v)) return Bad(flag, text, kSizeAccepted);
  std::string suffix(s.substr(digits));
  for (auto& c : suffix) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  uint64_t mult = 0;
  if (suffix.empty() || suffix == "B") mult = 1;
  for (auto [letter, m] :
       {std::pair<char, uint64_t>{'K', 1ull << 10}, {'M', 1ull << 20}, {'G', 1ull << 30}, {'T', 1ull << 40}}) {
    std::string l(1, letter);
    if (suffix == l || suffix == l + "B" || suffix == l + "IB") mult = m;
  }
  if (mult == 0) return Bad(flag, text, kSizeAccepted);
  if (v > std::numeric_limits<uint64_t>::max() / mult) return Bad(flag, text, "the size overflows 64 bits");
  return v * mult;
}

StatusOr<std::vector<uint64_t>> ParseSizeList(std::string_view text, std::string_view flag, uint64_t max_bytes) {
  auto parse = [&](std::string_view s, std::string_view) { return ParseByteSize(s, flag); };
  return ExpandList<uint64_t>(text, flag, kSizeAccepted, "x2", 0, max_bytes, " B", parse);
}

StatusOr<std::vector<std::string>> ParseNameList(std::string_view text, std::string_view flag) {
  std::vector<std::string> out;
  for (std::string_view item : Split(Trim(text), ',')) {
    if (item.empty()) return Bad(flag, text, "a comma-separated list of names with no empty items");
    if (std::find(out.begin(), out.end(), item) == out.end()) out.emplace_back(item);
  }
  return out;
}

std::string FormatBytes(uint64_t bytes) {
  const char* units[] = {"", "K", "M", "G", "T"};
  int u = 0;
  uint64_t v = bytes;
  while (v >= 1024 && v % 1024 == 0 && u < 4) {
    v /= 1024;
    ++u;
  }
  if (u == 0 && bytes >= 1024) {  // not a whole multiple: one decimal of the largest unit
    double d = static_cast<double>(bytes);
    while (d >= 1024 && u < 4) {
      d /= 1024;
      ++u;
    }
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.1f%s", d, units[u]);
    return buf;
  }
  return std::to_string(v) + units[u];
}

std::string FormatCpuList(const std::vector<int>& cpus) {
  std::vector<int> sorted(cpus);
  std::sort(sorted.begin(), sorted.end());
  std::string out;
  for (size_t i = 0; i < sorted.size();) {
    size_t j = i;
    while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += std::to_string(sorted[i]);
    if (j > i) out += "-" + std::to_string(sorted[j]);
    i = j + 1;
  }
  return out;
}

StatusOr<std::vector<int>> ParseCpuList(std::string_view text, std::string_view flag) {
  std::vector<int> cpus;
  for (std::string_view item : Split(Trim(text), ',')) {
    size_t dash = item.find('-');
    uint64_t lo, hi;
    bool ok = dash == std::string_view::npos
                  ? ParseUnsigned(item, &lo) && (hi = lo, true)
                  : ParseUnsigned(Trim(item.substr(0, dash)), &lo) && ParseUnsigned(Trim(item.substr(dash + 1)), &hi);
    if (!ok || hi < lo || hi >= 4096) return Bad(flag, text, "accepted: CPU numbers and ranges, e.g. 0, 0-3, 0,2");
    for (uint64_t c = lo; c <= hi; ++c) cpus.push_back(static_cast<int>(c));
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

}  // namespace commbench

#include "lib/report/console_time.h"

#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

namespace commbench {

namespace {

std::string Seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f s", s);
  return buf;
}

// The console's words for a phase: the JSON names, spaced.
std::string Words(result::Phase p) {
  std::string name(NameOf(result::kPhaseNames, p));
  std::replace(name.begin(), name.end(), '_', ' ');
  return name == "warmup" ? "warm-up" : name;
}

}  // namespace

std::string FormatWallTime(const result::ResultTrailer& trailer) {
  if (!trailer.wall || trailer.wall->wall_s <= 0) return "";
  const result::WallTime& w = *trailer.wall;
  std::vector<std::pair<double, result::Phase>> rest;
  for (const auto& [phase, name] : result::kPhaseNames) {
    if (phase != result::Phase::kTimed && w.phases[phase] >= 0.1) rest.emplace_back(w.phases[phase], phase);
  }
  std::sort(rest.begin(), rest.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  char head[96];
  std::snprintf(head, sizeof(head), "# Time: %.1f s wall, %.0f %% in timed loops (%.1f s)", w.wall_s,
                100 * w.TimedShare(), w.phases[result::Phase::kTimed]);
  std::string line = head;
  for (size_t i = 0; i < rest.size(); ++i) {
    line += (i == 0 ? "; " : ", ") + Words(rest[i].second) + " " + Seconds(rest[i].first);
  }
  return line + "\n";
}

}  // namespace commbench

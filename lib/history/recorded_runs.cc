#include "lib/history/recorded_runs.h"

#include <cstdio>
#include <cstdlib>
#include <map>

#include "lib/gate/compare.h"
#include "lib/stats/summary.h"

namespace commbench::history {

std::vector<std::vector<double>> RecordedDeviations(const std::vector<std::string>& files, const char* tool) {
  std::map<std::string, std::vector<std::vector<double>>> by_point;
  for (const std::string& f : files) {
    auto file = gate::LoadComparable(f);
    if (!file.ok()) {
      std::fprintf(stderr, "%s: %s\n", tool, file.status().message().c_str());
      std::exit(2);
    }
    for (const auto& p : file->points) by_point[p.point.Id()].push_back(result::RepeatMedians(p));
  }
  std::vector<std::vector<double>> dev;
  for (const auto& [id, runs] : by_point) {
    std::vector<double> all;
    for (const auto& r : runs) all.insert(all.end(), r.begin(), r.end());
    const double m = Median(all);
    for (auto r : runs) {
      for (double& v : r) v /= m;
      dev.push_back(r);
    }
  }
  return dev;
}

}  // namespace commbench::history

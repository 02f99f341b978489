#include "lib/report/console_arrival.h"

#include <cstdio>

#include "lib/core/ranges.h"

namespace commbench {

namespace {

std::string Cell(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), fmt, v);
  return buf;
}

}  // namespace

std::string FormatArrivals(const std::vector<result::PointResult>& points) {
  std::string out;
  for (const result::PointResult& p : points) {
    if (!p.arrival) continue;
    if (out.empty()) {
      out +=
          "# Transfer and arrival (transfer: the least any rank of the group spent inside the op; skew: its last\n"
          "# rank's arrival less its first's; aggregate busbw: the plain sum over the groups, and their bus bytes\n"
          "# over the time any group was inside an op)\n";
      char header[256];
      std::snprintf(header, sizeof(header), "#%-10s %11s %4s %12s %12s %12s %12s %9s %11s %11s\n", "backend", "size",
                    "G", "xfer p50", "xfer p99", "skew p50", "skew p99", "method", "agg sum", "agg busy");
      out += header;
    }
    char line[256];
    std::snprintf(line, sizeof(line), " %-10s %11s %4d %12s %12s %12s %12s %9s %11s %11s\n",
                  p.point.backend.substr(0, 10).c_str(), FormatBytes(p.point.bytes).c_str(), p.point.groups,
                  Cell("%.1f", p.arrival->transfer_us.p50).c_str(), Cell("%.1f", p.arrival->transfer_us.p99).c_str(),
                  Cell("%.1f", p.arrival->skew_us.p50).c_str(), Cell("%.1f", p.arrival->skew_us.p99).c_str(),
                  std::string(NameOf(result::kSkewMethodNames, p.arrival->method)).c_str(),
                  Cell("%.4g", p.aggregate_busbw_gbps).c_str(),
                  p.busy_time ? Cell("%.4g", p.busy_time->aggregate_busbw_gbps).c_str() : "-");
    out += line;
  }
  return out;
}

}  // namespace commbench

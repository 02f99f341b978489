#include "lib/report/console.h"

#include <cstdarg>
#include <cstdio>
#include <map>
#include <sstream>

#include "lib/core/ranges.h"

namespace commbench {

namespace {

std::string Printf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string Printf(const char* fmt, ...) {
  char buf[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buf, sizeof(buf), fmt, args);
  va_end(args);
  return buf;
}

// The axes that are not columns: one table per distinct combination.
std::string TableTitle(const Point& p) {
  std::string title = p.backend + " " + std::string(Name(p.op)) + " " + p.algo + ", " + std::to_string(p.groups) +
                      " group" + (p.groups == 1 ? "" : "s") + " x " + std::to_string(p.group_size) + " ranks, sync " +
                      std::string(Name(p.sync));
  if (p.concurrency != Concurrency::kConcurrent) title += ", groups one at a time";
  if (p.ranks_per_process != 1) title += ", " + std::to_string(p.ranks_per_process) + " ranks/process";
  if (p.pin != Pin::kNone) title += ", pin " + std::string(Name(p.pin));
  if (!p.cpus.empty()) title += ", cpus " + p.cpus;
  if (p.gpu_backend()) {
    title += ", stream " + std::string(Name(p.gpu.stream)) + ", h2d " + std::string(Name(p.gpu.h2d));
    if (p.gpu.graph) title += ", graph";
  }
  title += p.in_place ? " (in place)" : " (out of place)";
  return title;
}

// The most bytes any rank moved per op, measured (sent; received where only that is counted, as over shm), and
// that rank's measured / model ratio (docs/result-format.md, "Traffic"); "-" where nothing measured it.
std::pair<std::string, std::string> TrafficCells(const result::PointResult& r) {
  double most = -1, ratio = -1;
  for (const result::RankTime& rank : r.per_rank) {
    if (!rank.traffic) continue;
    const bool sent = rank.traffic->SentPerOp() >= 0;
    const double bytes = sent ? rank.traffic->SentPerOp() : rank.traffic->RecvPerOp();
    if (bytes > most) most = bytes, ratio = sent ? rank.traffic->SentRatio() : rank.traffic->RecvRatio();
  }
  if (most < 0) return {"-", "-"};
  return {FormatBytes(static_cast<uint64_t>(most + 0.5)), ratio < 0 ? "-" : Printf("%.3f", ratio)};
}

}  // namespace

std::string FormatTables(const std::vector<result::PointResult>& points) {
  std::map<std::string, std::vector<const result::PointResult*>> tables;
  std::vector<std::string> order;
  for (const result::PointResult& p : points) {
    std::string title = TableTitle(p.point);
    if (!tables.count(title)) order.push_back(title);
    tables[title].push_back(&p);
  }
  std::ostringstream out;
  for (const auto& title : order) {
    out << "# " << title << "\n";
    out << Printf("#%11s %12s %6s %6s %11s %11s %11s %11s %9s %9s %8s %6s %9s %7s\n", "size", "count", "type", "redop",
                  "loop(us)", "p50(us)", "p99(us)", "mean-rk(us)", "algbw", "busbw", "iters", "#wrong", "B/op/rk",
                  "x-model");
    for (const result::PointResult* r : tables[title]) {
      const Point& p = r->point;
      const auto [traffic, vs_model] = TrafficCells(*r);
      out << Printf(" %11s %12zu %6s %6s %11.1f %11.1f %11.1f %11.1f %9.3f %9.3f %8d %6d %9s %7s\n",
                    FormatBytes(p.bytes).c_str(), p.count, std::string(Name(p.dtype)).c_str(),
                    p.op == Collective::kAllgather ? "-" : std::string(Name(p.reduce)).c_str(), r->time_us.mean,
                    r->time_us.p50, r->time_us.p99, r->time_us_rank_mean.p50, r->algbw_gbps, r->busbw_gbps,
                    static_cast<int>(r->iters), static_cast<int>(r->errors.size()), traffic.c_str(), vs_model.c_str());
    }
    out << "\n";
  }
  return out.str();
}

std::string FormatGrowth(const std::vector<result::Fit>& fits) {
  std::ostringstream out;
  if (fits.empty()) return "";
  out << "# Growth with the group count (loop cost per op: the mean of the slowest rank's own times)\n";
  for (const result::Fit& f : fits) {
    const Point& p = f.series;
    std::string axes = "sync " + std::string(Name(p.sync));
    if (p.concurrency != Concurrency::kConcurrent) axes += ", groups one at a time";
    if (!p.cpus.empty()) axes += ", cpus " + p.cpus;
    // What the growth is made of (issue 52), where the points recorded their transfer and arrivals.
    const std::string split = f.split
                                  ? Printf("; %s: transfer %+.1f us, arrival skew %+.1f us",
                                           std::string(NameOf(result::kGrowthReadingNames, f.split->reading)).c_str(),
                                           f.split->transfer_growth_us, f.split->skew_growth_us)
                                  : "";
    out << Printf("  %s %s %s %s, %s: G=%d %.1f us -> G=%d %.1f us, slope %+.2f us/group, R^2 %.2f%s\n",
                  p.backend.c_str(), std::string(Name(p.op)).c_str(), p.algo.c_str(), FormatBytes(p.bytes).c_str(),
                  axes.c_str(), f.groups.front(), f.p50_us.front(), f.groups.back(), f.p50_us.back(),
                  f.slope_us_per_group, f.r2, split.c_str());
  }
  return out.str();
}

}  // namespace commbench

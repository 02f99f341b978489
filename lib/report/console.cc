#include "lib/report/console.h"

#include <cstdarg>
#include <cstdio>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "lib/core/ranges.h"

namespace commbench {

using nlohmann::json;

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
std::string TableTitle(const json& p) {
  std::string title = p["backend"].get<std::string>() + " " + p["op"].get<std::string>() + " " +
                      p["algo"].get<std::string>() + ", " + std::to_string(p["groups"].get<int>()) + " group" +
                      (p["groups"].get<int>() == 1 ? "" : "s") + " x " + std::to_string(p["group_size"].get<int>()) +
                      " ranks, sync " + p["sync"].get<std::string>();
  if (p.value("concurrency", std::string("concurrent")) != "concurrent") title += ", groups one at a time";
  if (p["ranks_per_process"].get<int>() != 1) title += ", " + std::to_string(p["ranks_per_process"].get<int>()) + " ranks/process";
  if (p["pin"] != "none") title += ", pin " + p["pin"].get<std::string>();
  if (!p["cpus"].get<std::string>().empty()) title += ", cpus " + p["cpus"].get<std::string>();
  if (!p["stream"].is_null()) {
    title += ", stream " + p["stream"].get<std::string>() + ", h2d " + p["h2d"].get<std::string>();
    if (p["graph"].get<bool>()) title += ", graph";
  }
  title += p["in_place"].get<bool>() ? " (in place)" : " (out of place)";
  return title;
}

}  // namespace

std::string FormatTables(const json& result) {
  std::map<std::string, std::vector<const json*>> tables;
  std::vector<std::string> order;
  for (const json& p : result["points"]) {
    std::string title = TableTitle(p);
    if (!tables.count(title)) order.push_back(title);
    tables[title].push_back(&p);
  }
  std::ostringstream out;
  for (const auto& title : order) {
    out << "# " << title << "\n";
    out << Printf("#%11s %12s %6s %6s %11s %11s %11s %9s %9s %8s %6s\n", "size", "count", "type", "redop",
                  "p50(us)", "p99(us)", "mean-rk(us)", "algbw", "busbw", "iters", "#wrong");
    for (const json* p : tables[title]) {
      int wrong = static_cast<int>((*p)["errors"].size());
      out << Printf(" %11s %12zu %6s %6s %11.1f %11.1f %11.1f %9.3f %9.3f %8d %6d\n",
                    FormatBytes((*p)["bytes"].get<uint64_t>()).c_str(), (*p)["count"].get<size_t>(),
                    (*p)["dtype"].get<std::string>().c_str(),
                    (*p)["op"] == "allgather" ? "-" : (*p)["reduce"].get<std::string>().c_str(),
                    (*p)["time_us"]["p50"].get<double>(), (*p)["time_us"]["p99"].get<double>(),
                    (*p)["time_us_rank_mean"]["p50"].get<double>(), (*p)["algbw_gbps"].get<double>(),
                    (*p)["busbw_gbps"].get<double>(), (*p)["iters"].get<int>(), wrong);
    }
    out << "\n";
  }
  return out.str();
}

std::string FormatGrowth(const json& result) {
  std::ostringstream out;
  if (result["fits"].empty()) return "";
  out << "# Growth with the group count (p50 of the per-iteration max across ranks)\n";
  for (const json& f : result["fits"]) {
    const auto& groups = f["groups"];
    const auto& p50 = f["p50_us"];
    std::string axes = "sync " + f["sync"].get<std::string>();
    if (f.value("concurrency", std::string("concurrent")) != "concurrent") axes += ", groups one at a time";
    if (!f.value("cpus", std::string()).empty()) axes += ", cpus " + f["cpus"].get<std::string>();
    out << Printf("  %s %s %s %s, %s: G=%d %.1f us -> G=%d %.1f us, slope %+.2f us/group, R^2 %.2f\n",
                  f["backend"].get<std::string>().c_str(), f["op"].get<std::string>().c_str(),
                  f["algo"].get<std::string>().c_str(), FormatBytes(f["bytes"].get<uint64_t>()).c_str(),
                  axes.c_str(), groups.front().get<int>(),
                  p50.front().get<double>(), groups.back().get<int>(), p50.back().get<double>(),
                  f["slope_us_per_group"].get<double>(), f["r2"].get<double>());
  }
  return out.str();
}

}  // namespace commbench

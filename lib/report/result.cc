#include "lib/report/result.h"

#include <ctime>
#include <map>

#include "lib/stats/fit.h"
#include "lib/sweep/point_json.h"

#ifndef COMMBENCH_VERSION
#define COMMBENCH_VERSION "0.0.0"
#endif
#ifndef COMMBENCH_COMMIT
#define COMMBENCH_COMMIT "unknown"
#endif

namespace commbench {

using nlohmann::json;

namespace {

constexpr const char* kSeriesAxes[] = {"backend", "op",   "algo",  "dtype", "reduce", "bytes", "group_size",
                                       "in_place", "sync", "ranks_per_process", "pin", "cpus",  "stream", "h2d",
                                       "h2d_bytes", "graph"};

}  // namespace

std::string SeriesKey(const json& point) {
  std::string key;
  for (const char* axis : kSeriesAxes) {
    key += axis;
    key += "=";
    key += point.contains(axis) ? point.at(axis).dump() : "null";
    key += ";";
  }
  return key;
}

json LinearFits(const json& points) {
  std::map<std::string, std::vector<const json*>> series;
  std::vector<std::string> order;
  for (const json& p : points) {
    std::string key = SeriesKey(p);
    if (!series.count(key)) order.push_back(key);
    series[key].push_back(&p);
  }
  json fits = json::array();
  for (const auto& key : order) {
    const auto& members = series[key];
    if (members.size() < 2) continue;
    std::vector<double> groups, p50;
    for (const json* p : members) {
      groups.push_back(p->at("groups").get<double>());
      p50.push_back(p->at("time_us").at("p50").get<double>());
    }
    LinearFit f = FitLine(groups, p50);
    json fit;
    for (const char* axis : kSeriesAxes) fit[axis] = members.front()->value(axis, json(nullptr));
    fit["groups"] = groups;
    fit["p50_us"] = p50;
    fit["slope_us_per_group"] = f.slope;
    fit["intercept_us"] = f.intercept;
    fit["r2"] = f.r2;
    fits.push_back(fit);
  }
  return fits;
}

std::string Iso8601Now() {
  std::time_t now = std::time(nullptr);
  std::tm tm;
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

json BuildResult(const ResultInputs& in) {
  json result;
  result["schema_version"] = kSchemaVersion;
  result["tool"] = {{"name", "commbench"}, {"version", COMMBENCH_VERSION}, {"commit", COMMBENCH_COMMIT}};
  result["command"] = in.command;
  result["started_at"] = in.started_at;
  result["duration_s"] = in.duration_s;
  result["spec"] = SpecToJson(in.spec);
  result["environment"] = in.environment;
  result["points"] = in.points;
  json skipped = json::array();
  for (const auto& s : in.skipped) skipped.push_back({{"what", s.what}, {"reason", s.reason}});
  result["skipped"] = skipped;
  result["fits"] = LinearFits(result["points"]);
  result["findings"] = json::array();
  result["verdict"] = "insufficient data";
  result["status"] = in.failure.empty() ? "complete" : "partial";
  if (!in.failure.empty()) result["failure"] = in.failure;
  return result;
}

}  // namespace commbench

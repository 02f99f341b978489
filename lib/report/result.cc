#include "lib/report/result.h"

#include <ctime>

#include "lib/diagnose/diagnose.h"
#include "lib/sweep/point_json.h"
#include "tools/version.h"

namespace commbench {

using nlohmann::json;

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
  json diagnosis = diagnose::Diagnose(result);
  for (const char* key : {"fits", "findings", "ruled_out", "verdict"}) result[key] = diagnosis[key];
  result["status"] = in.failure.empty() ? "complete" : "partial";
  if (!in.failure.empty()) result["failure"] = in.failure;
  return result;
}

}  // namespace commbench
